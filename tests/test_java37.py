"""Java forms the blind suite callgraph_blind8 found missed (session 37): the static
members of the class of ``import static pkg.Class.*;``, and a method of an enum reached
through one of its constants (``Operation.ADD.render(2, 3)``, also when the constant has
a body). Each line checked by hand; the files compile with javac."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from

STRINGS = ("package com.ex.util;\npublic final class Strings {\n"
           "  public static boolean isEmpty(String s) { return s == null; }\n"
           "  public static String cap(String s) { return s; }\n}\n")
BANNER = ("package com.ex.cli;\n\nimport static com.ex.util.Strings.*;\n\n"
          "public class Banner {\n  static String render(String t) {\n"
          "    if (isEmpty(t)) return t;\n    return cap(t);\n  }\n}\n")
OPS = ("enum Operation {\n  ADD { int apply(int a, int b) { return a + b; } },\n"
       "  NEG;\n  int apply(int a, int b) { return -a; }\n"
       "  String render(int a) { return \"\" + apply(a, a); }\n}\n"
       "class Main {\n  static void run() {\n    Operation.ADD.render(2);\n"
       "    Operation.NEG.render(3);\n  }\n}\n")


def test_static_wildcard_import_and_enum_constants(tmp_path: Path) -> None:
    got = calls_from(tmp_path, {"src/com/ex/util/Strings.java": STRINGS,
                                "src/com/ex/cli/Banner.java": BANNER, "Ops.java": OPS},
                     "src/com/ex/cli/Banner.java::Banner.render", "Ops.java::Main.run")
    s = "src/com/ex/util/Strings.java::Strings"
    assert got == [
        "Ops.java::Main.run -> Ops.java::Operation.render @10",
        "Ops.java::Main.run -> Ops.java::Operation.render @9",
        f"src/com/ex/cli/Banner.java::Banner.render -> {s}.cap @8",
        f"src/com/ex/cli/Banner.java::Banner.render -> {s}.isEmpty @7",
    ]


def test_break_it_37_wrong_edges_fixed(tmp_path: Path) -> None:
    """Break-it of session 37: a Java enum's static field of another type is no enum
    constant (``Operation.DEFAULT.render()`` runs ``Other.render``: javac run); a method's
    own type parameter hides the class's (``<T extends Other> void shadow(T y)``); C#
    extension methods never take a static call on a type (``Console.WriteLine``) or a
    string literal's own method (``" a ".Trim()`` of ``Trim(this Widget w)``)."""
    ops = ("enum Operation {\n  ADD, SUB;\n  static final Other DEFAULT = new Other();\n"
           "  public String render() { return \"o\"; }\n}\n"
           "class Other { public void m() {} public String render() { return \"x\"; } }\n"
           "interface Entity { void save(); }\nclass Keep { void save() {} }\n"
           "class Repo<T extends Entity> {\n  <T extends Keep> void shadow(T y) {\n"
           "    y.save();\n  }\n}\n"
           "class Main {\n  static void run() {\n    Operation.DEFAULT.render();\n"
           "    Operation.DEFAULT.m();\n  }\n}\n")
    cs = ("using System;\nnamespace Acme.App {\n  class Widget { }\n  static class Ext {\n"
          "    public static void WriteLine(this Widget w, string s) { }\n"
          "    public static void Trim(this Widget w) { }\n"
          "    public static string Loud(this string s) { return s; }\n  }\n"
          "  class Program {\n    static void Main() {\n      Console.WriteLine(\"hi\");\n"
          "      \" a \".Trim();\n      \"b\".Loud();\n    }\n  }\n}\n")
    got = calls_from(tmp_path, {"Ops.java": ops, "P.cs": cs}, "Ops.java::Main.run",
                     "Ops.java::Repo.shadow", "P.cs::Acme.App.Program.Main")
    assert got == ["Ops.java::Main.run -> Ops.java::Other.m @17",
                   "Ops.java::Main.run -> Ops.java::Other.render @16",
                   "Ops.java::Repo.shadow -> Ops.java::Keep.save @11",
                   "P.cs::Acme.App.Program.Main -> P.cs::Acme.App.Ext.Loud @13"]

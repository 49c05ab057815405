"""C++ members named as their class are constructors (break-it 40: ``K::K()`` was a
method), in the class body and out of line; destructors and other members stay methods."""

from __future__ import annotations

from hindsight.codeindex.worker import parse_bytes

SRC = b"""namespace app {
struct P {
  P() : x(0) {}
  int x;
  int get() const { return x; }
};
class K {
public:
  K(int a);
  ~K();
  int g(int x);
};
}
app::K::K(int a) { }
app::K::~K() { }
int app::K::g(int x) { return x; }
int K(int y) { return y; }
"""


def test_constructors_are_their_own_kind() -> None:
    got = [(s.kind, s.local, s.start_line) for s in parse_bytes("k.cpp", "cpp", SRC).symbols]
    assert got == [
        ("namespace", "app", 1),
        ("struct", "app.P", 2),
        ("constructor", "app.P.P", 3),
        ("method", "app.P.get", 5),
        ("class", "app.K", 7),
        ("method", "app.K.g", 11),
        ("constructor", "app.K.K", 14),
        ("method", "app.K.~K", 15),
        ("method", "app.K.g", 16),
        ("function", "K", 17),
    ]

; hindsight query for Python. Capture names are the contract read by parse.py:
; @definition.<kind> + @name, @call.name [+ @call.receiver],
; @inherit.name [+ @inherit.receiver], @import, @comment.
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
; Module-level UPPER_CASE names (a leading underscore allowed), also each name of a tuple
; assignment. Those bound under a module-level if/elif/else, try/except/else/finally or
; with (`if __name__ == "__main__": NAME = ...`), in a class body (`Color.RED`) and the
; later names of a chain (`KILO = KIBI = 1024`) are found by codeindex/pyconsts.py.
(module (expression_statement (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module (expression_statement (assignment left: [(pattern_list (identifier) @name)
                                                 (tuple_pattern (identifier) @name)])
  @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
; A name bound to a lambda, at module, class or function level: `square = lambda x: x * x`.
(expression_statement (assignment left: (identifier) @name right: (lambda)) @definition.function)
; `a = b = lambda: None` names one function twice (the outer name spans it, as a chained
; JavaScript assignment does: parse.py `_Def.alias`); `first, second = lambda: 1, lambda: 2`
; names each lambda by its position.
(expression_statement (assignment left: (identifier) @name
  right: (assignment right: (lambda))) @definition.function)
(expression_statement (assignment right: (assignment left: (identifier) @name
  right: (lambda)) @definition.function))
(expression_statement (assignment left: (pattern_list . (identifier) @name)
  right: (expression_list . (lambda) @definition.function)))
(expression_statement (assignment left: (pattern_list . (_) . (identifier) @name)
  right: (expression_list . (_) . (lambda) @definition.function)))
(expression_statement (assignment left: (pattern_list . (_) . (_) . (identifier) @name)
  right: (expression_list . (_) . (_) . (lambda) @definition.function)))
; the same with parentheses: `(left, right) = (lambda a: a, lambda b: b)`
(expression_statement (assignment left: (tuple_pattern . (identifier) @name)
  right: (tuple . (lambda) @definition.function)))
(expression_statement (assignment left: (tuple_pattern . (_) . (identifier) @name)
  right: (tuple . (_) . (lambda) @definition.function)))
(expression_statement (assignment left: (tuple_pattern . (_) . (_) . (identifier) @name)
  right: (tuple . (_) . (_) . (lambda) @definition.function)))
; Type aliases: `type Point[T] = tuple[T, T]` (PEP 695) and `Json: TypeAlias = dict` (PEP 613).
(type_alias_statement left: (type [(identifier) @name (generic_type (identifier) @name)]))
  @definition.type
(expression_statement (assignment left: (identifier) @name
  type: (type [(identifier) @_t (attribute attribute: (identifier) @_t)]))
  @definition.type (#eq? @_t "TypeAlias"))
(expression_statement (assignment left: (identifier) @name
  type: (type (string (string_content) @_t)))  ; `X: "TypeAlias" = …` (a quoted annotation)
  @definition.type (#match? @_t "^(typing\\.|typing_extensions\\.)?TypeAlias$"))
; Accessors (`@prop.setter` / `@prop.deleter` on a function named prop) and overload
; stubs (`@overload`, `@typing.overload`; an alias `from typing import overload as ov`:
; identity.alias_stubs): see hindsight.codeindex.identity.
(decorated_definition
  (decorator (attribute object: (identifier) @_obj attribute: (identifier) @_role))
  definition: (function_definition name: (identifier) @_fn) @mark.setter
  (#eq? @_role "setter") (#eq? @_obj @_fn))
(decorated_definition
  (decorator (attribute object: (identifier) @_obj attribute: (identifier) @_role))
  definition: (function_definition name: (identifier) @_fn) @mark.deleter
  (#eq? @_role "deleter") (#eq? @_obj @_fn))
; `@Base.prop.setter` in a subclass: the setter of the property it inherits
(decorated_definition
  (decorator (attribute object: (attribute attribute: (identifier) @_obj)
                        attribute: (identifier) @_role))
  definition: (function_definition name: (identifier) @_fn) @mark.setter
  (#eq? @_role "setter") (#eq? @_obj @_fn))
(decorated_definition
  (decorator (attribute object: (attribute attribute: (identifier) @_obj)
                        attribute: (identifier) @_role))
  definition: (function_definition name: (identifier) @_fn) @mark.deleter
  (#eq? @_role "deleter") (#eq? @_obj @_fn))
(decorated_definition
  (decorator [(identifier) @_o (attribute attribute: (identifier) @_o)])
  definition: (function_definition) @mark.stub
  (#eq? @_o "overload"))

(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))

(class_definition superclasses: (argument_list (identifier) @inherit.name))
(class_definition superclasses: (argument_list (subscript value: (identifier) @inherit.name)))
(class_definition superclasses: (argument_list
  (attribute object: (_) @inherit.receiver attribute: (identifier) @inherit.name)))
(class_definition superclasses: (argument_list (subscript value:
  (attribute object: (_) @inherit.receiver attribute: (identifier) @inherit.name))))

(import_statement) @import
(import_from_statement) @import
(comment) @comment

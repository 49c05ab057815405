; hindsight query for Go.
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration
  type: [(type_identifier) @receiver (pointer_type (type_identifier) @receiver)
         (generic_type type: (type_identifier) @receiver)
         (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)
(type_declaration (type_spec name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (function_type) (map_type) (slice_type)
         (pointer_type) (channel_type) (array_type) (generic_type)]) @definition.type)
; (the methods of a named interface type; not those of an inline constraint such as
; `type Tree[T interface{ Less(T) bool }] struct`)
(type_spec type: (interface_type (method_elem name: (field_identifier) @name) @definition.method))
; `_` (the blank identifier, as in a skipped iota value) defines nothing.
; One match per name (`const Pi, E = 3.14, 2.71`): a `name:` field in the pattern would
; match only the first.
(source_file (const_declaration (const_spec (identifier) @name) @definition.constant)
  (#not-eq? @name "_"))
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)
; Package-level variables holding a function literal: `var handler = func(...) {...}`, and
; the first name of several when the first value is one (`var fa, fb = func() {}, 2`).
(source_file (var_declaration [(var_spec . name: (identifier) @name
  value: (expression_list . (func_literal))) @definition.function
  (var_spec_list (var_spec . name: (identifier) @name
  value: (expression_list . (func_literal))) @definition.function)])
(#not-eq? @name "_"))
; The second of two names (`var Triple, Quad = func…, func…`): the literal is its span.
(source_file (var_declaration (var_spec . name: (identifier) . name: (identifier) @name
  value: (expression_list . (_) . (func_literal) @definition.function))))
(source_file (var_declaration (var_spec_list (var_spec . name: (identifier)
  . name: (identifier) @name
  value: (expression_list . (_) . (func_literal) @definition.function)))))

(call_expression function: (identifier) @call.name)
(call_expression function: (selector_expression operand: (_) @call.receiver
  field: (field_identifier) @call.name))

; Embedding: struct fields without a name, interface elements naming one type (not a
; constraint such as `~int | string` or a predeclared type).
(struct_type (field_declaration_list (field_declaration . type: [(type_identifier) @inherit.name
  (pointer_type (type_identifier) @inherit.name)
  (qualified_type package: (package_identifier) @inherit.receiver name: (type_identifier) @inherit.name)
  (pointer_type (qualified_type package: (package_identifier) @inherit.receiver
    name: (type_identifier) @inherit.name))
  (generic_type type: (type_identifier) @inherit.name)
  (generic_type type: (qualified_type package: (package_identifier) @inherit.receiver
    name: (type_identifier) @inherit.name))] .)))
(interface_type (type_elem . [(type_identifier) @inherit.name
  (qualified_type package: (package_identifier) @inherit.receiver name: (type_identifier) @inherit.name)
  (generic_type type: (type_identifier) @inherit.name)
  (generic_type type: (qualified_type package: (package_identifier) @inherit.receiver
    name: (type_identifier) @inherit.name))] .)
  (#not-match? @inherit.name
    "^(any|comparable|bool|byte|rune|string|uintptr|u?int(8|16|32|64)?|float(32|64)|complex(64|128))$"))

(package_clause (package_identifier) @package)
(import_spec) @import
(comment) @comment

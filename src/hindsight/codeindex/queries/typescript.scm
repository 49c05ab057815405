; hindsight query for TypeScript and TSX (javascript.scm is appended).
(interface_declaration name: (type_identifier) @name) @definition.interface
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
; An enum's members are its constants (`Direction.Up`; a string name without its quotes).
(enum_body name: [(property_identifier) @name (string . (string_fragment) @name .)]
  @definition.constant)
(enum_assignment name: [(property_identifier) (string . (string_fragment) .)] @name)
  @definition.constant
(internal_module name: (_) @name) @definition.namespace
; `module A.B {}` (the old spelling of `namespace A.B {}`) has a dotted name.
(module name: [(identifier) (nested_identifier)] @name) @definition.namespace
; `declare module "left-pad" {}` (an ambient module): named without its quotes.
(module name: (string (string_fragment) @name)) @definition.namespace
(abstract_method_signature name: (_) @name) @definition.method
(interface_body (method_signature name: (_) @name) @definition.method)
(type_alias_declaration value: (object_type (method_signature name: (_) @name)
  @definition.method))
(function_signature name: (identifier) @name) @definition.function

(class_heritage (extends_clause value: (identifier) @inherit.name))
(class_heritage (extends_clause value: (member_expression object: (_) @inherit.receiver
  property: (property_identifier) @inherit.name)))
(implements_clause (type_identifier) @inherit.name)
(implements_clause (nested_type_identifier module: (_) @inherit.receiver
  name: (type_identifier) @inherit.name))
(implements_clause (generic_type name: (type_identifier) @inherit.name))
(implements_clause (generic_type name: (nested_type_identifier module: (_) @inherit.receiver
  name: (type_identifier) @inherit.name)))
(extends_type_clause type: (type_identifier) @inherit.name)
(extends_type_clause type: (nested_type_identifier module: (_) @inherit.receiver
  name: (type_identifier) @inherit.name))
(extends_type_clause type: (generic_type name: (type_identifier) @inherit.name))
(extends_type_clause type: (generic_type name: (nested_type_identifier module: (_)
  @inherit.receiver name: (type_identifier) @inherit.name)))

; Class fields holding a function (`handle = () => {...}`).
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Overload signatures (`function f(a: string): void;` before `function f(a: any) {}`) are
; stubs: not symbols when the implementation is in the file (identity.py `drop_stubs`).
(function_signature) @mark.stub
(interface_body (method_signature) @mark.stub)
; `set size(v: number);` beside `get size(): number;` in an interface: `HasSize.size:setter`.
(interface_body (method_signature "set") @mark.setter)
(abstract_method_signature) @mark.stub
; A method signature in a class body: an overload (a stub beside its implementation) or a
; method of a `declare class` (the first signature stands for the name).
(class_body (method_signature name: (_) @name) @definition.method)
(class_body (method_signature) @mark.stub)
; An object literal bound to a name through `as const` or `satisfies T` (javascript.scm's
; rule for `const api = {...}`; identity.js_receiver keeps its members).
(variable_declarator name: (identifier) @name
  value: [(as_expression (object [(method_definition)
            (pair key: (property_identifier) value: [(arrow_function) (function_expression)
            (generator_function)])]))
          (satisfies_expression (object [(method_definition)
            (pair key: (property_identifier) value: [(arrow_function) (function_expression)
            (generator_function)])]))]) @definition.object

; hindsight query for C# (symbols, calls, inheritance).
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(local_function_statement name: (identifier) @name) @definition.function
(event_declaration name: (identifier) @name) @definition.property
(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(delegate_declaration name: (identifier) @name) @definition.type
; enum members and `const` fields are constants (as Java's enum constants and static finals);
; operators are `operator+`, a finalizer `~Resource`, an indexer `this` (parse.py names them)
(enum_member_declaration name: (identifier) @name) @definition.constant
(field_declaration (modifier) @_const (variable_declaration (variable_declarator
  name: (identifier) @name)) (#eq? @_const "const")) @definition.constant
(operator_declaration operator: _ @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(indexer_declaration "this" @name) @definition.property

(invocation_expression function: (identifier) @call.name)
(invocation_expression function: (member_access_expression expression: (_) @call.receiver
  name: (identifier) @call.name))
(invocation_expression function: (member_access_expression "base" @call.receiver
  name: (identifier) @call.name))
(invocation_expression function: (member_access_expression expression: (_) @call.receiver
  name: (generic_name (identifier) @call.name)))
(invocation_expression function: (generic_name (identifier) @call.name))
(object_creation_expression type: (identifier) @call.name)
(object_creation_expression type: (generic_name (identifier) @call.name))
(object_creation_expression type: (qualified_name qualifier: (_) @call.receiver
  name: (identifier) @call.name))
(base_list (identifier) @inherit.name)
(base_list (generic_name (identifier) @inherit.name))
(base_list (qualified_name qualifier: (_) @inherit.receiver name: (identifier) @inherit.name))

(file_scoped_namespace_declaration name: (_) @package)
(using_directive) @import
(comment) @comment

; hindsight query for PHP (symbols, calls, inheritance).
(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(namespace_definition name: (namespace_name) @package)
(const_declaration (const_element (name) @name) @definition.constant)

(function_call_expression function: (name) @call.name)
(member_call_expression object: (_) @call.receiver name: (name) @call.name)
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name)
(object_creation_expression (name) @call.name)
(base_clause (name) @inherit.name)
(class_interface_clause (name) @inherit.name)
(namespace_use_declaration) @import
(comment) @comment

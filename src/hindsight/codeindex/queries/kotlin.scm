; hindsight query for Kotlin (symbols, calls, inheritance).
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration "class" name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.object
(function_declaration name: (identifier) @name) @definition.function
(companion_object name: (identifier) @name) @definition.object
; an unnamed companion is `Companion`; a secondary constructor is `Class.Class`; `val`/`var`
; parameters of the primary constructor are properties; enum entries are constants (parse.py
; names the first two)
(companion_object !name "companion" @name) @definition.object
(secondary_constructor "constructor" @name) @definition.constructor
(class_parameter ["val" "var"] . (identifier) @name) @definition.property
(enum_entry . (identifier) @name) @definition.constant
; Properties of a class or file (accessors are part of the declaration: one symbol).
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(type_alias type: (identifier) @name) @definition.type

(call_expression . (identifier) @call.name)
(call_expression . (navigation_expression . (_) @call.receiver . (identifier) @call.name .))
(delegation_specifier (user_type (identifier) @inherit.name))
(delegation_specifier (constructor_invocation (user_type (identifier) @inherit.name)))

(package_header (qualified_identifier) @package)
(import) @import
(line_comment) @comment
(block_comment) @comment

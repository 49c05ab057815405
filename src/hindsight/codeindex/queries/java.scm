; hindsight query for Java.
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(annotation_type_element_declaration name: (identifier) @name) @definition.method
; Enum constants; a constant with a body holds its own methods (`Op.PLUS.apply`).
(enum_constant name: (identifier) @name) @definition.constant
; A field initialised with an anonymous class names its methods (`Sorter.byLength.compare`),
; as a method does for the anonymous classes in its body.
(field_declaration declarator: (variable_declarator name: (identifier) @name
  value: (object_creation_expression (class_body)))) @scope
(class_body (field_declaration (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)
(class_body (field_declaration (modifiers "final" "static")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)
; The same in an enum's body, after its constants.
(enum_body_declarations (field_declaration (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)
(enum_body_declarations (field_declaration (modifiers "final" "static")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)
; An interface's or an annotation type's fields are constants (implicitly static final).
(interface_body (constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)
(annotation_type_body (constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)

(method_invocation !object name: (identifier) @call.name)
(method_invocation object: (_) @call.receiver name: (identifier) @call.name)
(object_creation_expression type: [(type_identifier) @call.name
  (generic_type . (type_identifier) @call.name)])
(object_creation_expression type: [
  (scoped_type_identifier (_) @call.receiver . (type_identifier) @call.name .)
  (generic_type . (scoped_type_identifier (_) @call.receiver . (type_identifier) @call.name .))
  ])

; Base types: plain, qualified (`a.B`: receiver `a`) and generic (`B<T>`).
(superclass [(type_identifier) @inherit.name
  (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit.name .)
  (generic_type . (type_identifier) @inherit.name)
  (generic_type . (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit.name .))])
(super_interfaces (type_list [(type_identifier) @inherit.name
  (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit.name .)
  (generic_type . (type_identifier) @inherit.name)
  (generic_type . (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit.name .))]))
(extends_interfaces (type_list [(type_identifier) @inherit.name
  (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit.name .)
  (generic_type . (type_identifier) @inherit.name)
  (generic_type . (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit.name .))]))

(package_declaration (scoped_identifier) @package)
(package_declaration (identifier) @package)
(import_declaration) @import
(line_comment) @comment
(block_comment) @comment

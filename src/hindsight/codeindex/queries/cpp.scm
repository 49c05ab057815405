; hindsight query for C++ (symbols, calls, inheritance).
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  scope: (_) @receiver name: (identifier) @name))) @definition.function
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)) @definition.function
; out of line: `Parser::~Parser() {}`, `Outer::Inner::value() {}` (the receiver is the path)
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  scope: (_) @receiver name: (destructor_name) @name))) @definition.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  scope: (_) @receiver name: (qualified_identifier scope: (_) @receiver
                                                   name: [(identifier) (destructor_name)] @name)))) @definition.function
; enumerators are constants of their enum (as Java's enum constants)
(enumerator name: (identifier) @name) @definition.constant
(function_definition declarator: (function_declarator declarator: (operator_name) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: [(identifier) (field_identifier) (operator_name)] @name))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator
  declarator: [(identifier) (field_identifier) (operator_name)] @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @receiver
                                    name: [(identifier) (operator_name)] @name)))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator
  declarator: (qualified_identifier scope: (_) @receiver
                                    name: [(identifier) (operator_name)] @name)))) @definition.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(field_declaration declarator: [(pointer_declarator declarator: (function_declarator
  declarator: (field_identifier) @name)) (reference_declarator (function_declarator
  declarator: (field_identifier) @name))]) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(namespace_definition name: (_) @name) @definition.namespace
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.receiver
  field: (field_identifier) @call.name))
(call_expression function: (qualified_identifier scope: (_) @call.receiver
  name: (identifier) @call.name))
(base_class_clause (type_identifier) @inherit.name)
(preproc_include) @import
(comment) @comment

; hindsight query for JavaScript (also appended to the TypeScript/TSX queries).
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(class_body (method_definition name: (_) @name) @definition.method)
; An object literal bound to a variable and holding functions is a symbol (kind object);
; its function members are its methods (`api.get()` resolves like `Class.m()`). Other
; object literals are not symbols, so their methods are not indexed.
(variable_declarator name: (identifier) @name value: (object [(method_definition)
  (pair key: (property_identifier) value: [(arrow_function) (function_expression)])])
  ) @definition.object
(variable_declarator value: (object (method_definition name: (property_identifier) @name)
  @definition.method))
(variable_declarator value: (object (pair key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method))
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(program (lexical_declaration (variable_declarator name: (identifier) @name
  value: [(string) (number) (template_string) (object) (array)]) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name
  value: [(string) (number) (template_string) (object) (array)]) @definition.constant))
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call_expression function: (identifier) @call.name) @reference.call
(call_expression function: (member_expression
  object: (_) @call.receiver
  property: [(property_identifier) (private_property_identifier)] @call.name)) @reference.call
(new_expression constructor: (identifier) @call.name) @reference.call
(new_expression constructor: (member_expression
  object: (_) @call.receiver property: (property_identifier) @call.name)) @reference.call

(import_statement) @import
(export_statement "default") @import  ; export default X: recorded as an alias "default"
(export_statement source: (string)) @import  ; re-export: export { a } from './x'
(variable_declarator value: (call_expression function: (identifier) @_req
  arguments: (arguments (string))) (#eq? @_req "require")) @import
(comment) @comment

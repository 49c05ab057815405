; hindsight query for JavaScript (also appended to the TypeScript/TSX queries).
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(class_body (method_definition name: (_) @name) @definition.method)
;
; An object literal bound to a name and holding functions is a symbol (kind object): a
; variable (`const api = {...}`), a property (`config.server = {...}`, `server: {...}`
; inside another literal); its function members are its methods (`api.get()` resolves
; like `Class.m()`). `Foo.prototype = {...}` names members of Foo; the members of
; `module.exports = {...}` and `export default {...}` are the module's. Literals passed as
; arguments are not followed.
(variable_declarator name: (identifier) @name value: (object [(method_definition)
  (pair key: [(property_identifier) (computed_property_name)]
   value: [(arrow_function) (function_expression) (generator_function)])])) @definition.object
(pair key: (property_identifier) @name value: (object [(method_definition)
  (pair key: [(property_identifier) (computed_property_name)]
   value: [(arrow_function) (function_expression) (generator_function)])])) @definition.object
(assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name)
  right: (object [(method_definition)
    (pair key: [(property_identifier) (computed_property_name)]
     value: [(arrow_function) (function_expression) (generator_function)])])
  (#not-eq? @name "prototype") (#not-eq? @receiver "module")) @definition.object
(assignment_expression
  left: (member_expression object: (identifier) @name property: (property_identifier) @_p)
  right: (object) (#eq? @_p "prototype")) @scope
(program (expression_statement (assignment_expression left: (identifier) @name
  right: (object [(method_definition) (pair key: [(property_identifier) (computed_property_name)]
   value: [(arrow_function) (function_expression) (generator_function)])])) @definition.object))
(variable_declarator name: (identifier) @name value: (object (pair value: (object)))) @scope
(pair key: (property_identifier) @name value: (object (pair value: (object)))) @scope
; (a scope above is an object symbol too when a definition nests in it: parse.py)
; (members of literals that are arguments or elements are dropped by identity.js_receiver)
; (a quoted name only when it is one fragment: `"a\"b"` has two and an escape between)
(object [(method_definition name: [(property_identifier) (computed_property_name)
                                   (string . (string_fragment) @name .)] @name)
  (pair key: [(property_identifier) @name (string . (string_fragment) @name .)
              (computed_property_name) @name]
   value: [(arrow_function) (function_expression) (generator_function)])] @definition.function)
; Functions and classes assigned to a name or a property: `res.send = function send() {}`,
; `Foo.prototype.m = function () {}`, `this.m = () => {}`, `exports.x = ...`,
; `ns.Widget = class {}` (receivers: identity.py `js_receiver`, parse.py `_nest`).
(assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(assignment_expression left: (identifier) @name
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function
; A chained assignment names one function twice (`req.get = req.header = function header
; () {}`, `exports.a = exports.b = function () {}`): the outer name is a symbol too.
(assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name)
  right: (assignment_expression
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name)
  right: (class)) @definition.class
(assignment_expression left: (identifier) @name right: (class)) @definition.class
; Named function expressions passed as arguments or returned:
; `app.get('/', function handler() {})`, `return function generateETag() {}`.
; (identity.js_receiver keeps those; a named function bound to a name is that name's)
[(function_expression name: (identifier) @name)
 (generator_function name: (identifier) @name)] @definition.function
; Named class expressions passed or returned likewise (`return class Model {}` in a factory).
(class name: (_) @name) @definition.class
; An anonymous default export is named `default` (`export default class { m() {} }`:
; `default` and `default.m`), as TypeScript names its symbol.
(export_statement "default" @name value: (class !name) @definition.class)
(export_statement "default" @name value: [(function_expression !name)
  (generator_function !name) (arrow_function)] @definition.function)
; Accessors: the getter keeps `Class.prop`, a setter is `Class.prop:setter`.
(method_definition "set") @mark.setter
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(program (lexical_declaration "const" (variable_declarator name: (identifier) @name
  value: [(string) (number) (template_string) (object) (array) (true) (false)])
  @definition.constant) (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program (export_statement (lexical_declaration "const" (variable_declarator
  name: (identifier) @name
  value: [(string) (number) (template_string) (object) (array) (true) (false)])
  @definition.constant)) (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call_expression function: (identifier) @call.name)
(call_expression function: (member_expression
  object: (_) @call.receiver
  property: [(property_identifier) (private_property_identifier)] @call.name))
(new_expression constructor: (identifier) @call.name)
(new_expression constructor: (member_expression
  object: (_) @call.receiver property: (property_identifier) @call.name))

(import_statement) @import
(export_statement "default") @import  ; export default X: recorded as an alias "default"
(export_statement source: (string)) @import  ; re-export: export { a } from './x'
(variable_declarator value: (call_expression function: (identifier) @_req
  arguments: (arguments (string))) (#eq? @_req "require")) @import
; `var compileETag = require('./utils').compileETag`: one name of the module
(variable_declarator value: (member_expression object: (call_expression function: (identifier) @_req
  arguments: (arguments (string))) property: (property_identifier)) (#eq? @_req "require")) @import
; CommonJS: `module.exports = X` (also in `exports = module.exports = X`) and
; `module.exports = require('./x')`: recorded as `export default` is
(assignment_expression left: (member_expression object: (identifier) @_mod
  property: (property_identifier) @_exp) right: [(identifier) (call_expression)]
  (#eq? @_mod "module") (#eq? @_exp "exports")) @import
(comment) @comment

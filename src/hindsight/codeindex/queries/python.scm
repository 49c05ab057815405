; hindsight query for Python. Capture names are the contract read by parse.py:
; @definition.<kind> + @name, @reference.call + @call.name [+ @call.receiver],
; @inherit.name [+ @inherit.receiver], @import, @comment.
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call function: (identifier) @call.name) @reference.call
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name)) @reference.call

(class_definition superclasses: (argument_list (identifier) @inherit.name))
(class_definition superclasses: (argument_list
  (attribute object: (_) @inherit.receiver attribute: (identifier) @inherit.name)))

(import_statement) @import
(import_from_statement) @import
(comment) @comment

; hindsight query for Ruby (symbols, calls, inheritance).
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(program (assignment left: (constant) @name) @definition.constant)

(call receiver: (_) @call.receiver method: (identifier) @call.name)
(call !receiver method: (identifier) @call.name)
(superclass (constant) @inherit.name)
(comment) @comment

; JavaScript-only heritage patterns (TypeScript wraps them in extends_clause).
(class_heritage (identifier) @inherit.name)
(class_heritage (member_expression object: (_) @inherit.receiver
  property: (property_identifier) @inherit.name))


; JavaScript-only class fields holding a function (`handle = () => {...}`); TypeScript
; calls the node public_field_definition (see typescript.scm).
(field_definition property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

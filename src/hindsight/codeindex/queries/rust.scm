; hindsight query for Rust.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
; An enum's variants are its constants (`Message.Quit`), as Java's enum constants are.
(enum_variant name: (identifier) @name) @definition.constant
(union_item name: (type_identifier) @name) @definition.struct
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (_)) @definition.module
; `mod x;` declares module x (its body is x.rs or x/mod.rs): a symbol, and an import below.
(mod_item !body name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name (#not-eq? @name "_")) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(impl_item type: [(type_identifier) @name (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name) (primitive_type) @name]) @scope
; `impl Trait for &'a T` and `impl dyn Trait`: the methods are T's and Trait's.
(impl_item type: (reference_type type: [(type_identifier) @name (primitive_type) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)])) @scope
(impl_item type: (dynamic_type trait: [(type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)])) @scope

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression value: (_) @call.receiver
  field: (field_identifier) @call.name))
(call_expression function: (scoped_identifier path: (_) @call.receiver
  name: (identifier) @call.name))
(call_expression function: (generic_function function: (identifier) @call.name))
(call_expression function: (generic_function function: (scoped_identifier path: (_) @call.receiver
  name: (identifier) @call.name)))
(macro_invocation macro: (identifier) @call.name)
; Calls in macro arguments (`println!("{}", f(x), self.m())`): the token tree is flat, so
; only a call opening an argument is taken: `f(..)`, `x.m(..)`, `T::f(..)` (not `a.b.m(..)`
; or `a::b::f(..)`, whose receiver the tokens do not delimit).
(macro_invocation (token_tree . (identifier) @call.name . (token_tree . "(")))
(macro_invocation (token_tree "," . (identifier) @call.name . (token_tree . "(")))
(macro_invocation (token_tree . [(self) (identifier)] @call.receiver . "." .
  (identifier) @call.name . (token_tree . "(")))
(macro_invocation (token_tree "," . [(self) (identifier)] @call.receiver . "." .
  (identifier) @call.name . (token_tree . "(")))
;   a turbofish with one type token: `parse_as::<u16>(..)`
(macro_invocation (token_tree . (identifier) @call.name . "::" . "<" . (_) . ">" . (token_tree . "(")))
(macro_invocation (token_tree "," . (identifier) @call.name . "::" . "<" . (_) . ">" . (token_tree . "(")))
(macro_invocation (token_tree . [(self) (super) (crate) (identifier)] @call.receiver . "::" .
  (identifier) @call.name . (token_tree . "(")))
(macro_invocation (token_tree "," . [(self) (super) (crate) (identifier)] @call.receiver . "::" .
  (identifier) @call.name . (token_tree . "(")))

(impl_item trait: [(type_identifier) @inherit.name
  (scoped_type_identifier path: (_) @inherit.receiver name: (type_identifier) @inherit.name)
  (generic_type type: (type_identifier) @inherit.name)])
(trait_item bounds: (trait_bounds (type_identifier) @inherit.name))

(use_declaration) @import
(mod_item !body) @import
(line_comment) @comment
(block_comment) @comment

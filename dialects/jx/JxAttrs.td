//===- JxAttrs.td - jx attributes: the remat policy ------*- tablegen -*-===//

#ifndef COTANGENT_DIALECTS_JX_JXATTRS_TD
#define COTANGENT_DIALECTS_JX_JXATTRS_TD

include "dialects/jx/JxDialect.td"
include "mlir/IR/EnumAttr.td"

def Jx_PolicyKind : I32EnumAttr<"PolicyKind", "a rematerialization policy, by JAX's name", [
    I32EnumAttrCase<"everything_saveable", 0>,
    I32EnumAttrCase<"nothing_saveable", 1>,
    I32EnumAttrCase<"dots_saveable", 2>,
    I32EnumAttrCase<"dots_with_no_batch_dims_saveable", 3>,
    I32EnumAttrCase<"save_only_these_names", 4>,
    I32EnumAttrCase<"save_any_names_but_these", 5>,
    I32EnumAttrCase<"save_anything_except_these_names", 6>,
    I32EnumAttrCase<"save_and_offload_only_these_names", 7>,
    I32EnumAttrCase<"offload_dot_with_no_batch_dims", 8>,
    I32EnumAttrCase<"save_from_both_policies", 9>
  ]> {
  let cppNamespace = "::mlir::jx";
  let genSpecializedAttr = 0;
}

def Jx_PolicyAttr : Jx_Attr<"Policy", "policy"> {
  let summary = "A rematerialization policy, named and parameterized as in JAX.";
  let description = [{
    Says, for a value computed inside a `jx.remat` region, whether the forward
    pass may save it for the backward pass, must leave it to be recomputed,
    or may save it in another memory space (offload). A policy only says what
    MAY be saved: the remat pass saves a value only if the backward needs it.

    | policy | saveable | offloadable |
    |---|---|---|
    | `everything_saveable` | every value | - |
    | `nothing_saveable` | nothing (the region's inputs only) | - |
    | `dots_saveable` (alias `checkpoint_dots`) | `jx.dot_general` outputs | - |
    | `dots_with_no_batch_dims_saveable` (alias `checkpoint_dots_with_no_batch_dims`) | dots without batch dims | - |
    | `save_only_these_names("a", ...)` | `jx.checkpoint_name` values with these names | - |
    | `save_any_names_but_these("a", ...)` | named values, except these names | - |
    | `save_anything_except_these_names("a", ...)` (alias `save_anything_but_these_names`) | every value except named ones with these names | - |
    | `save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host")` | names of the 1st list | names of the 2nd list |
    | `offload_dot_with_no_batch_dims("device", "pinned_host")` | - | dots without batch dims |
    | `save_from_both_policies(p, q)` | what p or q saves | what p or q offloads, unless saved |

    The two name lists of `save_and_offload_only_these_names` must be
    disjoint. `save_from_both_policies` composes any two policies, offload
    policies included. Aliases are accepted when parsing and printed by their
    primary name.

    ```mlir
    #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a"))>
    ```
  }];
  let parameters = (ins
    EnumParameter<Jx_PolicyKind>:$kind,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$names,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$offloadNames,
    OptionalParameter<"::mlir::StringAttr">:$offloadSrc,
    OptionalParameter<"::mlir::StringAttr">:$offloadDst,
    OptionalArrayRefParameter<"::mlir::jx::PolicyAttr">:$operands
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// What a policy says of one value computed inside a remat region.
    enum class Decision { Recompute, Save, Offload };

    /// The decision for the (single) result of `op`. Named-value policies
    /// look at `jx.checkpoint_name` ops; dot policies at `jx.dot_general`.
    Decision decide(::mlir::Operation *op) const;

    /// A policy without parameters (everything_saveable, dots_saveable, ...).
    static PolicyAttr get(::mlir::MLIRContext *ctx, PolicyKind kind);
    /// A policy over one list of names (save_only_these_names, ...).
    static PolicyAttr getNamed(::mlir::MLIRContext *ctx, PolicyKind kind,
                               ::llvm::ArrayRef<::llvm::StringRef> names);
    static PolicyAttr getSaveAndOffload(::mlir::MLIRContext *ctx,
                                        ::llvm::ArrayRef<::llvm::StringRef> saved,
                                        ::llvm::ArrayRef<::llvm::StringRef> offloaded,
                                        ::llvm::StringRef src, ::llvm::StringRef dst);
    static PolicyAttr getOffloadDots(::mlir::MLIRContext *ctx,
                                     ::llvm::StringRef src, ::llvm::StringRef dst);
    static PolicyAttr getBoth(PolicyAttr p, PolicyAttr q);

    /// Parses a policy by JAX's name ("save_only_these_names(\"a\")").
    static PolicyAttr parsePolicy(::mlir::MLIRContext *ctx, ::llvm::StringRef text,
                                  std::string &error);
  }];
}

#endif // COTANGENT_DIALECTS_JX_JXATTRS_TD

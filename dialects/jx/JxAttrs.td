//===- JxAttrs.td - jx attributes ------------------------*- tablegen -*-===//
//
// The remat policy, and the attributes of the forward/backward contract that
// --jx-vjp writes and --jx-remat, the reports and the runtimes read. The
// contract attributes are verified by JxDialect (JxContract.cpp) and read and
// written through dialects/jx/JxSplit.h.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXATTRS_TD
#define COTANGENT_DIALECTS_JX_JXATTRS_TD

include "dialects/jx/JxDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Jx_PolicyAttr : Jx_Attr<"Policy", "policy"> {
  let summary = "A rematerialization policy, named and parameterized as in JAX.";
  let description = [{
    Says, for a value computed inside a `jx.remat` region, whether the forward
    pass may save it for the backward pass, must leave it to be recomputed,
    or may save it in another memory space (offload). A policy only says what
    MAY be saved: the remat pass saves a value only if the backward needs it.

    The policies, their aliases and arguments are listed in
    `docs/generated/policies-table.md`, generated from `Policies.def`.

    The two name lists of `save_and_offload_only_these_names` must be
    disjoint. `save_from_both_policies` composes any two policies, offload
    policies included, except `memory_budget`. `memory_budget` takes bytes
    (an integer) or a fraction of the peak without remat (a float in (0, 1]). Aliases are accepted when parsing and printed by their
    primary name.

    ```mlir
    #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a"))>
    ```
  }];
  let parameters = (ins
    "::mlir::jx::PolicyKind":$kind,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$names,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$offloadNames,
    OptionalParameter<"::mlir::StringAttr">:$offloadSrc,
    OptionalParameter<"::mlir::StringAttr">:$offloadDst,
    OptionalArrayRefParameter<"::mlir::jx::PolicyAttr">:$operands,
    OptionalParameter<"::mlir::Attribute">:$budget
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// What a policy says of one value computed inside a remat region.
    enum class Decision { Recompute, Save, Offload };

    /// The decision for the (single) result of `op`. Named-value policies
    /// look at `jx.checkpoint_name` ops; dot policies at `jx.dot_general`;
    /// the min_residual_bytes and memory_budget policies at `chosen`, whether
    /// the region's solver chose to save the value (its minimum cut,
    /// passes/remat/MinimumCut.h, or its budget, passes/remat/MemoryBudget.h).
    Decision decide(::mlir::Operation *op, bool chosen = false) const;

    /// How this policy (or one it composes) wants its region's minimum cut:
    /// not at all, recomputing elementwise ops and views, or dots too.
    enum class MinimumCut { None, Elementwise, WithDots };
    MinimumCut getMinimumCut() const;

    /// A memory_budget policy's budget: bytes, or a fraction of the peak
    /// without remat (the other one is empty). Both empty for other policies.
    std::optional<int64_t> getBudgetBytes() const;
    std::optional<double> getBudgetFraction() const;

    /// Builders by signature (see Policies.def); they assert the parameters
    /// are valid for `kind`, getChecked reports why not.
    /// A Plain policy (everything_saveable, dots_saveable, ...).
    static PolicyAttr get(::mlir::MLIRContext *ctx, PolicyKind kind);
    /// A Names policy (save_only_these_names, ...).
    static PolicyAttr getNamed(::mlir::MLIRContext *ctx, PolicyKind kind,
                               ::llvm::ArrayRef<::llvm::StringRef> names);
    /// A SaveOffload policy (save_and_offload_only_these_names).
    static PolicyAttr getSaveAndOffload(::mlir::MLIRContext *ctx, PolicyKind kind,
                                        ::llvm::ArrayRef<::llvm::StringRef> saved,
                                        ::llvm::ArrayRef<::llvm::StringRef> offloaded,
                                        ::llvm::StringRef src, ::llvm::StringRef dst);
    /// A MemoryKinds policy (offload_dot_with_no_batch_dims).
    static PolicyAttr getOffloading(::mlir::MLIRContext *ctx, PolicyKind kind,
                                    ::llvm::StringRef src, ::llvm::StringRef dst);
    /// A Policies policy (save_from_both_policies).
    static PolicyAttr getComposed(PolicyKind kind, PolicyAttr p, PolicyAttr q);
    /// A Budget policy (memory_budget): an IntegerAttr of bytes or a
    /// FloatAttr fraction in (0, 1].
    static PolicyAttr getBudgeted(::mlir::MLIRContext *ctx, PolicyKind kind,
                                  ::mlir::Attribute budget);

    /// Parses a policy by JAX's name ("save_only_these_names(\"a\")").
    static PolicyAttr parsePolicy(::mlir::MLIRContext *ctx, ::llvm::StringRef text,
                                  std::string &error);
  }];
}

//===----------------------------------------------------------------------===//
// The forward/backward contract
//===----------------------------------------------------------------------===//

def Jx_ForwardAttr : Jx_Attr<"Forward", "forward"> {
  let summary = "Marks the forward half of a split and names its backward.";
  let description = [{
    `jx.forward` on `@f_fwd`, written by `--jx-vjp`: the function returns
    `primal_results` results of the function it was split from (`primal`,
    when that function is still around), then the residuals that `backward`
    takes. The dialect verifies the pair: the backward exists and names this
    function as its forward, the forward returns `primal_results` plus the
    backward's `residuals` results, the residual types agree, the backward
    takes one cotangent per primal result (of its type) and returns one per
    forward argument (of its type).

    ```mlir
    func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
        attributes {jx.forward = #jx.forward<primal = @f, backward = @f_bwd, primal_results = 1>}
    ```
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::FlatSymbolRefAttr">:$primal,
    "::mlir::FlatSymbolRefAttr":$backward,
    "int64_t":$primal_results
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Jx_BackwardAttr : Jx_Attr<"Backward", "backward"> {
  let summary = "Marks the backward half of a split and names its forward.";
  let description = [{
    `jx.backward` on `@f_bwd`: its first `residuals` arguments are what
    `forward` saved for it, the rest are the cotangents of the primal results;
    it returns the cotangents of the forward's arguments.

    ```mlir
    func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32>
        attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>}
    ```
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$forward,
    "int64_t":$residuals
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Jx_ResidualAttr : Jx_Attr<"Residual", "residual"> {
  let summary = "What the split knows of one residual.";
  let description = [{
    On a residual argument of `@f_bwd` or a residual result of `@f_fwd`, and
    only there. Both fields are optional:

    - `requested_by`: the remat-region stacks (region ids, innermost first)
      of the ops whose differentiation rules asked for the residual, written
      by `--jx-vjp` for `--jx-remat` to decide by; `[]` is an op outside
      every region.
    - `memory_kind`: where an offloaded residual lives (the offloading
      policy's destination, e.g. `"pinned_host"`), written by `--jx-remat`
      on both sides of the split for the runtimes to place.

    ```mlir
    func.func @f_bwd(%r: tensor<4xf32> {jx.residual = #jx.residual<requested_by = [[0], []]>}, ...)
    ```
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::ArrayAttr">:$requested_by,
    OptionalParameter<"::mlir::StringAttr">:$memory_kind
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Jx_RematScopeAttr : Jx_Attr<"RematScope", "remat_scope"> {
  let summary = "The jx.remat regions an op was flattened out of.";
  let description = [{
    `--jx-vjp` moves the body of each `jx.remat` into the forward function and
    tags every moved op with the regions it came from, innermost first: their
    ids, their policies (in the same order) and the innermost region's
    `prevent_cse`. `--jx-remat` decides residuals by these and removes them.

    ```mlir
    %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [1, 0],
           policies = [#jx.policy<dots_saveable>, #jx.policy<nothing_saveable>],
           prevent_cse = true>} : tensor<4xf32>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$regions,
    ArrayRefParameter<"::mlir::jx::PolicyAttr">:$policies,
    "bool":$prevent_cse
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // COTANGENT_DIALECTS_JX_JXATTRS_TD

//===- LoweringPasses.td - jx to linalg and on to LLVM ---*- tablegen -*-===//

#ifndef COTANGENT_PASSES_LOWERING_LOWERINGPASSES_TD
#define COTANGENT_PASSES_LOWERING_LOWERINGPASSES_TD

include "mlir/Pass/PassBase.td"

def JxToLinalgPass : Pass<"jx-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower every jx op to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    A partial dialect conversion in which the jx dialect is illegal, except
    its collectives:

    - elementwise ops become one `linalg.generic` each (f16/bf16 compute in
      f32 and round each result, as the reference interpreter does); integer
      division and remainder follow XLA (x / 0 = -1, x % 0 = x);
    - `jx.dot_general` becomes transposes and reshapes into a
      `linalg.batch_matmul` (after bufferization `--jx-matmul-to-blas` turns
      f32/f64 ones into calls into the runtime's BLAS), reductions become
      `linalg.reduce`, argmax a two-result reduction `linalg.generic`,
      cumsum an `scf.for` over slices;
    - shape ops become `tensor` ops and `linalg.transpose` / `linalg.generic`;
    - `jx.scan` becomes `scf.for` with the carry and the stacked ys as tensor
      `iter_args`, `jx.cond` `scf.if` (boolean index) or `scf.index_switch`,
      `jx.while` `scf.while`;
    - `jx.remat` is inlined and `jx.checkpoint_name` / `jx.stop_gradient` are
      the identity;
    - `jx.optimization_barrier` becomes a call to an external function
      `@__jx_optimization_barrier_N` whose arguments are read-only, which no
      tensor-level pass can see through; `--jx-lower-optimization-barriers`
      replaces it after bufferization;
    - collectives (`jx.psum`, `jx.all_gather`, ...) stay as they are: one-shot
      bufferization gives each a result buffer and a call of the runtime's
      `@cotangent_collective_start` and `_wait` (MPI or NCCL under `mpirun`,
      else one process); with `collectives=false` they are refused.

    Public functions get `llvm.emit_c_interface`, and their arguments
    `bufferization.writable = false` (the caller owns them). The jx
    attributes of functions are dropped, except `jx.donated_to`, which the
    lowering still reads (`--jx-donate-arguments`).

    ```mlir
    // %1 = jx.sin %0 : tensor<5xf32>  becomes
    %e = tensor.empty() : tensor<5xf32>
    %1 = linalg.generic {...} ins(%0 : tensor<5xf32>) outs(%e : tensor<5xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = math.sin %a : f32
      linalg.yield %s : f32
    } -> tensor<5xf32>
    ```
  }];
  let options = [
    Option<"lowFloatMatmulOperands", "low-float-matmul-operands", "bool", /*default=*/"false",
           "A dot_general of bf16 (or f16) operands into a bf16 (f16) result multiplies "
           "the operands as they are into an f32 product (rounded once at the end), "
           "instead of converting them to f32 first: a GEMM that reads low floats and "
           "accumulates in f32 (cuBLAS's; the CPU's BLAS has none)">,
    Option<"collectives", "collectives", "bool", /*default=*/"true",
           "Keep jx collectives (psum, all_gather, ...) for one-shot bufferization to turn "
           "into calls of the runtime's @cotangent_collective_start and _wait (MPI on the "
           "CPU, NCCL on the GPU); false refuses them with a located error (for a "
           "runtime that has no collectives)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def JxApproximateMathPass : Pass<"jx-approximate-math", "mlir::ModuleOp"> {
  let summary = "Replace f32 transcendental math ops by MLIR's polynomial approximations";
  let description = [{
    Runs on loops, before `convert-math-to-libm`. Each f32 `math.tanh`,
    `exp`, `expm1`, `log`, `log1p`, `erf`, `erfc` and `atan2` (what jx's tanh,
    exp, expm1, log, log1p, logistic, erf, erfc and atan2 lower to) becomes MLIR's polynomial
    approximation (within 4 ulp of the correctly rounded value): arithmetic
    only, so LLVM's loop vectorizer turns an elementwise loop into SIMD code,
    where a libm call per element keeps it scalar. f64 ops and the rest
    (sin and cos, whose approximations lose all accuracy a few periods out)
    stay libm calls. The approximations' `math.fma`s become `llvm.intr.fma` (the
    libm lowering would call `fmaf`). The accuracy against libm over each function's range is
    measured by `test/unit/cpu/MathAccuracyTest.cpp` and stated in
    `docs/lowering.md`.

    ```mlir
    %y = math.tanh %x : f32   // becomes a clamp, two polynomials and a divide
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect", "mlir::LLVM::LLVMDialect"];
}

def JxLowerOptimizationBarriersPass
    : Pass<"jx-lower-optimization-barriers", "mlir::ModuleOp"> {
  let summary = "Turn the optimization barriers' calls into side-effecting inline asm on their buffers";
  let description = [{
    Runs right after one-shot bufferization (before deallocation). Each call
    to an `@__jx_optimization_barrier_N` declaration is replaced by, for each
    operand, an empty `llvm.inline_asm` with side effects and a memory
    clobber that takes the buffer's aligned pointer; the call's results become
    its operands. LLVM must then assume that the asm may have read and
    rewritten the buffer, so no load after the barrier can be merged with one
    before it and a recomputation that starts from the barrier's results
    stays a recomputation, even after inlining, CSE, GVN and -O3.

    ```mlir
    %p = memref.extract_aligned_pointer_as_index %m : memref<5xf32> -> index
    ...
    llvm.inline_asm has_side_effects "", "r,~{memory}" %ptr : (!llvm.ptr) -> ()
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def JxExpandCompositesPass : Pass<"jx-expand-composites", "mlir::ModuleOp"> {
  let summary = "Write composite ops (fused attention, the fused cross-entropy) as jx ops";
  let description = [{
    Replaces every op of `CompositeOpInterface` by its expansion into other
    jx ops. `jx.dot_product_attention` and its backward: the scaled scores
    [B, N, T, S] materialized (masked with -inf under `causal`), a softmax
    over the keys, the products with the values; the backward recomputes
    the probabilities from the logsumexp. `jx.softmax_cross_entropy` and its
    backward: a max and a sum of exponentials over the classes, the label's
    logit picked by an iota comparison, and (softmax - one-hot) * dloss as
    one elementwise expression, which the lowering fuses into one loop. bf16
    and f16 are computed in f32 and rounded at the end. With `keep-kernels`
    f32 attention stays: on the CPU bufferization makes it calls of the
    runtime's FlashAttention-2 kernels, which never hold the scores.
  }];
  let options = [
    Option<"keepKernels", "keep-kernels", "bool", /*default=*/"false",
           "Keep the composites the CPU runtime runs as kernels (f32 attention)">
  ];
  let dependentDialects = ["mlir::jx::JxDialect"];
}

def JxMatmulToBlasPass : Pass<"jx-matmul-to-blas", "mlir::ModuleOp"> {
  let summary = "Replace f32/f64 batched matmuls on buffers by calls into the runtime's BLAS";
  let description = [{
    Runs after bufferization. Every `linalg.batch_matmul` on f32 or f64
    memrefs becomes a call to `@cotangent_batch_matmul_f32` /
    `@cotangent_batch_matmul_f64` (declared with `llvm.emit_c_interface`, so
    the runtime receives strided memref descriptors) that computes
    `C[b] = A[b] * B[b]` with `cblas_sgemm` / `cblas_dgemm`. With
    `low-float`, one of bf16 (f16) operands into an f32 product becomes
    `@cotangent_batch_matmul_bf16` (`_f16`), which cuBLAS computes reading
    the low floats and accumulating in f32. Other element types stay linalg
    and become loops.

    ```mlir
    call @cotangent_batch_matmul_f32(%a, %b, %c)
      : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, ...) -> ()
    ```
  }];
  let options = [
    Option<"lowFloat", "low-float", "bool", /*default=*/"false",
           "Also bf16 and f16 operands into an f32 product (the GPU runtime's cuBLAS "
           "GemmEx)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::memref::MemRefDialect"];
}

def JxScheduleCollectivesPass : Pass<"jx-schedule-collectives", "mlir::func::FuncOp"> {
  let summary = "Start each reduction as soon as its operand is computed";
  let description = [{
    Before bufferization: moves each `jx.psum`, `jx.pmean` and
    `jx.psum_scatter` up to just after the op that computes its operand (to
    its block's start for a block argument), so that a data-parallel step
    hands each gradient to the communication thread as the backward makes it
    instead of after the whole backward. Collectives are pure and every rank
    runs the same program, so each rank moves the same ops the same way:
    the order the ranks start them in stays the same. Gathers are left
    where they are (starting them earlier would keep their results longer:
    a remat decision).

    ```mlir
    %g1 = linalg.generic ...          // the last layer's gradient
    %r1 = jx.pmean %g1, axis = "data"  // moved here from after %g0
    %g0 = linalg.generic ...
    ```
  }];
}

def JxDeferCollectiveWaitsPass : Pass<"jx-defer-collective-waits", "mlir::func::FuncOp"> {
  let summary = "Wait for each collective only where its buffers are next used";
  let description = [{
    Bufferization follows each `@cotangent_collective_start` call with its
    `@cotangent_collective_wait`. This pass moves each wait down its block
    to just before the first op that uses either buffer of the collective
    (its operand's and result's, through every view of the allocation they
    are views of, a use in a nested region counting as a use by its
    ancestor, a deallocation counting too), or before the block's
    terminator: the communication thread then runs the collective while the
    code between computes.

    ```mlir
    %t = func.call @cotangent_collective_start(...)   // the gradient's pmean
    ... the rest of the backward ...
    func.call @cotangent_collective_wait(%t)          // moved here
    linalg.generic ins(%grad ...)                     // the optimizer reads it
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def JxHoistDeallocationsPass : Pass<"jx-hoist-deallocations", "mlir::func::FuncOp"> {
  let summary = "Free each buffer right after its last use in its block";
  let description = [{
    Ownership-based deallocation (`buffer-deallocation-pipeline`) frees a
    block's buffers at the end of the block, so every intermediate of a
    function would live until it returns and the peak would be the total.
    This pass moves each unconditional `memref.dealloc` of a `memref.alloc`
    of the same block up to just after the last op of the block that uses
    the buffer or any view derived from it (views are followed through every
    op that takes the buffer and returns a memref; uses inside nested
    regions count as uses by their ancestor in the block).

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.generic ... ins(%a ...) outs(%b ...)
    memref.dealloc %a : memref<4xf32>   // moved here from the block's end
    ```
  }];
}

def JxAliasArgumentResultsPass : Pass<"jx-alias-argument-results", "mlir::func::FuncOp"> {
  let summary = "Return an argument that is also a result as itself, not as a copy";
  let description = [{
    The deallocation pipeline gives the caller of a function ownership of
    every result, so a result that is one of the function's arguments (a
    forward that hands its weights to the backward as residuals) is returned
    as a `bufferization.clone`: a fresh block and a copy of the argument. The
    runtimes free only the blocks compiled code allocated and leave the
    caller's buffers to the caller, so the copy buys nothing: it doubles the
    memory of every saved argument. This pass returns the argument itself
    where the clone's only use is the return and nothing in the function
    writes into the argument (writes are followed through views; a call
    counts as a write, except BLAS calls, which write only their output), or
    the argument is donated to that result (`jx.donated_to`, see
    `--jx-donate-arguments`): its buffer holds the result then. It is the
    last pass that reads `jx.donated_to`, and drops it.

    ```mlir
    %0 = bufferization.clone %arg0 : memref<8x8xf32> to memref<8x8xf32>
    return %alloc, %0 : ...            // before
    return %alloc, %arg0 : ...         // after
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def JxFuseElementwisePass : Pass<"jx-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse elementwise linalg ops without reshaping contractions";
  let description = [{
    Fuses producer elementwise `linalg.generic` ops into their consumers
    (a producer with one use), as upstream `linalg-fuse-elementwise-ops`
    does, but without its reshape propagation: that one pushes
    `tensor.expand_shape` through `linalg.batch_matmul`, generalizing the
    matmul into a 5-d `linalg.generic` that no BLAS call matches, which made
    an MLP backward ten times slower (a transposed cotangent feeding a
    weight gradient, next to a bias-gradient reduction).

    A producer whose value the function also returns (a forward's residual)
    and whose elementwise consumer reads it element for element is fused
    too: the fused op writes the value as one more result, where upstream
    would end the chain there (or fuse a copy, computing it twice).

    A cheap producer used by several elementwise consumers (all loops
    parallel, at most 16 body ops, at most one input read in full) is
    computed again in each of them, as XLA's fusion duplicates cheap
    producers: the shared value never takes a buffer, and its inputs, now
    live until the last consumer, hold no more than it did. A backward's
    shared values (GELU's tanh, read by `1 + t` and `1 - t * t`) are what
    this removes: GPT-2's block step went from 111 to 66 MiB. Other values
    used again inside the function keep upstream's single-use rule.

    ```mlir
    // mul then reduce_sum fuse into one generic; the batch_matmul after
    // the transpose stays a batch_matmul. %t = tanh(%x), returned, and
    // exp(%t * %t): one generic yielding both.
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def JxElementwiseInPlacePass : Pass<"jx-elementwise-in-place", "mlir::func::FuncOp"> {
  let summary = "Let an elementwise op write over an input that dies with it";
  let description = [{
    Runs on tensors, after fusion, before bufferization. A `linalg.generic`
    whose loops are all parallel, that writes a fresh `tensor.empty` through
    an identity map and does not read it, gets as its destination an input
    it reads through an identity map, of the same type, that nothing else
    uses, and whose buffer a linalg op of the same block wrote (through
    reshapes); not an argument (the caller's), a constant, a call's result
    or a value defined outside a loop the op is in. One-shot bufferization
    then writes the result into that input's buffer, which dies there
    anyway: one buffer less at that point of the program, as XLA's buffer assignment shares an operand's buffer with
    an elementwise result.

    ```mlir
    %d = linalg.generic ... ins(%g, %h : ...) outs(%empty : ...)  // %g dies
    // becomes
    %d = linalg.generic ... ins(%g, %h : ...) outs(%g : ...)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def JxDonateArgumentsPass : Pass<"jx-donate-arguments", "mlir::ModuleOp"> {
  let summary = "Write each result over the buffer of the argument donated to it";
  let description = [{
    Runs on tensors, after fusion, before bufferization. An argument with
    `jx.donated_to = k` is one the caller gives up (jit's `donate`, JAX's
    `donate_argnums`): result `k` may be written over its buffer, as XLA's
    input/output aliasing does. The pass makes the argument writable, returns
    result `k` through `bufferization.materialize_in_destination` into it,
    and eliminates the `tensor.empty` that result was computed into (the
    upstream empty-tensor elimination), so that the op computing it writes
    straight into the argument's buffer: an optimizer's update allocates
    nothing for the parameters and the state it updates. Where bufferization
    finds a conflict (the old value is read after the new one is written), it
    computes the result elsewhere and copies it over the argument.
    `--jx-alias-argument-results` then returns the argument itself.

    ```mlir
    func.func @step(%p: tensor<8xf32> {jx.donated_to = 0 : i64}, ...) -> tensor<8xf32> {
      %e = tensor.empty() : tensor<8xf32>
      %u = linalg.generic ... ins(%p, %g : ...) outs(%e : ...)
      return %u
    // becomes
    func.func @step(%p: tensor<8xf32> {bufferization.writable = true, jx.donated_to = 0 : i64}, ...)
      %u = linalg.generic ... ins(%p, %g : ...) outs(%p : ...)
      %r = bufferization.materialize_in_destination %u in %p
      return %r
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def JxParallelLoopsPass : Pass<"jx-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Run loops on OpenMP threads where the work pays for them";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`. Upstream's
    `convert-scf-to-openmp` alone would turn every `scf.parallel`, however
    small or deeply nested, into an OpenMP region; this pass first picks the
    loops worth it, then runs that conversion on them. Of each outermost
    `scf.parallel` whose static iteration count times the static trip counts
    of the loops inside it reaches `min-work` (elements), only the leading
    dimensions stay parallel, as few as give `min-chunks` iterations to share
    out; the rest become `scf.for` loops inside, so that the innermost loop
    stays a plain loop LLVM vectorizes. Every other `scf.parallel` (small,
    dynamic, or nested in a parallel one) becomes a nest of `scf.for`.
    Iterations of a `scf.parallel` from linalg are independent (reductions
    are `scf.for` inside), so results do not depend on the thread count.
    The `memref.alloca_scope` the conversion wraps around each body is
    removed again where the body allocates nothing on the stack (it must
    stay one block, which would keep the loops inside from becoming
    branches).

    ```mlir
    // scf.parallel (%i, %j) = (0, 0) to (256, 1024) step (1, 1) { body }
    // becomes
    // scf.parallel (%i) = (0) to (256) step (1) {
    //   scf.for %j = 0 to 1024 step 1 { body }
    // }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Fewest elements of work that run in parallel">,
    Option<"minChunks", "min-chunks", "int64_t", /*default=*/"16",
           "Fewest parallel iterations the kept dimensions give">,
    Option<"openmp", "openmp", "bool", /*default=*/"true",
           "Convert the loops kept parallel to OpenMP (false: stop at scf)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::omp::OpenMPDialect",
                           "mlir::memref::MemRefDialect", "mlir::LLVM::LLVMDialect"];
}

def JxOutlineKernelsPass : Pass<"jx-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Outline each loop nest and library call into a kernel function, one per structure";
  let description = [{
    Runs on buffers, after `jx-parallel-loops`. A traced program is straight
    line: a 64-layer MLP's step holds 64 copies of the same forward loop nest
    and 64 of the same backward ones, and every later pass (the math
    approximations, the conversions to LLVM) and LLVM's optimizer and code
    generator would treat each copy anew, so compile time grew with the
    layer count times the work per loop. This pass moves each outermost loop
    nest (an op with regions implementing `LoopLikeOpInterface`, or an
    `omp.parallel`) and each call of an external function on buffers (a BLAS
    call, whose C interface packs every buffer's descriptor on the stack at
    the call site) into a private `no_inline` function and calls it; those
    inside `scf.if` / `scf.index_switch` branches are outlined the same
    way. Constants the nest uses are cloned into it, every other value it uses
    from outside becomes an argument (in order of first use), its results
    the function's results. Kernels equal up to locations and value names
    (`OperationEquivalence`) are one function: a repeated layer's loops are
    compiled once, whatever their count.

    Allocation and deallocation stay where they were, so the runtime's
    live and peak bytes (and the memory plan that predicts them) do not
    change; only where the loops' code lives does.

    ```mlir
    // in @step, twice with other buffers:
    scf.for %i = %c0 to %c8 step %c1 { ... %a ... %b ... }
    // becomes, twice:
    func.call @jx_kernel(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
    // and once:
    func.func private @jx_kernel(%arg0: memref<8xf32>, %arg1: memref<8xf32>)
        attributes {no_inline} { scf.for ... }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect"];
}

def JxSplitDeallocationsPass : Pass<"jx-split-deallocations"> {
  let summary = "Free each allocation that nothing else can alias on its own";
  let description = [{
    Runs between `ownership-based-buffer-deallocation` and
    `buffer-deallocation-simplification`. At the end of a straight-line
    function the ownership-based pass leaves one `bufferization.dealloc` of
    every buffer the function allocated, retaining every buffer it returns:
    a 64-layer step's has hundreds of each, and upstream's simplification
    asks its alias analysis about every pair, a cost quadratic in the layer
    count (0.06 s at 64 layers, 0.25 s at 128). This pass finds each
    operand's origin once, through views back to a `memref.alloc` or a
    function argument. A buffer that is a heap allocation no other operand
    and no retained value comes from is freed by a `bufferization.dealloc`
    of its own with its condition; the rest (what may alias) stays in the
    op for upstream. If a retained value's origin is unknown (a call's
    result, a loop's argument), the op is left whole.

    ```mlir
    %r = bufferization.dealloc (%a, %b, %c : ...) if (%true, %true, %true) retain (%c)
    // %a, %b separate allocations, %c returned:
    bufferization.dealloc (%a : ...) if (%true)
    bufferization.dealloc (%b : ...) if (%true)
    %r = bufferization.dealloc (%c : ...) if (%true) retain (%c)
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def JxOutlineRepeatsPass : Pass<"jx-outline-repeats", "mlir::ModuleOp"> {
  let summary = "Outline each repeated run of host code into one function, called once per copy";
  let description = [{
    Runs on buffers, after `jx-outline-kernels`, when a step's body is a
    straight line of views, allocations, kernel calls and frees. A 64-layer
    MLP's step still holds that line 64 times for the forward and 64 times
    for the backward, and the conversions to LLVM, the translation and
    LLVM's code generator spent most of the compile on it. This pass finds
    a run of ops that repeats back to back (ops equal up to their operands
    and locations, `OperationEquivalence`; ops with regions never match),
    checks that the copies also agree on data flow (each operand comes from
    the same op of the copy, or from outside it in every copy), and moves
    one copy into a private function called once per copy: the values a
    copy reads from outside are its arguments (one per distinct value
    across the copies; an equal constant is cloned in), the values later
    ops read its results. The run saving the most ops goes first; the
    search repeats on what is left and inside the new functions.

    Every allocation and free happens in the same order as before (a copy
    frees what it freed inline, an argument included), so the runtime's live
    and peak bytes and the memory plan that predicts them do not change.
    The functions are `optnone` like the step (`jx-inline-into-c-interface`).

    ```mlir
    // in @step, the layer's run twice over:
    %a = memref.alloc() ... call @jx_kernel(%x, %w0, %a) ... memref.dealloc %x
    %b = memref.alloc() ... call @jx_kernel(%a, %w1, %b) ... memref.dealloc %a
    // becomes:
    %a = call @jx_repeat(%x, %w0) ...
    %b = call @jx_repeat(%a, %w1) ...
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect"];
}

def JxInlineIntoCInterfacePass
    : Pass<"jx-inline-into-c-interface", "mlir::ModuleOp"> {
  let summary = "Compile each public function once, inside its C interface";
  let description = [{
    Runs after `convert-func-to-llvm`. A public function `@f` is called
    through its `@_mlir_ciface_f` wrapper, which reads every memref from a
    pointer to its descriptor and passes it to `@f` as five or more scalar
    arguments. A training step takes and returns hundreds of memrefs, so
    `@f`'s entry block would unpack thousands of arguments (most of them on
    the stack) and its exit block pack as many results, blocks on which the
    code generator spends time quadratic in their length; and `@f` would be
    compiled twice over (once on its own, once for the JIT's packed entry).
    This pass gives `@f` internal linkage and `always_inline`: LLVM inlines it
    into the wrapper, where a descriptor's fields are loaded only if they are
    used (a static shape's sizes and strides are constants), and no packed
    entry is made for it.

    The wrapper itself gets `optnone` (and `noinline`, which LLVM requires
    with it): after `jx-outline-kernels` a step is a straight line of
    allocations, kernel calls and frees, with every loop nest in a kernel
    that is still optimized, so LLVM's optimizer and code generator need not
    work on the step's long blocks (the 64-layer MLP's compile: about 15%
    less, same step time).
  }];
}

#endif // COTANGENT_PASSES_LOWERING_LOWERINGPASSES_TD

//===- Pipeline.cpp - the jx-lower-to-llvm pipeline -----------------------===//
//
// jx IR to the LLVM dialect for the CPU:
//
//   inline                       @f_vjp etc. call @f_fwd / @f_bwd: one body each
//   jx-expand-composites         composites written as jx ops: the fused
//                                cross-entropy, and attention of types the
//                                kernels do not run (f32 stays: bufferized
//                                into kernel calls)
//   jx-to-linalg                 every jx op to linalg / tensor / arith / math / scf
//   symbol-dce                   private functions nothing calls
//   linalg-fuse-elementwise-ops  elementwise chains become one linalg.generic
//                                (no canonicalize: it folds the reshapes around
//                                transposes into rank-3/4 transposes whose loops
//                                run an order of magnitude slower)
//   jx-donate-arguments          a result computed into the buffer of the
//                                argument donated to it (jit's donate)
//   jx-schedule-collectives      each reduction right after its operand's op
//   one-shot-bufferize           tensors to buffers, across function boundaries
//                                (collectives: runtime start and wait calls)
//   jx-lower-optimization-barriers, jx-matmul-to-blas
//                                the barriers' calls to inline asm; f32/f64
//                                batched matmuls to the runtime's BLAS, and
//                                bf16/f16 operands into f32 products too
//                                (oneDNN's bf16 kernels where the CPU has them)
//   buffer-deallocation-pipeline (with jx-split-deallocations before its
//   simplification), jx-alias-argument-results, jx-hoist-deallocations,
//   jx-defer-collective-waits    each collective's wait down to its buffers' next use
//                                frees every intermediate right after its last use;
//                                an argument returned as a result is not copied
//   convert-linalg-to-parallel-loops, jx-parallel-loops
//                                loops with enough work run on the OpenMP
//                                threads (libomp; runtime/cpu/Threads.h sets
//                                how many), the rest stay plain loops
//   jx-outline-kernels           each loop nest into a function, one per
//                                structure: a repeated layer's loops are
//                                lowered and compiled once
//   jx-outline-repeats           a run of host code repeated back to back
//                                (a layer's allocations, kernel calls and
//                                frees) into one function, called per copy
//   convert-bufferization-to-memref, convert-linalg-to-loops, ... to LLVM,
//   with finalize-memref-to-llvm{use-generic-functions=true} so that every
//   allocation goes through _mlir_memref_to_llvm_alloc / _free (the runtime
//   counts live and peak bytes there). f32 tanh, exp, expm1, log, log1p, erf,
//   erfc and atan2 become polynomial approximations that LLVM vectorizes
//   (jx-approximate-math); the other math ops become libm calls, the same
//   functions the reference interpreter calls.
//   jx-inline-into-c-interface   each public function is compiled once,
//                                inside its _mlir_ciface_ wrapper
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

void cotangent::buildJxToBuffersPipeline(OpPassManager &pm,
                                         const BufferizationOptions &options) {
  pm.addPass(createInlinerPass());
  pm.addPass(createJxExpandCompositesPass(
      JxExpandCompositesPassOptions{.keepKernels = options.attentionKernels}));
  pm.addPass(createJxToLinalgPass(
      JxToLinalgPassOptions{.lowFloatMatmulOperands = options.blas && options.lowFloatBlas,
                            .collectives = options.collectives}));
  // Private functions nothing calls any more: the split's halves once
  // inlined into the step, a primal the step does not need. Until
  // jx-to-linalg dropped the split contract, its symbol references kept them.
  pm.addPass(createSymbolDCEPass());
  if (options.canonicalize)
    pm.addPass(createCanonicalizerPass());
  pm.addPass(createJxFuseElementwisePass());
  pm.addNestedPass<func::FuncOp>(createJxElementwiseInPlacePass());
  pm.addPass(createJxDonateArgumentsPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = true;
  // No padding for alignment: the runtime's hook aligns, and counts exact sizes.
  bufferize.bufferAlignment = 0;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  // Reductions start as their operands are made (the backward's gradients).
  pm.addNestedPass<func::FuncOp>(createJxScheduleCollectivesPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createJxLowerOptimizationBarriersPass());
  if (options.blas)
    pm.addPass(
        createJxMatmulToBlasPass(JxMatmulToBlasPassOptions{.lowFloat = options.lowFloatBlas}));
  // Upstream's buffer-deallocation-pipeline, with each unaliased
  // allocation split off before the (pairwise) simplification.
  pm.addPass(memref::createExpandReallocPass(memref::ExpandReallocPassOptions{
      .emitDeallocs = false}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createJxSplitDeallocationsPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createJxAliasArgumentResultsPass());
  if (options.hoistDeallocations)
    pm.addNestedPass<func::FuncOp>(createJxHoistDeallocationsPass());
  // A collective's wait goes where its buffers are next used (after the
  // deallocations found their places, which count as uses).
  pm.addNestedPass<func::FuncOp>(createJxDeferCollectiveWaitsPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
}

void cotangent::buildHostToLLVMPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createJxApproximateMathPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
}

void cotangent::buildLowerToLLVMPipeline(OpPassManager &pm) {
  buildJxToBuffersPipeline(pm, BufferizationOptions{});
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createJxParallelLoopsPass());
  pm.addPass(createJxOutlineKernelsPass());
  pm.addPass(createJxOutlineRepeatsPass());
  buildHostToLLVMPasses(pm);
  pm.addPass(createJxInlineIntoCInterfacePass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

std::string cotangent::getLowerToLLVMPipeline() {
  OpPassManager pm(ModuleOp::getOperationName());
  buildLowerToLLVMPipeline(pm);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

void cotangent::registerLoweringPassesAndPipeline() {
  registerCotangentLoweringPasses();
  PassPipelineRegistration<>(
      "jx-lower-to-llvm",
      "Lower jx IR to the LLVM dialect for the CPU (linalg, bufferization with "
      "deallocation, BLAS calls for f32/f64 dot_general, counted allocations)",
      [](OpPassManager &pm) { buildLowerToLLVMPipeline(pm); });
}

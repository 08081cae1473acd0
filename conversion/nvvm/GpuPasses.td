//===- GpuPasses.td - jx to NVVM for the GPU -------------*- tablegen -*-===//

#ifndef COTANGENT_PASSES_GPU_GPUPASSES_TD
#define COTANGENT_PASSES_GPU_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

def JxGpuTileParallelLoopsPass
    : Pass<"jx-gpu-tile-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Shape each outermost scf.parallel into a grid of fixed-size thread blocks";
  let description = [{
    Prepares the loops `convert-linalg-to-parallel-loops` makes for
    `gpu-map-parallel-loops` and `convert-parallel-loops-to-gpu`. Each
    outermost `scf.parallel` (one per fused linalg op) with at most three
    constant-trip-count dimensions first gets its dimensions reversed, so
    that the innermost (contiguous) dimension maps to `thread_x` and
    consecutive threads touch consecutive addresses. It is then tiled with
    `noMinMaxBounds` so that the inner loop, which becomes the thread block,
    has constant bounds: tile sizes are taken from the fastest dimension
    outwards until `threads-per-block` threads are used (the z dimension is
    capped at 64, the hardware limit; dimensions beyond the third stay
    sequential loops in each thread). The remainder is guarded by an
    `scf.if` inside the block.

    ```mlir
    // scf.parallel (%i, %j) = (0, 0) to (8, 32)  becomes
    scf.parallel (%bj, %bi) = (0, 0) to (32, 8) step (32, 8) {
      scf.parallel (%tj, %ti) = (0, 0) to (32, 8) step (1, 1) { ... }
    }
    ```
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"256",
           "Threads in each block (at most 1024)">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect"];
}

#endif // COTANGENT_PASSES_GPU_GPUPASSES_TD

//===- ElementReduction.h - reductions into one element, by blocks -*- C++ -*-===//
//
// What convert-linalg-to-parallel-loops makes of a reduction: a perfect
// nest of constant-bound scf.for loops whose innermost body loads an
// element, combines it with one value (an arith op) and stores it back at
// indices the nest does not change. On the GPU such a nest runs as a block
// of threads: each folds a strided share of the iteration space in a
// register from the combiner's identity, gpu.all_reduce combines the
// shares, thread 0 folds the total into the element. Shared by
// jx-gpu-kernelize-host-code (one element, from host code) and
// jx-gpu-block-reductions (one element per point of a parallel loop).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_NVVM_ELEMENTREDUCTION_H
#define COTANGENT_CONVERSION_NVVM_ELEMENTREDUCTION_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <optional>

namespace mlir::cotangent {

struct ElementReduction {
  SmallVector<scf::ForOp> loops; ///< outermost first
  SmallVector<int64_t> trips;
  memref::LoadOp load;
  Operation *combine = nullptr;
  Value value; ///< what is combined into the element
  memref::StoreOp store;
  gpu::AllReduceOperation kind;
  arith::AtomicRMWKind identity;

  /// Iterations of the whole nest.
  int64_t size() const;
};

/// The reduction `outer` is the outermost loop of, if it is one.
std::optional<ElementReduction> matchElementReduction(scf::ForOp outer);

/// Threads of a block folding `size` iterations: whole warps, as many as
/// the work fills, at most `max`.
inline int64_t warpThreads(int64_t size, int64_t max) {
  return std::clamp<int64_t>((size + 31) / 32 * 32, 32, max);
}

/// A launch of `blocks` blocks of `threads` threads at the builder's point;
/// the builder is left at the start of its body.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t threads, int64_t blocks = 1);
/// The same with the number of blocks computed before the launch.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t threads, Value blocks);

/// Emits, in a launch body at the builder's point, the reduction folded by
/// the launch's threads: iterations start, start + stride, ... each fold
/// their share, the block combines the shares, and thread 0 folds the
/// total into the element (`atomic`: with memref.atomic_rmw, for several
/// blocks adding into one element). `outer` maps values the nest uses from
/// around it (the induction variables of an enclosing parallel loop).
void emitBlockReduction(OpBuilder &b, ElementReduction r, const IRMapping &outer,
                        Value tid, Value start, Value stride,
                        std::optional<arith::AtomicRMWKind> atomic);

} // namespace mlir::cotangent

#endif // COTANGENT_CONVERSION_NVVM_ELEMENTREDUCTION_H

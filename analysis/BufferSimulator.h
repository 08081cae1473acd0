//===- BufferSimulator.h - abstract execution over allocations --*- C++ -*-===//
//
// Runs functions of a bufferized module (memref, scf, arith, func, linalg,
// the GPU's allocations)
// without their data: every memref.alloc is a block with a size, every
// memref.dealloc frees one, views keep their block, and integer, index and
// boolean values are computed exactly, including those stored in and loaded
// from small memrefs (the deallocation pipeline's ownership flags and pointer
// checks live there), constant integer tables read at known offsets, and the
// 0-d integer linalg.generics that compute on them (a revolve schedule's
// dispatch). Tensor data is unknown: a branch that depends on it is
// taken the way the next entry of `decisions` says, and counted. An integer
// read from tensor data that selects an scf.index_switch's case (a
// lax.switch's index) is decided where it is read, among the values that
// pick each case, and written back, so the backward's switch on the saved
// index goes the forward's way.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_ANALYSIS_BUFFERSIMULATOR_H
#define COTANGENT_ANALYSIS_BUFFERSIMULATOR_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::gpu {
class AllocOp;
} // namespace mlir::gpu

namespace mlir::cotangent {

/// Bytes of a static memref's buffer as the LLVM lowering lays it out
/// (i1: one byte an element, index: eight).
int64_t bufferBytes(MemRefType type);

/// What the simulator knows of an SSA value.
struct AbstractValue {
  int block = -1;                ///< for a memref: the block it views
  std::optional<int64_t> scalar; ///< for an integer, index or i1 value
  /// For a memref: the element its view starts at in the block, if known.
  std::optional<int64_t> offset = 0;
};

struct SimulatedBlock {
  int64_t bytes = 0;
  bool counted = false; ///< allocated by compiled code (arguments are not)
  bool live = false;
  Operation *allocation = nullptr; ///< null for arguments and globals
  MemRefType type;
  std::string function;
  std::string role;
  SmallVector<int64_t> sizes;
  /// Contents of a small rank-0/1 integer/index/i1 block, or of a constant
  /// integer global, element by element (row-major).
  std::vector<std::optional<int64_t>> contents;
};

class BufferSimulator {
public:
  BufferSimulator(ModuleOp module, std::vector<int> decisions)
      : module(module), decisions(std::move(decisions)) {}

  /// A block that compiled code did not allocate (an argument).
  int external(MemRefType type);
  /// Runs `fn` on `args`; fills `results`. Fails with a diagnostic.
  LogicalResult call(func::FuncOp fn, ArrayRef<AbstractValue> args,
                     SmallVectorImpl<AbstractValue> &results);
  /// Frees `block` as the runtime does after a call (if compiled code allocated it).
  void release(int block);

  std::vector<SimulatedBlock> blocks;
  struct Event {
    int block;
    int64_t delta, live;
  };
  std::vector<Event> timeline;
  int64_t live = 0, peak = 0;
  int peakEvent = -1;
  std::vector<int> liveAtPeak;
  /// Data-dependent decisions met, in order (the first decisions.size() were
  /// taken as told, the rest the first way, 0): the way taken and how many
  /// ways there were (2 for a branch, one per candidate value of a switch's
  /// index).
  unsigned branches = 0;
  std::vector<int> taken;
  std::vector<int> ways;

private:
  using Env = llvm::DenseMap<Value, AbstractValue>;
  LogicalResult run(Region &region, ValueRange args, ArrayRef<AbstractValue> argValues, Env &env,
                    SmallVectorImpl<AbstractValue> &yielded, int depth);
  LogicalResult step(Operation *op, Env &env, int depth);
  LogicalResult stepControlFlow(Operation *op, Env &env, int depth);
  LogicalResult stepMemRef(Operation *op, Env &env);
  LogicalResult stepArith(Operation *op, Env &env);
  /// gpu.alloc: pinned host memory when host_shared (not counted); a
  /// memref.dealloc frees it like any block.
  LogicalResult stepGpuAlloc(gpu::AllocOp alloc, Env &env);
  /// Evaluates a linalg op on 0-d integer buffers, or forgets what it writes.
  LogicalResult stepLinalg(Operation *op, Env &env);
  /// The tracked contents element `v`'s view holds at `indices`, if known.
  std::optional<int64_t> readElement(Value v, ArrayRef<std::optional<int64_t>> indices, Env &env);
  /// Where element `indices` of `v`'s view is in its block's contents.
  std::optional<int64_t> elementIndex(Value v, ArrayRef<std::optional<int64_t>> indices, Env &env);
  /// The next decision among `n` ways (0 to n - 1).
  int decide(int n = 2);
  /// For a load of an integer that reaches an scf.index_switch's operand in
  /// its function: one value picking each case and one the default (empty
  /// when it reaches none).
  const std::vector<int64_t> &switchCandidates(Operation *load);
  int allocate(Operation *op, MemRefType type, ArrayRef<int64_t> sizes);
  void record(int block, int64_t delta);

  ModuleOp module;
  /// The block of each constant global read so far: its contents are built once.
  llvm::DenseMap<Operation *, int> constantGlobals;
  std::vector<int> decisions;
  llvm::DenseMap<Operation *, std::vector<int64_t>> candidates;
  std::string function;
};

} // namespace mlir::cotangent

#endif // COTANGENT_ANALYSIS_BUFFERSIMULATOR_H

//===- ScanSchedule.cpp - checkpoint schedules for long scans -------------===//
//
// scan(length = a*b*..., checkpoint_lengths = [a, b, ...]) becomes
//
//   xs' = reshape xs to [a, L/a, ...]
//   carry, ys' = scan(length = a) {               // one iteration per chunk
//     jx.remat(nothing_saveable) {                // the chunk is recomputed
//       scan(length = L/a, checkpoint_lengths = [b, ...]) { original body }
//     }
//   }
//   ys = reshape ys' to [L, ...]
//
// and the inner scan is expanded the same way. prevent_cse is off: as in
// JAX, a recomputation inside a loop body cannot be CSE'd with the forward.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/ScanSchedule.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

FailureOr<SmallVector<int64_t>> mlir::cotangent::everyKLengths(int64_t length, int64_t k) {
  if (k < 1 || length % k != 0)
    return failure();
  return SmallVector<int64_t>{length / k, k};
}

SmallVector<int64_t> mlir::cotangent::sqrtLengths(int64_t length) {
  int64_t best = 1;
  double root = std::sqrt(static_cast<double>(length));
  for (int64_t d = 1; d <= length; ++d)
    if (length % d == 0 && std::abs(d - root) < std::abs(best - root))
      best = d;
  return {length / best, best};
}

SmallVector<int64_t> mlir::cotangent::recursiveLengths(int64_t length) {
  SmallVector<int64_t> factors;
  for (int64_t p = 2; p * p <= length; ++p)
    for (; length % p == 0; length /= p)
      factors.push_back(p);
  if (length > 1)
    factors.push_back(length);
  llvm::sort(factors, std::greater<int64_t>());
  return factors;
}

std::string mlir::cotangent::describeSchedule(ArrayRef<int64_t> lengths) {
  int64_t carries = 0, total = 1;
  for (int64_t l : lengths) {
    carries += l;
    total *= l;
  }
  std::string list;
  llvm::raw_string_ostream os(list);
  llvm::interleaveComma(lengths, os);
  return "schedule [" + list + "]: at most " + std::to_string(carries) + " carries live, " +
         std::to_string(total * (static_cast<int64_t>(lengths.size()) - 1)) +
         " iterations recomputed";
}

static RankedTensorType withLeading(RankedTensorType t, ArrayRef<int64_t> leading,
                                    unsigned drop) {
  SmallVector<int64_t> shape(leading);
  shape.append(t.getShape().begin() + drop, t.getShape().end());
  return t.clone(shape);
}

void mlir::cotangent::expandCheckpointedScan(ScanOp scan) {
  ArrayRef<int64_t> lengths = *scan.getCheckpointLengths();
  if (lengths.size() < 2) {
    scan.removeCheckpointLengthsAttr();
    return;
  }
  OpBuilder b(scan);
  Location loc = scan.getLoc();
  int64_t outer = lengths.front(), inner = scan.getLength() / outer;
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();

  SmallVector<Value> operands(scan.getOperands().take_front(numConsts + numCarry));
  for (Value x : scan.getXs()) {
    auto type = cast<RankedTensorType>(x.getType());
    operands.push_back(ReshapeOp::create(b, loc, withLeading(type, {outer, inner}, 1), x));
  }
  SmallVector<Type> resultTypes, chunkTypes;
  for (auto [i, r] : llvm::enumerate(scan.getResults())) {
    auto type = cast<RankedTensorType>(r.getType());
    bool isCarry = i < numCarry;
    resultTypes.push_back(isCarry ? type : withLeading(type, {outer, inner}, 1));
    chunkTypes.push_back(isCarry ? type : withLeading(type, {inner}, 1));
  }
  auto outerScan = ScanOp::create(b, loc, resultTypes, operands, outer, numConsts, numCarry,
                                  scan.getReverse(), /*checkpoint_lengths=*/nullptr, /*snapshots=*/nullptr);
  setScanSchedule(outerScan, lengths);

  // Outer body: (consts, carry, x chunk) -> remat { inner scan } -> yield.
  SmallVector<Type> argTypes;
  for (Value v : ArrayRef<Value>(operands).take_front(numConsts + numCarry))
    argTypes.push_back(v.getType());
  for (Value v : ArrayRef<Value>(operands).drop_front(numConsts + numCarry))
    argTypes.push_back(withLeading(cast<RankedTensorType>(v.getType()), {}, 1));
  SmallVector<Location> locs(argTypes.size(), loc);
  Block *outerBody = b.createBlock(&outerScan.getBody(), {}, argTypes, locs);
  auto remat = RematOp::create(b, loc, chunkTypes, outerBody->getArguments(),
                               PolicyAttr::get(b.getContext(), PolicyKind::nothing_saveable),
                               b.getBoolAttr(false));
  Block *rematBody = b.createBlock(&remat.getBody(), {}, argTypes, locs);
  auto innerScan = ScanOp::create(b, loc, chunkTypes, rematBody->getArguments(), inner, numConsts,
                                  numCarry, scan.getReverse(), /*checkpoint_lengths=*/nullptr, /*snapshots=*/nullptr);
  if (lengths.size() > 2)
    innerScan.setCheckpointLengths(lengths.drop_front());
  IRMapping map;
  scan.getBody().cloneInto(&innerScan.getBody(), map);
  b.setInsertionPointToEnd(rematBody);
  YieldOp::create(b, loc, innerScan.getResults());
  b.setInsertionPointToEnd(outerBody);
  YieldOp::create(b, loc, remat.getResults());

  b.setInsertionPointAfter(outerScan);
  for (auto [i, r] : llvm::enumerate(scan.getResults())) {
    Value replacement = outerScan.getResult(i);
    if (i >= numCarry)
      replacement = ReshapeOp::create(b, loc, r.getType(), replacement);
    r.replaceAllUsesWith(replacement);
  }
  scan.erase();
  if (innerScan.getCheckpointLengths())
    expandCheckpointedScan(innerScan);
}

void mlir::cotangent::expandCheckpointedScans(Operation *root) {
  SmallVector<ScanOp> scans;
  root->walk([&](ScanOp scan) {
    if (scan.getCheckpointLengths())
      scans.push_back(scan);
  });
  for (ScanOp scan : scans)
    expandCheckpointedScan(scan);
}

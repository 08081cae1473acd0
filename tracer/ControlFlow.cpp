//===- ControlFlow.cpp - jx.scan and jx.cond emission ---------------------===//
//
// Scan bodies see one slice of every xs leaf; what they capture from outside
// becomes the scan's consts (the leading operands). Cond branches are traced
// one after the other; each later branch first pre-captures what earlier
// ones captured, and earlier ones get unused block arguments for what later
// ones captured, so all branches take the same operand list.
//
//===----------------------------------------------------------------------===//

#include "tracer/ControlFlow.h"

#include "tracer/Broadcast.h"
#include "tracer/Numpy.h"
#include "tracer/Region.h"

using namespace mlir;

namespace cotangent::detail {
namespace {

std::string typeList(TypeRange types) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(describe(types)))
    s += (i ? ", " : "") + d;
  return s + ")";
}

} // namespace

std::vector<Tensor> emitScan(const std::vector<Tensor> &carry, const std::vector<Tensor> &xs,
                             const BodyTracer &trace, const ScanOptions &opts,
                             const SrcLoc &loc) {
  RegionTrace region("scan", opts.name, loc);
  TraceState &s = region.state();
  SmallVector<Value> carryV = useAll(carry, "scan", loc), xsV = useAll(xs, "scan", loc);

  std::optional<int64_t> length = opts.length;
  for (const Tensor &x : xs) {
    if (x.rank() == 0)
      throwTraceError("scan", "xs leaves need a leading axis to scan over, got " + x.str(),
                      describe(xs), loc);
    if (length && x.shape()[0] != *length)
      throwTraceError("scan",
                      "xs leading axis sizes differ: " + x.str() + " against length " +
                          std::to_string(*length),
                      describe(xs), loc);
    length = x.shape()[0];
  }
  if (!length || *length < 0)
    throwTraceError("scan", "needs xs or a non-negative length", {}, loc);

  SmallVector<Type> argTypes(ValueRange(carryV).getTypes());
  for (const Tensor &x : xs)
    argTypes.push_back(tensorType(s, Shape(x.shape().begin() + 1, x.shape().end()), x.dtype()));
  std::vector<Tensor> results = trace(region.begin(argTypes, 0));
  for (size_t i = 0; i < carry.size(); ++i)
    if (results[i].value().getType() != carryV[i].getType())
      throwTraceError("scan",
                      "the body's carry output " + results[i].str() + " differs from its input " +
                          carry[i].str() + " (carry leaf " + std::to_string(i) + ")",
                      {carry[i].str(), results[i].str()}, loc);
  std::unique_ptr<Frame> frame = region.end(results);

  SmallVector<Value> operands(frame->captured.begin(), frame->captured.end());
  operands.append(carryV);
  operands.append(xsV);
  SmallVector<Type> resultTypes(ValueRange(carryV).getTypes());
  for (size_t i = carry.size(); i < results.size(); ++i) {
    Shape stacked{*length};
    stacked.insert(stacked.end(), results[i].shape().begin(), results[i].shape().end());
    resultTypes.push_back(tensorType(s, stacked, results[i].dtype()));
  }
  OpBuilder &b = s.builder();
  auto op = jx::ScanOp::create(b, region.location(), resultTypes, operands,
                               b.getI64IntegerAttr(*length),
                               b.getI64IntegerAttr(frame->captured.size()),
                               b.getI64IntegerAttr(carry.size()),
                               opts.reverse ? b.getUnitAttr() : UnitAttr(),
                               opts.checkpoint_lengths.empty()
                                   ? DenseI64ArrayAttr()
                                   : b.getDenseI64ArrayAttr(opts.checkpoint_lengths),
                               opts.snapshots ? b.getI64IntegerAttr(*opts.snapshots)
                                              : IntegerAttr());
  op.getBody().takeBody(*frame->region);
  s.verifyOrThrow(op, "scan", loc);
  std::vector<Tensor> out;
  for (Value r : op.getResults())
    out.push_back(wrap(r));
  return out;
}

std::vector<Tensor> emitCond(const Operand &index, bool boolean,
                             const std::vector<Tensor> &operands,
                             const std::vector<BodyTracer> &branches, const SrcLoc &loc) {
  TraceState &s = activeTrace("cond", loc);
  if (branches.empty())
    throwTraceError("cond", "needs at least one branch", {}, loc);
  Operand one[] = {index};
  Tensor idx = harmonize(one, "cond", loc)[0];
  if (idx.rank() != 0)
    throwTraceError("cond",
                    std::string(boolean ? "the predicate" : "the index") +
                        " must be a 0-d tensor, got " + idx.str(),
                    {idx.str()}, loc);
  if (boolean && idx.dtype() != DType::Bool)
    idx = np::not_equal(idx, 0, loc);
  if (!boolean) {
    if (isFloating(idx.dtype()))
      throwTraceError("cond", "the branch index must be an integer, got " + idx.str(),
                      {idx.str()}, loc);
    idx = convertTo(idx, DType::I32, loc);
  }
  Value idxV = use(idx, "cond", loc);
  SmallVector<Value> outer = useAll(operands, "cond", loc);

  std::vector<Value> captures;
  std::vector<std::unique_ptr<Frame>> frames;
  SmallVector<Type> resultTypes;
  for (size_t k = 0; k < branches.size(); ++k) {
    RegionTrace region("cond", "", loc);
    std::vector<Tensor> inner = region.begin(ValueRange(outer).getTypes(), outer.size());
    for (Value v : captures)
      region.precapture(v);
    std::vector<Tensor> results = branches[k](std::move(inner));
    SmallVector<Type> types = typesOf(results);
    if (k == 0) {
      resultTypes = types;
    } else if (types != resultTypes) {
      std::string first = boolean ? "the false branch" : "branch 0";
      std::string other = boolean ? "the true branch" : "branch " + std::to_string(k);
      throwTraceError("cond",
                      "branches return different types: " + first + " returns " +
                          typeList(resultTypes) + ", " + other + " returns " + typeList(types),
                      describe(operands), loc);
    }
    std::unique_ptr<Frame> frame = region.end(results);
    for (Value v : frame->captured)
      if (std::find(captures.begin(), captures.end(), v) == captures.end())
        captures.push_back(v);
    frames.push_back(std::move(frame));
  }
  // Earlier branches take (and ignore) what later ones captured.
  for (auto &frame : frames)
    for (size_t i = frame->captured.size(); i < captures.size(); ++i)
      frame->block->addArgument(captures[i].getType(), captures[i].getLoc());

  outer.append(captures.begin(), captures.end());
  OpBuilder &b = s.builder();
  auto op = jx::CondOp::create(b, s.location(loc), resultTypes, idxV, outer, frames.size());
  for (size_t k = 0; k < frames.size(); ++k)
    op.getBranches()[k].takeBody(*frames[k]->region);
  s.verifyOrThrow(op, "cond", loc);
  std::vector<Tensor> out;
  for (Value r : op.getResults())
    out.push_back(wrap(r));
  return out;
}

} // namespace cotangent::detail

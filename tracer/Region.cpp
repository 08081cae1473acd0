//===- Region.cpp - tracing the isolated regions of jx ops ----------------===//

#include "tracer/Region.h"

using namespace mlir;

namespace cotangent::detail {

RegionTrace::RegionTrace(std::string_view opName, std::string fnName, const SrcLoc &loc)
    : state_(activeTrace(opName, loc)), opName_(opName), fnName_(std::move(fnName)), loc_(loc) {}

RegionTrace::~RegionTrace() {
  // Unwinding out of the body: drop its frame and everything above it.
  if (depth_)
    while (state_.depth() > depth_)
      state_.popFrame();
}

std::vector<Tensor> RegionTrace::begin(TypeRange types, unsigned captureIndex) {
  std::string name = fnName_.empty() ? state_.top().fnName : fnName_;
  Location l = state_.location(loc_);
  auto region = std::make_unique<Region>();
  Block *block = new Block();
  region->push_back(block);
  std::vector<Tensor> args;
  depth_ = state_.depth();
  state_.pushFrame(block, std::move(region), std::move(name), captureIndex);
  for (Type t : types)
    args.push_back(wrap(block->addArgument(t, l)));
  return args;
}

void RegionTrace::precapture(Value outer) {
  Frame &f = state_.top();
  if (f.captureMap.count(outer))
    return;
  Value arg = f.block->insertArgument(f.captureIndex++, outer.getType(), outer.getLoc());
  f.captured.push_back(outer);
  f.captureMap[outer] = arg;
}

std::unique_ptr<Frame> RegionTrace::end(const std::vector<Tensor> &results) {
  SmallVector<Value> values = useAll(results, opName_, loc_);
  // Not verified here: a yield only verifies once its region has a parent op.
  jx::YieldOp::create(state_.builder(), state_.frameLocation(loc_), values);
  depth_ = 0;
  return state_.popFrame();
}

SmallVector<Value> useAll(const std::vector<Tensor> &tensors, std::string_view op,
                          const SrcLoc &loc) {
  SmallVector<Value> out;
  for (const Tensor &t : tensors)
    out.push_back(use(t, op, loc));
  return out;
}

SmallVector<Type> typesOf(const std::vector<Tensor> &tensors) {
  SmallVector<Type> out;
  for (const Tensor &t : tensors)
    out.push_back(t.value().getType());
  return out;
}

} // namespace cotangent::detail

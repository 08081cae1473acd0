//===- DonateArguments.cpp - results written over donated arguments -------===//
//
// See JxDonateArgumentsPass in LoweringPasses.td. The rewrite itself is
// upstream's: a materialize_in_destination into the donated argument is an
// insertion into a subset (the whole buffer), which empty-tensor
// elimination anchors on, replacing the tensor.empty the result was
// computed into by the argument. Bufferization then decides, with its usual
// conflict analysis, whether the write can happen in place.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXDONATEARGUMENTSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// Returns each donated argument's result through a materialization into
/// the argument; true if `fn` has any.
bool materializeIntoDonated(func::FuncOp fn) {
  bool any = false;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::optional<unsigned> result = jx::getDonatedTo(fn, i);
    if (!result)
      continue;
    BlockArgument arg = fn.getArgument(i);
    fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                  BoolAttr::get(fn.getContext(), true));
    fn.walk([&](func::ReturnOp ret) {
      OpOperand &operand = ret->getOpOperand(*result);
      if (operand.get() == arg)
        return; // returned unchanged: its buffer already
      OpBuilder b(ret);
      auto into = bufferization::MaterializeInDestinationOp::create(b, ret.getLoc(),
                                                                    operand.get(), arg);
      operand.set(into.getResult());
    });
    any = true;
  }
  return any;
}

class JxDonateArgumentsPass
    : public cotangent::impl::JxDonateArgumentsPassBase<JxDonateArgumentsPass> {
public:
  void runOnOperation() override {
    bool any = false;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal())
        any |= materializeIntoDonated(fn);
    if (!any)
      return;
    IRRewriter rewriter(&getContext());
    if (failed(bufferization::eliminateEmptyTensors(rewriter, getOperation())))
      return signalPassFailure();
  }
};

} // namespace

// Building jx ops from C++: result types are inferred from operands and
// attributes, so the tracer never spells a result type it could get wrong.
#include "dialects/jx/JxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mlir::jx;

namespace {

struct Builder {
  MLIRContext ctx;
  OpBuilder b{&ctx};
  Location loc = UnknownLoc::get(&ctx);
  ModuleOp module;

  Builder() {
    ctx.loadDialect<JxDialect>();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module.getBody());
  }
  ~Builder() { module->erase(); }

  Value zeros(ArrayRef<int64_t> shape, Type element = {}) {
    auto type = RankedTensorType::get(shape, element ? element : b.getF32Type());
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  }
  std::vector<int64_t> shapeOf(Value v) {
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    return {s.begin(), s.end()};
  }
};

using Shape = std::vector<int64_t>;

} // namespace

TEST_CASE_METHOD(Builder, "dot_general infers batch, lhs free, rhs free dims", "[dialect]") {
  Value lhs = zeros({8, 5, 4}), rhs = zeros({8, 4, 3});
  auto dot = DotGeneralOp::create(b, loc, lhs, rhs, b.getDenseI64ArrayAttr({2}),
                                  b.getDenseI64ArrayAttr({1}), b.getDenseI64ArrayAttr({0}),
                                  b.getDenseI64ArrayAttr({0}), nullptr);
  CHECK(shapeOf(dot) == Shape{8, 5, 3});
  auto f64 = DotGeneralOp::create(b, loc, lhs, rhs, b.getDenseI64ArrayAttr({2}),
                                  b.getDenseI64ArrayAttr({1}), b.getDenseI64ArrayAttr({0}),
                                  b.getDenseI64ArrayAttr({0}), TypeAttr::get(b.getF64Type()));
  CHECK(cast<RankedTensorType>(f64.getType()).getElementType().isF64());
  CHECK(succeeded(verify(module)));
}

TEST_CASE_METHOD(Builder, "shape ops infer their result types", "[dialect]") {
  Value x = zeros({1, 5, 4});
  CHECK(shapeOf(TransposeOp::create(b, loc, x, b.getDenseI64ArrayAttr({2, 0, 1}))) == Shape{4, 1, 5});
  CHECK(shapeOf(SqueezeOp::create(b, loc, x, b.getDenseI64ArrayAttr({0}))) == Shape{5, 4});
  CHECK(shapeOf(ExpandDimsOp::create(b, loc, x, b.getDenseI64ArrayAttr({1, 4}))) == Shape{1, 1, 5, 4, 1});
  CHECK(shapeOf(ReduceSumOp::create(b, loc, x, b.getDenseI64ArrayAttr({0, 2}))) == Shape{5});
  CHECK(shapeOf(ConcatenateOp::create(b, loc, ValueRange{x, x}, 1)) == Shape{1, 10, 4});
  CHECK(shapeOf(SliceOp::create(b, loc, x, b.getDenseI64ArrayAttr({0, 1, 0}),
                                b.getDenseI64ArrayAttr({1, 5, 4}), b.getDenseI64ArrayAttr({1, 2, 3}))) ==
        Shape{1, 2, 2});
  Value pad = zeros({});
  CHECK(shapeOf(PadOp::create(b, loc, zeros({3}), pad, b.getDenseI64ArrayAttr({1}),
                              b.getDenseI64ArrayAttr({-1}), b.getDenseI64ArrayAttr({2}))) == Shape{7});
  auto lt = LtOp::create(b, loc, x, x);
  CHECK(cast<RankedTensorType>(lt.getType()).getElementType().isInteger(1));
  CHECK(succeeded(verify(module)));
}

TEST_CASE_METHOD(Builder, "shape errors are reported, not asserted", "[dialect]") {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  DotGeneralOp::Properties props;
  props.lhs_contracting_dimensions = b.getDenseI64ArrayAttr({1});
  props.rhs_contracting_dimensions = b.getDenseI64ArrayAttr({0});
  props.lhs_batch_dimensions = b.getDenseI64ArrayAttr({});
  props.rhs_batch_dimensions = b.getDenseI64ArrayAttr({});
  SmallVector<Value> operands{zeros({5, 4}), zeros({3})};
  DotGeneralOp::Adaptor adaptor(operands, DictionaryAttr(), props);
  SmallVector<Type> results;
  CHECK(failed(DotGeneralOp::inferReturnTypes(&ctx, loc, adaptor, results)));
  CHECK_THAT(message, Catch::Contains("contracting dimension sizes differ") &&
                          Catch::Contains("has size 4") && Catch::Contains("has size 3"));
}

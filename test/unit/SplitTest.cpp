// The forward/backward contract from C++ (dialects/jx/JxSplit.h): pairs are
// found by their attributes whatever the functions are called, the accessors
// keep the fields they do not touch, and remat scopes nest and strip.
#include "dialects/jx/JxSplit.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mlir::jx;

namespace {

// Names that end in neither _fwd nor _bwd: only the attributes make the pair.
constexpr const char *kPair = R"mlir(
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @forward_half(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    attributes {jx.forward = #jx.forward<primal = @loss, backward = @backward_half, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func @backward_half(%cos: tensor<4xf32> {jx.residual = #jx.residual<requested_by = [[0]]>},
                         %ct: tensor<4xf32>) -> tensor<4xf32>
    attributes {jx.backward = #jx.backward<forward = @forward_half, residuals = 1>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @unrelated_fwd(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
)mlir";

struct Fixture {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;

  Fixture() {
    ctx.loadDialect<JxDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kPair, &ctx);
    REQUIRE(module);
  }
  func::FuncOp fn(StringRef name) { return module->lookupSymbol<func::FuncOp>(name); }
};

} // namespace

TEST_CASE_METHOD(Fixture, "split pairs are found by their attributes, not their names", "[split]") {
  SmallVector<SplitPair> pairs = getSplitPairs(*module);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].fwd == fn("forward_half"));
  CHECK(pairs[0].bwd == fn("backward_half"));
  CHECK(getSplitPartner(fn("forward_half")) == fn("backward_half"));
  CHECK(getSplitPartner(fn("backward_half")) == fn("forward_half"));
  CHECK_FALSE(getSplitPartner(fn("unrelated_fwd")));
  CHECK_FALSE(isSplitHalf(fn("unrelated_fwd")));
  CHECK(getSplitName(pairs[0]) == "loss");
  // By the primal's name or by either half's.
  for (StringRef name : {"loss", "forward_half", "backward_half"}) {
    std::optional<SplitPair> pair = lookupSplitPair(*module, name);
    REQUIRE(pair);
    CHECK(pair->fwd == fn("forward_half"));
  }
  CHECK_FALSE(lookupSplitPair(*module, "unrelated"));
  CHECK(numPrimalResults(fn("forward_half")) == 1);
  CHECK(numResiduals(fn("backward_half")) == 1);
  llvm::StringMap<SplitSymbols> symbols = getSplitSymbols(*module);
  REQUIRE(symbols.count("loss"));
  CHECK(symbols["loss"].bwd == "backward_half");
}

TEST_CASE_METHOD(Fixture, "residual accessors keep the field they do not set", "[split]") {
  SplitPair pair = *lookupSplitPair(*module, "loss");
  setResidualMemoryKind(pair, 0, "pinned_host");
  CHECK(getResultMemoryKind(pair.fwd, 1) == "pinned_host");
  CHECK(getResultMemoryKind(pair.fwd, 0) == "");
  ArrayAttr stacks = getRequestedBy(pair.bwd, 0);
  REQUIRE(stacks);
  REQUIRE(stacks.size() == 1);
  CHECK(cast<DenseI64ArrayAttr>(stacks[0]).asArrayRef() == ArrayRef<int64_t>{0});
  // Both sides agree, so the pair still verifies.
  CHECK(succeeded(verify(*module)));
  setRequestedBy(pair.bwd, 0, ArrayAttr::get(&ctx, {}));
  CHECK_FALSE(getRequestedBy(pair.bwd, 0));
  CHECK(succeeded(verify(*module)));
}

TEST_CASE_METHOD(Fixture, "a broken pair does not verify, and lowering strips the contract",
                 "[split]") {
  SplitPair pair = *lookupSplitPair(*module, "loss");
  setNumResiduals(pair.bwd, 0);
  std::string messages;
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      messages += diag.str() + "\n";
      return success();
    });
    CHECK(failed(verify(*module)));
  }
  // The counts no longer add up, and the residual attribute is on a cotangent.
  CHECK_THAT(messages, Catch::Contains("does not match the backward") &&
                           Catch::Contains("which is not a residual: the backward has no residuals"));
  for (func::FuncOp half : {pair.fwd, pair.bwd})
    stripJxAttributes(half);
  CHECK(getSplitPairs(*module).empty());
  CHECK_FALSE(pair.bwd.getArgAttrDict(0));
  CHECK(succeeded(verify(*module)));
}

TEST_CASE_METHOD(Fixture, "remat scopes nest innermost first and strip recursively", "[split]") {
  func::FuncOp fwd = fn("forward_half");
  Operation *sin = &fwd.getBody().front().front();
  auto inner = PolicyAttr::get(&ctx, PolicyKind::dots_saveable);
  auto outer = PolicyAttr::get(&ctx, PolicyKind::nothing_saveable);
  enterRematScope(sin, inner, 3, /*preventCse=*/false);
  enterRematScope(sin, outer, 1, /*preventCse=*/true);
  RematScopeAttr scope = getRematScope(sin);
  REQUIRE(scope);
  CHECK(scope.getRegions() == ArrayRef<int64_t>{3, 1});
  CHECK(scope.getPolicies()[0] == inner);
  CHECK(scope.getPolicies()[1] == outer);
  CHECK_FALSE(scope.getPreventCse()); // the innermost region's
  Operation *cos = sin->getNextNode();
  copyRematScope(sin, cos);
  CHECK(getRematRegions(cos) == ArrayRef<int64_t>{3, 1});
  CHECK(succeeded(verify(*module)));
  stripRematScopes(fwd);
  CHECK_FALSE(getRematScope(sin));
  CHECK(getRematRegions(cos).empty());
}

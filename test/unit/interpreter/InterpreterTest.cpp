// run(): whole functions (calls, scan, remat), diagnostics on bad calls, and
// the live / peak byte counts of MemoryStats.
#include "runtime/interpreter/Interpreter.h"

#include "dialects/jx/JxOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace cotangent::interp;
using namespace mlir;

namespace {

const char *kModule = R"mlir(
func.func @chain(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = jx.neg %x : tensor<256xf32>
  %1 = jx.exp %0 : tensor<256xf32>
  %2 = jx.log %1 : tensor<256xf32>
  %3 = jx.sqrt %2 : tensor<256xf32>
  return %3 : tensor<256xf32>
}
func.func @reuse(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = jx.neg %x : tensor<256xf32>
  %1 = jx.exp %0 : tensor<256xf32>
  %2 = jx.neg %1 : tensor<256xf32>
  %3 = jx.add %2, %0 : tensor<256xf32>
  return %3 : tensor<256xf32>
}
func.func @views(%x: tensor<256xf32>) -> tensor<16x16xf32> {
  %0 = jx.checkpoint_name %x, "a" : tensor<256xf32>
  %1 = jx.reshape %0 : tensor<256xf32> -> tensor<16x16xf32>
  %2 = jx.stop_gradient %1 : tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}
func.func @unused(%x: tensor<256xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.neg %y : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @caller(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = jx.remat (%x) : (tensor<2xf32>) -> tensor<2xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<2xf32>):
    %0 = func.call @double(%a) : (tensor<2xf32>) -> tensor<2xf32>
    jx.yield %0 : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
func.func private @double(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @scan(%xs: tensor<8x64xf32>) -> (tensor<64xf32>, tensor<8xf32>) {
  %h0 = jx.constant dense<0.0> : tensor<64xf32>
  %c, %ys = jx.scan (%h0, %xs) length = 8, consts = 0, carry = 1
      : (tensor<64xf32>, tensor<8x64xf32>) -> (tensor<64xf32>, tensor<8xf32>) {
  ^bb0(%h: tensor<64xf32>, %x: tensor<64xf32>):
    %0 = jx.add %h, %x : tensor<64xf32>
    %1 = jx.reduce_sum %0, axes = [0] : tensor<64xf32> -> tensor<f32>
    jx.yield %0, %1 : tensor<64xf32>, tensor<f32>
  }
  return %c, %ys : tensor<64xf32>, tensor<8xf32>
}
func.func @unsupported(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "test.mystery"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)mlir";

struct Fixture {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
  ScopedDiagnosticHandler handler{&ctx, [this](Diagnostic &d) {
                                    diagnostics += d.str() + "\n";
                                    return success();
                                  }};

  Fixture() {
    ctx.loadDialect<jx::JxDialect, func::FuncDialect>();
    ctx.allowUnregisteredDialects();
    module = parseSourceString<ModuleOp>(kModule, &ctx);
    REQUIRE(module);
  }
  func::FuncOp fn(StringRef name) { return module->lookupSymbol<func::FuncOp>(name); }
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&ctx));
  }
  Tensor filled(ArrayRef<int64_t> shape, double v) {
    Tensor t(f32(shape));
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      t.setDouble(i, v);
    return t;
  }
};

} // namespace

TEST_CASE_METHOD(Fixture, "run evaluates calls inside remat", "[interpreter][run]") {
  auto results = run(fn("caller"), {Tensor::fromDoubles(f32({2}), {1.5, -4.0})});
  REQUIRE(succeeded(results));
  REQUIRE(results->size() == 1);
  CHECK((*results)[0].getDouble(0) == 3.0);
  CHECK((*results)[0].getDouble(1) == -8.0);
}

TEST_CASE_METHOD(Fixture, "values die at their last use, so the peak stays below the total",
                 "[interpreter][memory]") {
  constexpr int64_t kBuffer = 256 * 4;
  MemoryStats chain, reuse;
  auto a = run(fn("chain"), {filled({256}, -1.0)}, &chain);
  REQUIRE(succeeded(a));
  CHECK((*a)[0].getDouble(7) == static_cast<double>(std::sqrt(std::log(std::exp(1.0f)))));
  // The argument copy and four results are allocated (5 buffers); at most two
  // are live at once.
  CHECK(chain.peakBytes == 2 * kBuffer);
  CHECK(chain.liveBytes == kBuffer);
  // %0 lives until the add: three buffers at once.
  auto b = run(fn("reuse"), {filled({256}, 0.0)}, &reuse);
  REQUIRE(succeeded(b));
  CHECK((*b)[0].getDouble(0) == -1.0); // -(exp(-0)) + -0
  CHECK(reuse.peakBytes == 3 * kBuffer);
  CHECK(reuse.peakBytes < 5 * kBuffer);
}

TEST_CASE_METHOD(Fixture, "identities and reshapes share their operand's buffer", "[interpreter][memory]") {
  MemoryStats stats;
  auto results = run(fn("views"), {filled({256}, 2.0)}, &stats);
  REQUIRE(succeeded(results));
  CHECK((*results)[0].getDouble(255) == 2.0);
  CHECK(stats.peakBytes == 1024);
  CHECK(stats.liveBytes == 1024);
}

TEST_CASE_METHOD(Fixture, "unused arguments are not counted", "[interpreter][memory]") {
  MemoryStats stats;
  auto results = run(fn("unused"), {filled({256}, 1.0), filled({2}, 3.0)}, &stats);
  REQUIRE(succeeded(results));
  CHECK((*results)[0].getDouble(1) == -3.0);
  CHECK(stats.peakBytes == 16);
  CHECK(stats.liveBytes == 8);
}

TEST_CASE_METHOD(Fixture, "scan frees each iteration's carry and slice", "[interpreter][memory]") {
  Tensor xs(f32({8, 64}));
  for (int64_t i = 0; i < 8 * 64; ++i)
    xs.setDouble(i, 1.0);
  MemoryStats stats;
  auto results = run(fn("scan"), {xs}, &stats);
  REQUIRE(succeeded(results));
  CHECK((*results)[0].getDouble(0) == 8.0);
  CHECK((*results)[1].getDouble(7) == 512.0);
  // The peak is at an add after the first iteration: xs (2048), ys (32), the
  // initial carry (held until the scan ends), the carry, the slice and the
  // new carry (256 each). The 8 iterations' carries and slices never pile up.
  CHECK(stats.peakBytes == 2048 + 32 + 4 * 256);
  CHECK(stats.liveBytes == 256 + 32);
}

TEST_CASE_METHOD(Fixture, "bad calls are diagnosed, not asserted", "[interpreter][errors]") {
  CHECK(failed(run(fn("caller"), {})));
  CHECK_THAT(diagnostics, Catch::Contains("'caller' takes 1 arguments, got 0"));
  diagnostics.clear();
  CHECK(failed(run(fn("caller"), {filled({3}, 1.0)})));
  CHECK_THAT(diagnostics, Catch::Contains("argument #0 of 'caller' has type 'tensor<2xf32>', got "
                                          "'tensor<3xf32>'"));
  diagnostics.clear();
  CHECK(failed(run(fn("unsupported"), {filled({2}, 1.0)})));
  CHECK_THAT(diagnostics, Catch::Contains("'test.mystery' is not supported by the interpreter"));
  diagnostics.clear();
  CHECK(failed(run(fn("double"), {filled({2}, 1.0), filled({2}, 1.0)})));
  CHECK_THAT(diagnostics, Catch::Contains("takes 1 arguments, got 2"));
}

// The op facts of dialects/jx/JxOpFacts.td, asked as the passes ask them:
// views, data movement, what the backward may cheaply run again, and the
// FLOPs and communicated bytes of each kind of op (nested loops multiplied,
// a cond's dearer branch, a collective's ring bytes).
#include "dialects/jx/JxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace mlir;

namespace {

constexpr const char *kProgram = R"mlir(
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %v: tensor<4xf32>, %p: tensor<i1>)
    -> tensor<4xf32> {
  %dot = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x [] {name = "dot"} : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %min = jx.reduce_min %x, axes = [1] {name = "reduce_min"} : tensor<4x8xf32> -> tensor<4xf32>
  %tanh = jx.tanh %x {name = "tanh"} : tensor<4x8xf32>
  %reshape = jx.reshape %x {name = "reshape"} : tensor<4x8xf32> -> tensor<32xf32>
  %slice = jx.slice %x, start = [0, 0], limit = [4, 2], strides = [1, 1] {name = "slice"} : tensor<4x8xf32> -> tensor<4x2xf32>
  %transpose = jx.transpose %x, perm = [1, 0] {name = "transpose"} : tensor<4x8xf32> -> tensor<8x4xf32>
  %broadcast = jx.broadcast_in_dim %v, dims = [0] {name = "broadcast"} : tensor<4xf32> -> tensor<4x8xf32>
  %iota = jx.iota dim = 0 {name = "iota"} : tensor<3xf32>
  %const = jx.constant {name = "constant"} dense<1.0> : tensor<4xf32>
  %b:2 = jx.optimization_barrier %x, %v : tensor<4x8xf32>, tensor<4xf32> {name = "barrier"}
  %psum = jx.psum %v, axis = "data" {name = "psum"} : tensor<4xf32>
  %gather = jx.all_gather %v, axis = "data"(2), dimension = 0 tiled {name = "all_gather"} : tensor<4xf32> -> tensor<8xf32>
  %outer = jx.scan(%v) length = 5, consts = 0, carry = 1 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%c: tensor<4xf32>):
    %inner = jx.scan(%c) length = 3, consts = 0, carry = 1 : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%d: tensor<4xf32>):
      %t = jx.tanh %d : tensor<4xf32>
      %s = jx.psum %t, axis = "data" : tensor<4xf32>
      jx.yield %s : tensor<4xf32>
    }
    jx.yield %inner : tensor<4xf32>
  } attributes {name = "scan"}
  %cond = jx.cond %p (%v) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = jx.neg %a : tensor<4xf32>
    jx.yield %n : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    %e = jx.exp %a : tensor<4xf32>
    %l = jx.log %e : tensor<4xf32>
    jx.yield %l : tensor<4xf32>
  } attributes {name = "cond"}
  return %cond : tensor<4xf32>
}
)mlir";

struct Parsed {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::map<std::string, Operation *> ops; ///< by their `name` attribute

  Parsed() {
    ctx.loadDialect<jx::JxDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kProgram, &ctx);
    REQUIRE(module);
    module->walk([&](Operation *op) {
      if (auto name = op->getAttrOfType<StringAttr>("name"))
        ops[name.str()] = op;
    });
  }
};

} // namespace

TEST_CASE("op facts: views, data movement and what the backward may run again",
          "[dialect][facts]") {
  Parsed p;
  auto &ops = p.ops;
  for (const char *view : {"reshape", "barrier"}) {
    INFO(view);
    CHECK(jx::isView(ops[view]));
    CHECK(jx::mayBeView(ops[view]));
    CHECK(jx::movesData(ops[view]));
  }
  CHECK_FALSE(jx::isView(ops["slice"]));
  CHECK(jx::mayBeView(ops["slice"]));
  for (const char *copy : {"transpose", "broadcast"}) {
    INFO(copy);
    CHECK_FALSE(jx::mayBeView(ops[copy]));
    CHECK(jx::movesData(ops[copy]));
  }
  for (const char *arithmetic : {"dot", "tanh", "reduce_min", "psum"})
    CHECK_FALSE(jx::movesData(ops[arithmetic]));
  // A barrier's results are views of the operands at their positions.
  CHECK(jx::viewSourceOf(ops["barrier"]->getResult(1)) == ops["barrier"]->getOperand(1));
  CHECK(jx::viewSourceOf(ops["reshape"]->getResult(0)) == ops["reshape"]->getOperand(0));

  for (const char *cheap :
       {"tanh", "reshape", "slice", "transpose", "broadcast", "iota", "constant"}) {
    INFO(cheap);
    CHECK(jx::isCheapToRecompute(ops[cheap]));
  }
  // Dots are the policies' business; a barrier and loops are not run again.
  for (const char *dear : {"dot", "reduce_min", "barrier", "scan", "cond", "psum"}) {
    INFO(dear);
    CHECK_FALSE(jx::isCheapToRecompute(ops[dear]));
  }
  CHECK(jx::isRebuiltFromOperand(ops["broadcast"]));
  CHECK(jx::isRebuiltFromOperand(ops["reshape"]));
  CHECK_FALSE(jx::isRebuiltFromOperand(ops["transpose"]));
  CHECK_FALSE(jx::isRebuiltFromOperand(ops["slice"]));

  // Other dialects' ops have none of them.
  Operation *ret = p.module->lookupSymbol<func::FuncOp>("f").getBody().front().getTerminator();
  CHECK_FALSE(jx::isView(ret));
  CHECK_FALSE(jx::isCheapToRecompute(ret));
  CHECK(jx::estimateFlops(ret) == 0);
}

TEST_CASE("op facts: FLOPs and communicated bytes", "[dialect][facts]") {
  Parsed p;
  auto &ops = p.ops;
  CHECK(jx::estimateFlops(ops["dot"]) == 2 * 4 * 3 * 8); // 2 per multiply-add
  CHECK(jx::estimateFlops(ops["reduce_min"]) == 32);     // each operand element
  CHECK(jx::estimateFlops(ops["tanh"]) == 32);           // each result element
  for (const char *free : {"reshape", "slice", "transpose", "broadcast", "iota", "constant",
                           "barrier", "psum", "all_gather"}) {
    INFO(free);
    CHECK(jx::estimateFlops(ops[free]) == 0);
  }
  // psum: a ring's reduce-scatter and all-gather, twice the operand; a
  // tiled all_gather of 2 ranks: the other rank's half of the result.
  CHECK(jx::estimateCommunicatedBytes(ops["psum"]) == 2 * 16);
  CHECK(jx::estimateCommunicatedBytes(ops["all_gather"]) == 16);
  CHECK(jx::estimateCommunicatedBytes(ops["tanh"]) == 0);
  // Nested scans multiply: 5 x 3 trips of a tanh of 4 elements and a psum.
  CHECK(jx::estimateFlops(ops["scan"]) == 5 * 3 * 4);
  CHECK(jx::estimateCommunicatedBytes(ops["scan"]) == 5 * 3 * 2 * 16);
  // A cond costs its dearer branch: exp and log (8), not neg (4).
  CHECK(jx::estimateFlops(ops["cond"]) == 8);
}

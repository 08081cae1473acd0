// Every jx op compiled for the CPU (jx-lower-to-llvm + JIT) and compared with
// the reference interpreter on seeded arguments, per element type.
#include "test/unit/cpu/Compare.h"
#include "test/support/ProgramText.h"

#include <string>
#include <vector>

using namespace cotangent;
using namespace cotangent::test;

namespace {

struct Case {
  std::string name;
  std::string text; ///< a func.func named `name`
  bool positive = false;
};

std::string unary(const std::string &op, const std::string &type) {
  std::string t = "tensor<3x4x" + type + ">";
  return "func.func @" + op + "_" + type + "(%a: " + t + ") -> " + t + " {\n  %0 = jx." + op +
         " %a : " + t + "\n  return %0 : " + t + "\n}\n";
}
std::string integerPow(const std::string &name, const std::string &type, int y) {
  std::string t = "tensor<3x4x" + type + ">";
  return "func.func @" + name + "(%a: " + t + ") -> " + t + " {\n  %0 = jx.integer_pow %a, y = " +
         std::to_string(y) + " : " + t + "\n  return %0 : " + t + "\n}\n";
}
std::string binary(const std::string &op, const std::string &type) {
  std::string t = "tensor<3x4x" + type + ">";
  return "func.func @" + op + "_" + type + "(%a: " + t + ", %b: " + t + ") -> " + t +
         " {\n  %0 = jx." + op + " %a, %b : " + t + "\n  return %0 : " + t + "\n}\n";
}
std::string compare(const std::string &op, const std::string &type) {
  std::string t = "tensor<3x4x" + type + ">";
  return "func.func @" + op + "_" + type + "(%a: " + t + ", %b: " + t +
         ") -> tensor<3x4xi1> {\n  %0 = jx." + op + " %a, %b : " + t +
         "\n  return %0 : tensor<3x4xi1>\n}\n";
}

void runCases(const std::vector<Case> &cases) {
  std::string text;
  for (const Case &c : cases)
    text += c.text;
  auto module = parse(text);
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  for (const Case &c : cases) {
    {
      INFO("case " << c.name);
      auto fn = module->lookupSymbol<mlir::func::FuncOp>(c.name);
      REQUIRE(fn);
      for (unsigned seed : {1u, 2u}) {
        auto args = randomArgs(fn, seed, c.positive);
        compareWithInterpreter(**compiled, *module, c.name, args);
      }
    }
  }
}

} // namespace

TEST_CASE("CPU elementwise ops match the interpreter", "[cpu][ops][numerics]") {
  std::vector<Case> cases;
  for (std::string op : {"sin", "cos", "tan", "exp", "expm1", "erf", "erfc", "tanh", "logistic", "floor", "ceil",
                         "neg", "abs", "sign", "stop_gradient"})
    for (std::string type : {"f32", "f64"})
      cases.push_back({op + "_" + type, unary(op, type)});
  for (std::string op : {"log", "log1p", "sqrt", "rsqrt"})
    for (std::string type : {"f32", "f64"})
      cases.push_back({op + "_" + type, unary(op, type), true});
  for (std::string op : {"neg", "abs", "sign", "not"})
    cases.push_back({op + "_i32", unary(op, "i32")});
  cases.push_back({"not_i1", unary("not", "i1")});
  cases.push_back({"integer_pow_f32", integerPow("integer_pow_f32", "f32", 3)});
  cases.push_back({"integer_pow_neg_f32", integerPow("integer_pow_neg_f32", "f32", -2), true});
  cases.push_back({"integer_pow_i32", integerPow("integer_pow_i32", "i32", 3)});
  for (std::string op : {"add", "sub", "mul", "div", "max", "min", "rem"})
    for (std::string type : {"f32", "f64", "i32", "i64"})
      cases.push_back({op + "_" + type, binary(op, type)});
  for (std::string type : {"f32", "f64"}) {
    cases.push_back({"pow_" + type, binary("pow", type), true});
    cases.push_back({"atan2_" + type, binary("atan2", type)});
  }
  for (std::string op : {"and", "or"})
    for (std::string type : {"i32", "i1"})
      cases.push_back({op + "_" + type, binary(op, type)});
  for (std::string op : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (std::string type : {"f32", "i32", "i1"})
      cases.push_back({op + "_" + type, compare(op, type)});
  // f16 / bf16 compute in f32 and round each result, as the interpreter does.
  for (std::string type : {"f16", "bf16"}) {
    cases.push_back({"add_" + type, binary("add", type)});
    cases.push_back({"exp_" + type, unary("exp", type)});
  }
  cases.push_back({"select_n_i1", R"(
func.func @select_n_i1(%p: tensor<3x4xi1>, %a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = jx.select_n %p, %a, %b : tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
)"});
  cases.push_back({"select_n_i32", R"(
func.func @select_n_i32(%i: tensor<i32>, %a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = jx.select_n %i, %a, %b, %c : tensor<i32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
)"});
  cases.push_back({"convert", R"(
func.func @convert(%a: tensor<3x4xf32>, %i: tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<3x4xf64>, tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xi64>, tensor<4xi32>, tensor<3x4xf16>) {
  %0 = jx.convert_element_type %a : tensor<3x4xf32> -> tensor<3x4xi32>
  %1 = jx.convert_element_type %a : tensor<3x4xf32> -> tensor<3x4xf64>
  %2 = jx.convert_element_type %i : tensor<3x4xi32> -> tensor<3x4xi1>
  %3 = jx.convert_element_type %i : tensor<3x4xi32> -> tensor<3x4xf32>
  %4 = jx.convert_element_type %i : tensor<3x4xi32> -> tensor<3x4xi64>
  %big = jx.constant dense<[3.0e9, -3.0e9, 0x7FC00000, -2.5]> : tensor<4xf32>
  %5 = jx.convert_element_type %big : tensor<4xf32> -> tensor<4xi32>
  %6 = jx.convert_element_type %a : tensor<3x4xf32> -> tensor<3x4xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x4xi32>, tensor<3x4xf64>, tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xi64>, tensor<4xi32>, tensor<3x4xf16>
}
)"});
  // The PRNG's bit ops: threefry on random words (their random values in
  // [-4, 4] multiplied into the full 32-bit range), xor, logical shifts by
  // -4..4 (negative: 0), bitcasts both ways.
  cases.push_back({"prng_bits", R"(
func.func @prng_bits(%a: tensor<3x4xi32>, %b: tensor<3x4xi32>, %s: tensor<3x4xi32>, %w: tensor<3x4xi64>, %t: tensor<3x4xi64>, %f: tensor<3x4xf64>) -> (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi64>, tensor<3x4xf32>, tensor<3x4xi64>, tensor<3x4xi1>) {
  %m = jx.constant dense<715827883> : tensor<3x4xi32>
  %ka = jx.mul %a, %m : tensor<3x4xi32>
  %kb = jx.mul %b, %m : tensor<3x4xi32>
  %y0, %y1 = jx.threefry2x32 %ka, %kb, %kb, %ka : tensor<3x4xi32>
  %x = jx.xor %y0, %y1 : tensor<3x4xi32>
  %sh = jx.shift_right_logical %y0, %s : tensor<3x4xi32>
  %shw = jx.shift_right_logical %w, %t : tensor<3x4xi64>
  %bf = jx.bitcast_convert_type %x : tensor<3x4xi32> -> tensor<3x4xf32>
  %bi = jx.bitcast_convert_type %f : tensor<3x4xf64> -> tensor<3x4xi64>
  %p = jx.constant dense<true> : tensor<3x4xi1>
  %q = jx.lt %a, %b : tensor<3x4xi32>
  %bx = jx.xor %p, %q : tensor<3x4xi1>
  return %y1, %x, %sh, %shw, %bf, %bi, %bx : tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi64>, tensor<3x4xf32>, tensor<3x4xi64>, tensor<3x4xi1>
}
)"});
  runCases(cases);
}

TEST_CASE("CPU contractions and reductions match the interpreter", "[cpu][ops][numerics]") {
  std::vector<Case> cases = {
      {"matmul", R"(
func.func @matmul(%a: tensor<5x4xf32>, %b: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
})"},
      {"batched", R"(
func.func @batched(%a: tensor<4x2x5xf64>, %b: tensor<3x2x4xf64>) -> tensor<2x5x3xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [0] x [2], batch_dims = [1] x [1] : tensor<4x2x5xf64>, tensor<3x2x4xf64> -> tensor<2x5x3xf64>
  return %0 : tensor<2x5x3xf64>
})"},
      {"dot_i32", R"(
func.func @dot_i32(%a: tensor<3x4xi32>, %b: tensor<4xi32>) -> tensor<3xi32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x4xi32>, tensor<4xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
})"},
      {"dot_preferred", R"(
func.func @dot_preferred(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>) -> tensor<3x2xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = f64} : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
})"},
      {"reduce", R"(
func.func @reduce(%a: tensor<3x4x5xf32>, %i: tensor<3x4xi32>) -> (tensor<4xf32>, tensor<3x5xf32>, tensor<3xf32>, tensor<f32>, tensor<4xi32>, tensor<3xi32>) {
  %0 = jx.reduce_sum %a, axes = [0, 2] : tensor<3x4x5xf32> -> tensor<4xf32>
  %1 = jx.reduce_max %a, axes = [1] : tensor<3x4x5xf32> -> tensor<3x5xf32>
  %2 = jx.reduce_min %a, axes = [1, 2] : tensor<3x4x5xf32> -> tensor<3xf32>
  %3 = jx.reduce_prod %a, axes = [0, 1, 2] : tensor<3x4x5xf32> -> tensor<f32>
  %4 = jx.reduce_max %i, axes = [0] : tensor<3x4xi32> -> tensor<4xi32>
  %5 = jx.reduce_prod %i, axes = [1] : tensor<3x4xi32> -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<3x5xf32>, tensor<3xf32>, tensor<f32>, tensor<4xi32>, tensor<3xi32>
})"},
      {"argmax_cumsum", R"(
func.func @argmax_cumsum(%a: tensor<3x4xf32>, %i: tensor<3x4xi32>) -> (tensor<3xi32>, tensor<4xi64>, tensor<3x4xf32>, tensor<3x4xi32>) {
  %0 = jx.argmax %a, axis = 1 : tensor<3x4xf32> -> tensor<3xi32>
  %1 = jx.argmax %i, axis = 0 : tensor<3x4xi32> -> tensor<4xi64>
  %2 = jx.cumsum %a, axis = 1 : tensor<3x4xf32>
  %3 = jx.cumsum %i, axis = 0 reverse : tensor<3x4xi32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<4xi64>, tensor<3x4xf32>, tensor<3x4xi32>
})"},
  };
  runCases(cases);
}

TEST_CASE("CPU shape ops match the interpreter", "[cpu][ops][numerics]") {
  std::vector<Case> cases = {
      {"shapes", R"(
func.func @shapes(%a: tensor<2x3x4xf32>, %v: tensor<3xf32>, %s: tensor<1x3xf32>) -> (tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<5x3xf32>, tensor<1x2x2xf32>) {
  %0 = jx.transpose %a, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = jx.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %2 = jx.broadcast_in_dim %v, dims = [1] : tensor<3xf32> -> tensor<2x3x4xf32>
  %3 = jx.squeeze %s, dims = [0] : tensor<1x3xf32> -> tensor<3xf32>
  %4 = jx.expand_dims %v, dims = [1] : tensor<3xf32> -> tensor<3x1xf32>
  %5 = jx.broadcast_in_dim %s, dims = [0, 1] : tensor<1x3xf32> -> tensor<5x3xf32>
  %6 = jx.slice %a, start = [1, 0, 1], limit = [2, 3, 4], strides = [1, 2, 2] : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<5x3xf32>, tensor<1x2x2xf32>
})"},
      {"slices", R"(
func.func @slices(%a: tensor<6x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>, %j: tensor<i64>, %p: tensor<f32>) -> (tensor<2x3xf32>, tensor<6x4xf32>, tensor<9x7xf32>, tensor<8x4xf32>, tensor<2x3xi32>, tensor<4xf32>) {
  %0 = jx.dynamic_slice %a[%i, %j], sizes = [2, 3] : tensor<6x4xf32>, tensor<i32>, tensor<i64> -> tensor<2x3xf32>
  %1 = jx.dynamic_update_slice %a, %u[%i, %j] : tensor<6x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i64>
  %2 = jx.pad %a, %p, low = [2, -1], high = [1, 1], interior = [0, 1] : tensor<6x4xf32>, tensor<f32> -> tensor<9x7xf32>
  %w = jx.pad %u, %p, low = [0, 0], high = [0, 2], interior = [0, 0] : tensor<2x2xf32>, tensor<f32> -> tensor<2x4xf32>
  %3 = jx.concatenate(%a, %w) dim = 0 : tensor<6x4xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %4 = jx.iota dim = 1 : tensor<2x3xi32>
  %c = jx.constant dense<[1.5, -2.0, 0.0, 4.25]> : tensor<4xf32>
  return %0, %1, %2, %3, %4, %c : tensor<2x3xf32>, tensor<6x4xf32>, tensor<9x7xf32>, tensor<8x4xf32>, tensor<2x3xi32>, tensor<4xf32>
})"},
  };
  // take and scatter_add: the random indices in [-4, 4] repeat and fall
  // outside [0, 3) on both sides (clamped); f32, f64, i32, both axes.
  for (std::string t : {"f32", "f64", "i32"})
    cases.push_back({"gather_" + t, cotangent::testing::subst(R"(
func.func @gather_$T(%a: tensor<3x5x$T>, %i: tensor<7xi32>, %j: tensor<4xi64>, %u: tensor<7x5x$T>, %v: tensor<3x4x$T>) -> (tensor<7x5x$T>, tensor<3x4x$T>, tensor<3x5x$T>, tensor<3x5x$T>) {
  %0 = jx.take %a[%i], axis = 0 : tensor<3x5x$T>, tensor<7xi32> -> tensor<7x5x$T>
  %1 = jx.take %a[%j], axis = 1 : tensor<3x5x$T>, tensor<4xi64> -> tensor<3x4x$T>
  %2 = jx.scatter_add %a[%i], %u, axis = 0 : tensor<3x5x$T>, tensor<7xi32>, tensor<7x5x$T>
  %3 = jx.scatter_add %a[%j], %v, axis = 1 : tensor<3x5x$T>, tensor<4xi64>, tensor<3x4x$T>
  return %0, %1, %2, %3 : tensor<7x5x$T>, tensor<3x4x$T>, tensor<3x5x$T>, tensor<3x5x$T>
})", {{"T", t}})});
  runCases(cases);
}

TEST_CASE("CPU control flow and remat structure match the interpreter", "[cpu][ops][numerics]") {
  std::vector<Case> cases = {
      {"scan", R"(
func.func @scan(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>, tensor<4xf32>) {
  %c, %ys = jx.scan (%w, %h0, %xs) length = 3, consts = 1, carry = 1
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    %2 = jx.tanh %1 : tensor<4xf32>
    jx.yield %2, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %r = jx.scan (%h0, %xs) length = 3, consts = 0, carry = 1 reverse
      : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.mul %h, %x : tensor<4xf32>
    jx.yield %0 : tensor<4xf32>
  }
  return %c, %ys, %r : tensor<4xf32>, tensor<3x4xf32>, tensor<4xf32>
})"},
      {"branches", R"(
func.func @branches(%p: tensor<i1>, %k: tensor<i32>, %x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<5xf32>) -> tensor<5xf32> {
  ^bb0(%a: tensor<5xf32>):
    %0 = jx.neg %a : tensor<5xf32>
    jx.yield %0 : tensor<5xf32>
  }, {
  ^bb0(%a: tensor<5xf32>):
    %0 = jx.exp %a : tensor<5xf32>
    jx.yield %0 : tensor<5xf32>
  }
  %s = jx.cond %k (%x) : tensor<i32>, (tensor<5xf32>) -> tensor<5xf32> {
  ^bb0(%a: tensor<5xf32>):
    jx.yield %a : tensor<5xf32>
  }, {
  ^bb0(%a: tensor<5xf32>):
    %0 = jx.sin %a : tensor<5xf32>
    jx.yield %0 : tensor<5xf32>
  }, {
  ^bb0(%a: tensor<5xf32>):
    %0 = jx.cos %a : tensor<5xf32>
    jx.yield %0 : tensor<5xf32>
  }
  return %r, %s : tensor<5xf32>, tensor<5xf32>
})"},
      {"loop", R"(
func.func @loop(%i0: tensor<i32>, %x: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %r:2 = jx.while (%i0, %x) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) cond {
  ^bb0(%i: tensor<i32>, %v: tensor<3xf32>):
    %n = jx.constant dense<6> : tensor<i32>
    %c = jx.lt %i, %n : tensor<i32>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<3xf32>):
    %one = jx.constant dense<1> : tensor<i32>
    %j = jx.add %i, %one : tensor<i32>
    %w = jx.cos %v : tensor<3xf32>
    jx.yield %j, %w : tensor<i32>, tensor<3xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<3xf32>
})"},
      {"structure", R"(
func.func @structure(%x: tensor<3xf32>, %y: tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %r = jx.remat (%x) : (tensor<3xf32>) -> tensor<3xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<3xf32>):
    %0 = jx.sin %a : tensor<3xf32>
    %1 = jx.checkpoint_name %0, "s" : tensor<3xf32>
    jx.yield %1 : tensor<3xf32>
  }
  %b:2 = jx.optimization_barrier %r, %y : tensor<3xf32>, tensor<2xf32>
  %c = jx.cos %b#0 : tensor<3xf32>
  return %c, %b#1 : tensor<3xf32>, tensor<2xf32>
})"},
  };
  runCases(cases);
}

// The seed examples under remat: finite-difference checks with and without
// --jx-remat, gradients bit-identical through the interpreter across every
// policy and equal to the VJP without remat, and the residual counts of
// recursive checkpointing over a chain of sins.
#include "AutodiffUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace autodiff;
using mlir::cotangent::Residual;

namespace {

/// g(W, x) = sin(W @ x); f = g . g . g with W1[5,4], W2[6,5], W3[7,6], x[4];
/// the g outputs are named 'a', 'b', 'c'. Three placements of the remat.
const char *kEachG = R"(
func.func @f(%W1: tensor<5x4xf64>, %W2: tensor<6x5xf64>, %W3: tensor<7x6xf64>, %x: tensor<4xf64>) -> tensor<7xf64> {
  %1 = jx.remat(%W1, %x) : (tensor<5x4xf64>, tensor<4xf64>) -> tensor<5xf64> policy = #jx.policy<$P> {
  ^bb0(%w: tensor<5x4xf64>, %h: tensor<4xf64>):
    %a = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf64>, tensor<4xf64> -> tensor<5xf64>
    %b = jx.sin %a : tensor<5xf64>
    %n = jx.checkpoint_name %b, "a" : tensor<5xf64>
    jx.yield %n : tensor<5xf64>
  }
  %2 = jx.remat(%W2, %1) : (tensor<6x5xf64>, tensor<5xf64>) -> tensor<6xf64> policy = #jx.policy<$P> {
  ^bb0(%w: tensor<6x5xf64>, %h: tensor<5xf64>):
    %a = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<6x5xf64>, tensor<5xf64> -> tensor<6xf64>
    %b = jx.sin %a : tensor<6xf64>
    %n = jx.checkpoint_name %b, "b" : tensor<6xf64>
    jx.yield %n : tensor<6xf64>
  }
  %3 = jx.remat(%W3, %2) : (tensor<7x6xf64>, tensor<6xf64>) -> tensor<7xf64> policy = #jx.policy<$P> {
  ^bb0(%w: tensor<7x6xf64>, %h: tensor<6xf64>):
    %a = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<7x6xf64>, tensor<6xf64> -> tensor<7xf64>
    %b = jx.sin %a : tensor<7xf64>
    %n = jx.checkpoint_name %b, "c" : tensor<7xf64>
    jx.yield %n : tensor<7xf64>
  }
  return %3 : tensor<7xf64>
}
)";

/// The whole f under $P, with g1 and g2 nested in regions under $Q.
const char *kNestedF = R"(
func.func @f(%W1: tensor<5x4xf64>, %W2: tensor<6x5xf64>, %W3: tensor<7x6xf64>, %x: tensor<4xf64>) -> tensor<7xf64> {
  %r = jx.remat(%W1, %W2, %W3, %x) : (tensor<5x4xf64>, tensor<6x5xf64>, tensor<7x6xf64>, tensor<4xf64>) -> tensor<7xf64> policy = #jx.policy<$P> {
  ^bb0(%w1: tensor<5x4xf64>, %w2: tensor<6x5xf64>, %w3: tensor<7x6xf64>, %h: tensor<4xf64>):
    %1 = jx.remat(%w1, %h) : (tensor<5x4xf64>, tensor<4xf64>) -> tensor<5xf64> policy = #jx.policy<$Q> {
    ^bb0(%w: tensor<5x4xf64>, %v: tensor<4xf64>):
      %a = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf64>, tensor<4xf64> -> tensor<5xf64>
      %b = jx.sin %a : tensor<5xf64>
      %n = jx.checkpoint_name %b, "a" : tensor<5xf64>
      jx.yield %n : tensor<5xf64>
    }
    %2 = jx.remat(%w2, %1) : (tensor<6x5xf64>, tensor<5xf64>) -> tensor<6xf64> policy = #jx.policy<$Q> {
    ^bb0(%w: tensor<6x5xf64>, %v: tensor<5xf64>):
      %a = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<6x5xf64>, tensor<5xf64> -> tensor<6xf64>
      %b = jx.sin %a : tensor<6xf64>
      %n = jx.checkpoint_name %b, "b" : tensor<6xf64>
      jx.yield %n : tensor<6xf64>
    }
    %a = jx.dot_general %w3, %2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<7x6xf64>, tensor<6xf64> -> tensor<7xf64>
    %b = jx.sin %a : tensor<7xf64>
    %n = jx.checkpoint_name %b, "c" : tensor<7xf64>
    jx.yield %n : tensor<7xf64>
  }
  return %r : tensor<7xf64>
}
)";

/// An MLP block dense -> relu (max(x, 0)) -> dense under remat, then a squared loss.
const char *kMlp = R"(
func.func @f(%x: tensor<3x4xf64>, %W1: tensor<4x8xf64>, %b1: tensor<8xf64>, %W2: tensor<8x2xf64>, %b2: tensor<2xf64>, %y: tensor<3x2xf64>) -> tensor<f64> {
  %o = jx.remat(%x, %W1, %b1, %W2, %b2) : (tensor<3x4xf64>, tensor<4x8xf64>, tensor<8xf64>, tensor<8x2xf64>, tensor<2xf64>) -> tensor<3x2xf64> policy = #jx.policy<$P> {
  ^bb0(%in: tensor<3x4xf64>, %w1: tensor<4x8xf64>, %c1: tensor<8xf64>, %w2: tensor<8x2xf64>, %c2: tensor<2xf64>):
    %0 = jx.dot_general %in, %w1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x4xf64>, tensor<4x8xf64> -> tensor<3x8xf64>
    %1 = jx.broadcast_in_dim %c1, dims = [1] : tensor<8xf64> -> tensor<3x8xf64>
    %2 = jx.add %0, %1 : tensor<3x8xf64>
    %z = jx.constant dense<0.0> : tensor<3x8xf64>
    %3 = jx.max %2, %z : tensor<3x8xf64>
    %4 = jx.checkpoint_name %3, "a" : tensor<3x8xf64>
    %5 = jx.dot_general %4, %w2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x8xf64>, tensor<8x2xf64> -> tensor<3x2xf64>
    %6 = jx.broadcast_in_dim %c2, dims = [1] : tensor<2xf64> -> tensor<3x2xf64>
    %7 = jx.add %5, %6 : tensor<3x2xf64>
    %8 = jx.checkpoint_name %7, "b" : tensor<3x2xf64>
    jx.yield %8 : tensor<3x2xf64>
  }
  %d = jx.sub %o, %y : tensor<3x2xf64>
  %sq = jx.integer_pow %d, y = 2 : tensor<3x2xf64>
  %l = jx.reduce_sum %sq, axes = [0, 1] : tensor<3x2xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)";

/// The seed's loss/predict: layer(W, x) = sin(W @ x) for W1, W2 with the layer
/// outputs named, then W3 @ x, loss = sum((predict - y)^2); the whole loss
/// under jax.checkpoint(loss, policy).
const char *kLossPredict = R"(
func.func @f(%W1: tensor<4x4xf64>, %W2: tensor<4x4xf64>, %W3: tensor<4x4xf64>, %x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %l = jx.remat(%W1, %W2, %W3, %x, %y) : (tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<f64> policy = #jx.policy<$P> {
  ^bb0(%w1: tensor<4x4xf64>, %w2: tensor<4x4xf64>, %w3: tensor<4x4xf64>, %h: tensor<4xf64>, %t: tensor<4xf64>):
    %0 = jx.dot_general %w1, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf64>, tensor<4xf64> -> tensor<4xf64>
    %1 = jx.sin %0 : tensor<4xf64>
    %2 = jx.checkpoint_name %1, "a" : tensor<4xf64>
    %3 = jx.dot_general %w2, %2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf64>, tensor<4xf64> -> tensor<4xf64>
    %4 = jx.sin %3 : tensor<4xf64>
    %5 = jx.checkpoint_name %4, "b" : tensor<4xf64>
    %6 = jx.dot_general %w3, %5, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf64>, tensor<4xf64> -> tensor<4xf64>
    %7 = jx.sub %6, %t : tensor<4xf64>
    %8 = jx.integer_pow %7, y = 2 : tensor<4xf64>
    %9 = jx.reduce_sum %8, axes = [0] : tensor<4xf64> -> tensor<f64>
    jx.yield %9 : tensor<f64>
  }
  return %l : tensor<f64>
}
)";

/// Emits rc(funs) applied to `in`, as the seed's recursive_checkpoint does
/// over `n` sins: one sin; sin(sin(x)) for two; otherwise
/// f1(checkpoint(f2)(x)) with f1 = rc(first half), f2 = rc(second half).
std::string emitRecursive(std::ostringstream &os, int &next, int n, const std::string &in) {
  auto fresh = [&](const char *prefix) { return "%" + std::string(prefix) + std::to_string(next++); };
  if (n == 1) {
    std::string v = fresh("s");
    os << "  " << v << " = jx.sin " << in << " : tensor<f64>\n";
    return v;
  }
  if (n == 2)
    return emitRecursive(os, next, 1, emitRecursive(os, next, 1, in));
  int first = n / 2, second = n - n / 2;
  std::string r = fresh("r"), arg = fresh("a");
  os << "  " << r << " = jx.remat(" << in
     << ") : (tensor<f64>) -> tensor<f64> policy = #jx.policy<$P> {\n  ^bb0(" << arg
     << ": tensor<f64>):\n";
  std::string inner = emitRecursive(os, next, second, arg);
  os << "  jx.yield " << inner << " : tensor<f64>\n  }\n";
  return emitRecursive(os, next, first, r);
}

std::string recursiveCheckpoint(int depth) {
  std::ostringstream body;
  int next = 0;
  std::string out = emitRecursive(body, next, depth, "%x");
  return "func.func @f(%x: tensor<f64>) -> tensor<f64> {\n" + body.str() + "  return " + out +
         " : tensor<f64>\n}\n";
}

/// The plain chain sin(sin(...(x))) of `depth` sins, no remat.
std::string chain(int depth) {
  std::ostringstream os;
  os << "func.func @f(%x: tensor<f64>) -> tensor<f64> {\n";
  std::string prev = "%x";
  for (int i = 0; i < depth; ++i) {
    os << "  %s" << i << " = jx.sin " << prev << " : tensor<f64>\n";
    prev = "%s" + std::to_string(i);
  }
  os << "  return " << prev << " : tensor<f64>\n}\n";
  return os.str();
}

bool sameResiduals(const std::vector<Residual> &a, const std::vector<Residual> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].type != b[i].type || a[i].what != b[i].what ||
        a[i].memoryKind != b[i].memoryKind)
      return false;
  return true;
}

std::string describe(const std::vector<Residual> &residuals) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::cotangent::printResiduals(residuals, os);
  return text;
}

struct Baseline {
  std::vector<Tensor> inputs, cotangents;
  VjpResult vjp;
  std::vector<Residual> residuals;
};

/// The VJP without --jx-remat of `source` (policies do not matter then).
Baseline baseline(const std::string &source, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto module = parse(source);
  Baseline b;
  for (auto type : argumentTypes(*module, "f"))
    b.inputs.push_back(random(type, rng));
  for (auto type : resultTypes(*module, "f"))
    b.cotangents.push_back(random(type, rng, -1, 1));
  std::vector<Tensor> primal = call(*module, "f", b.inputs); // runs the remat regions
  differentiate(*module, false);
  b.vjp = runVjp(*module, b.inputs, b.cotangents);
  for (size_t i = 0; i < primal.size(); ++i)
    REQUIRE(bitIdentical(primal[i], b.vjp.outputs[i]));
  b.residuals = residualsOf(*module);
  return b;
}

/// --jx-vjp --jx-remat on `source` must give @f_vjp outputs and gradients
/// bit-identical to `base`'s; returns the residuals it saves.
std::vector<Residual> checkBitIdentical(const std::string &source, const Baseline &base) {
  auto module = parse(source);
  differentiate(*module, true);
  VjpResult r = runVjp(*module, base.inputs, base.cotangents);
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    INFO("output " << i << ": " << show(r.outputs[i]) << " vs " << show(base.vjp.outputs[i]));
    CHECK(bitIdentical(r.outputs[i], base.vjp.outputs[i]));
  }
  for (size_t i = 0; i < r.gradients.size(); ++i) {
    INFO("gradient " << i << ": " << show(r.gradients[i]) << " vs " << show(base.vjp.gradients[i]));
    CHECK(bitIdentical(r.gradients[i], base.vjp.gradients[i]));
  }
  return residualsOf(*module);
}

/// Every policy on every region marked $P: bit-identical gradients, and
/// everything_saveable saves exactly what no remat saves.
void checkAllPolicies(const std::string &source, uint64_t seed) {
  Baseline base = baseline(subst(source, {{"P", "nothing_saveable"}}), seed);
  for (const std::string &policy : allPolicies()) {
    INFO("policy " << policy);
    std::vector<Residual> saved = checkBitIdentical(subst(source, {{"P", policy}}), base);
    if (policy == "everything_saveable") {
      INFO("with remat:\n" << describe(saved) << "without:\n" << describe(base.residuals));
      CHECK(sameResiduals(saved, base.residuals));
    }
    if (policy.find("offload") == std::string::npos)
      for (const Residual &r : saved)
        CHECK(r.memoryKind.empty());
  }
}

void checkFiniteDifferences(const std::string &source, uint64_t seed) {
  for (std::string policy : {"nothing_saveable", "dots_saveable", "save_only_these_names(\"a\")"}) {
    for (bool remat : {false, true}) {
      INFO("policy " << policy << " remat " << remat);
      GradCheck options;
      options.seed = seed;
      options.remat = remat;
      checkGradients(subst(source, {{"P", policy}}), options);
    }
  }
}

} // namespace

TEST_CASE("seed g/f: finite differences with and without remat", "[autodiff][remat][seed]") {
  checkFiniteDifferences(kEachG, 1);
  checkFiniteDifferences(subst(kNestedF, {{"Q", "nothing_saveable"}}), 2);
  checkFiniteDifferences(chain(3), 3);
}

TEST_CASE("seed g/f: residuals without remat and under nothing_saveable", "[autodiff][remat][seed]") {
  // Without remat: W1, W2, W3, x, cos[5], sin[5], cos[6], sin[6], cos[7]
  // (sin[5] and sin[6] are named 'a' and 'b'; cos is computed right after
  // sin, before the name, so it comes first in forward order).
  auto plain = parse(subst(kEachG, {{"P", "nothing_saveable"}}));
  differentiate(*plain, false);
  std::vector<Residual> all = residualsOf(*plain);
  INFO(describe(all));
  REQUIRE(all.size() == 9);
  CHECK(all[4].what == "cos");
  CHECK(all[5].what == "a");
  CHECK(all[7].what == "b");
  CHECK(all[8].type == "f64[7]");
  // Each g checkpointed: the arguments and the named g outputs 'a', 'b'.
  auto each = parse(subst(kEachG, {{"P", "nothing_saveable"}}));
  differentiate(*each, true);
  std::vector<Residual> some = residualsOf(*each);
  INFO(describe(some));
  REQUIRE(some.size() == 6);
  CHECK(some[4].what == "a");
  CHECK(some[5].what == "b");
}

TEST_CASE("seed g/f: bit-identical gradients across every policy", "[autodiff][remat][seed]") {
  SECTION("each g checkpointed") { checkAllPolicies(kEachG, 10); }
  SECTION("nested: every pair of outer and inner policies") {
    Baseline base = baseline(subst(kNestedF, {{"P", "nothing_saveable"}, {"Q", "nothing_saveable"}}), 11);
    for (const std::string &outer : allPolicies())
      for (const std::string &inner : allPolicies()) {
        INFO("outer " << outer << " inner " << inner);
        std::vector<Residual> saved =
            checkBitIdentical(subst(kNestedF, {{"P", outer}, {"Q", inner}}), base);
        if (outer == "everything_saveable" && inner == "everything_saveable")
          CHECK(sameResiduals(saved, base.residuals));
        // An outer nothing_saveable keeps only the region's inputs (the arguments).
        if (outer == "nothing_saveable")
          for (const Residual &r : saved)
            CHECK(r.kind == Residual::Kind::Argument);
      }
  }
}

TEST_CASE("seed MLP with relu: finite differences and policies", "[autodiff][remat][seed]") {
  checkFiniteDifferences(kMlp, 20);
  checkAllPolicies(kMlp, 21);
  // value_and_grad exists for the scalar loss and agrees with the vjp seeded by 1.
  auto module = parse(subst(kMlp, {{"P", "dots_saveable"}}));
  differentiate(*module, true);
  std::mt19937_64 rng(22);
  std::vector<Tensor> inputs;
  for (auto type : argumentTypes(*module, "f"))
    inputs.push_back(random(type, rng));
  std::vector<Tensor> vg = call(*module, "f_value_and_grad", inputs);
  VjpResult r = runVjp(*module, inputs, {values("tensor<f64>", {1.0})});
  REQUIRE(vg.size() == 1 + inputs.size());
  CHECK(bitIdentical(vg[0], r.outputs[0]));
  for (size_t i = 0; i < inputs.size(); ++i)
    CHECK(bitIdentical(vg[1 + i], r.gradients[i]));
}

TEST_CASE("seed loss/predict with checkpoint_name: finite differences and policies",
          "[autodiff][remat][seed]") {
  checkFiniteDifferences(kLossPredict, 30);
  checkAllPolicies(kLossPredict, 31);
  // save_only_these_names("a") keeps the arguments and the value named 'a'.
  auto module = parse(subst(kLossPredict, {{"P", "save_only_these_names(\"a\")"}}));
  differentiate(*module, true);
  std::vector<Residual> saved = residualsOf(*module);
  INFO(describe(saved));
  REQUIRE(saved.size() == 6);
  for (int i = 0; i < 5; ++i)
    CHECK(saved[i].kind == Residual::Kind::Argument);
  CHECK(saved[5].kind == Residual::Kind::Named);
  CHECK(saved[5].what == "a");
}

TEST_CASE("seed recursive checkpointing: finite differences and policies",
          "[autodiff][remat][seed]") {
  checkFiniteDifferences(recursiveCheckpoint(8), 40);
  checkAllPolicies(recursiveCheckpoint(8), 41);
  checkAllPolicies(recursiveCheckpoint(13), 42); // uneven halves
}

TEST_CASE("gradients stay bit-identical after -inline -cse of the remat'd VJP",
          "[autodiff][remat]") {
  // prevent_cse's barriers keep CSE from merging the recomputation into the
  // forward; either way the numbers must not change.
  for (std::string source : {std::string(kEachG), std::string(kMlp), std::string(kLossPredict),
                             recursiveCheckpoint(16)}) {
    for (std::string policy : {"nothing_saveable", "dots_saveable", "save_only_these_names(\"a\")"}) {
      INFO("policy " << policy << "\n" << source);
      std::string text = subst(source, {{"P", policy}});
      Baseline base = baseline(text, 60);
      auto module = parse(text);
      differentiate(*module, true);
      inlineAndCse(*module);
      int calls = 0;
      module->lookupSymbol<mlir::func::FuncOp>("f_vjp").walk([&](mlir::func::CallOp) { ++calls; });
      CHECK(calls == 0);
      VjpResult r = runVjp(*module, base.inputs, base.cotangents);
      for (size_t i = 0; i < r.gradients.size(); ++i)
        CHECK(bitIdentical(r.gradients[i], base.vjp.gradients[i]));
      for (size_t i = 0; i < r.outputs.size(); ++i)
        CHECK(bitIdentical(r.outputs[i], base.vjp.outputs[i]));
    }
  }
}

TEST_CASE("recursive checkpointing saves O(log D) residuals", "[autodiff][remat][recursive]") {
  std::vector<size_t> counts;
  for (int depth : {8, 16, 32, 64}) {
    INFO("D = " << depth);
    std::string source = subst(recursiveCheckpoint(depth), {{"P", "nothing_saveable"}});
    Baseline base = baseline(source, 50 + depth);
    // Without remat every sin saves its cos; the last sin's output is not
    // needed, the others' are not either (sin's rule needs only cos).
    CHECK(base.residuals.size() == static_cast<size_t>(depth));
    std::vector<Residual> saved = checkBitIdentical(source, base);
    INFO(describe(saved));
    counts.push_back(saved.size());
    // Same gradient as the plain chain of sins, to the bit.
    auto plain = parse(chain(depth));
    differentiate(*plain, false);
    VjpResult r = runVjp(*plain, base.inputs, base.cotangents);
    CHECK(bitIdentical(r.gradients[0], base.vjp.gradients[0]));
    GradCheck options;
    options.remat = true;
    options.inputs = base.inputs;
    checkGradients(source, options);
  }
  INFO("residual counts for D = 8, 16, 32, 64: " << counts[0] << ", " << counts[1] << ", "
                                                  << counts[2] << ", " << counts[3]);
  // JAX reports 4 for D = 8 and 5 for D = 16.
  CHECK(counts == std::vector<size_t>{4, 5, 6, 7});
  for (size_t i = 1; i < counts.size(); ++i)
    CHECK(counts[i] - counts[i - 1] == counts[1] - counts[0]);
}

// Property test of --jx-remat over random programs: random differentiable ops
// on random shapes, random (nested) remat placements, random checkpoint
// names, every policy. Properties that hold by the remat semantics:
//  - @f_vjp's primal outputs and gradients are bit-identical to those of the
//    VJP without remat, whatever the policy (recomputation repeats the same
//    ops on the same values);
//  - everything_saveable saves exactly the residuals of no remat;
//  - under nothing_saveable everywhere, a residual computed inside regions
//    is used by some op that lies in none of those regions (it is an output
//    of its regions, or an input of a region outside them): nothing that
//    only the regions' own ops use is kept; other residuals are arguments or
//    values computed outside any region;
//  - only offloading policies tag residuals with a memory kind, and only on
//    the values they offload;
//  - a default-policy outside the regions (min_residual_bytes, the compile
//    tools' default, or nothing_saveable) keeps the gradients bit-identical,
//    and min_residual_bytes saves no more bytes than keeping every residual
//    outside the regions (the residuals kept are themselves a cut).
// The residual COUNT under nothing_saveable may exceed the count without
// remat (a region recomputing from many inputs); a fixed test shows it.
#include "AutodiffUtil.h"
#include "test/support/RandomPrograms.h"

#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <sstream>

using namespace autodiff;
using mlir::cotangent::Residual;
using namespace randomprograms;

namespace {


/// Marks each op of @f_fwd (after --jx-vjp) with whether each result is used
/// by an op outside all the remat regions the result is computed in.
void markEscapes(mlir::ModuleOp module) {
  auto pair = mlir::jx::lookupSplitPair(module, "f");
  REQUIRE(pair);
  mlir::func::FuncOp fwd = pair->fwd;
  auto stackOf = [](mlir::Operation *op) -> std::vector<int64_t> {
    llvm::ArrayRef<int64_t> ids = mlir::jx::getRematRegions(op);
    return {ids.begin(), ids.end()};
  };
  mlir::Builder b(module.getContext());
  fwd.walk([&](mlir::Operation *op) {
    if (op == fwd.getOperation())
      return;
    std::vector<int64_t> mine = stackOf(op);
    std::vector<bool> escapes;
    for (mlir::Value r : op->getResults()) {
      bool e = mine.empty();
      for (mlir::Operation *user : r.getUsers()) {
        std::vector<int64_t> theirs = stackOf(user);
        bool disjoint = true;
        for (int64_t id : mine)
          disjoint &= std::find(theirs.begin(), theirs.end(), id) == theirs.end();
        // The return of @f_fwd uses primal results and residuals alike: only
        // the primal results count as uses outside the regions.
        if (mlir::isa<mlir::func::ReturnOp>(user))
          continue;
        e |= disjoint;
      }
      escapes.push_back(e);
    }
    llvm::SmallVector<bool> flags(escapes.begin(), escapes.end());
    op->setAttr("test.escapes", b.getDenseBoolArrayAttr(flags));
  });
}

void checkNothingSaveableResiduals(mlir::ModuleOp module) {
  auto pair = mlir::jx::lookupSplitPair(module, "f");
  REQUIRE(pair);
  auto ret = mlir::cast<mlir::func::ReturnOp>(pair->fwd.getBody().front().getTerminator());
  int64_t numPrimal = mlir::jx::numPrimalResults(pair->fwd);
  for (unsigned i = numPrimal; i < ret.getNumOperands(); ++i) {
    mlir::Value v = ret.getOperand(i);
    auto result = mlir::dyn_cast<mlir::OpResult>(v);
    if (!result)
      continue; // an argument
    auto flags = result.getOwner()->getAttrOfType<mlir::DenseBoolArrayAttr>("test.escapes");
    REQUIRE(flags);
    std::string printed;
    llvm::raw_string_ostream os(printed);
    result.getOwner()->print(os);
    INFO("residual " << i - numPrimal << " from " << printed);
    CHECK(flags.asArrayRef()[result.getResultNumber()]);
  }
}

/// Remat repeats the same ops on the same values: outputs and gradients
/// equal the reference's bit for bit.
void checkBitIdentical(const VjpResult &r, const VjpResult &ref) {
  for (size_t i = 0; i < r.outputs.size(); ++i)
    CHECK(bitIdentical(r.outputs[i], ref.outputs[i]));
  for (size_t i = 0; i < r.gradients.size(); ++i) {
    INFO("gradient " << i << ": " << show(r.gradients[i]) << " vs " << show(ref.gradients[i]));
    CHECK(bitIdentical(r.gradients[i], ref.gradients[i]));
  }
}

} // namespace

TEST_CASE("remat property: random programs, every policy, bit-identical gradients",
          "[autodiff][remat][property]") {
  constexpr int kPrograms = 240;
  int withRegions = 0, nested = 0;
  std::map<std::string, int> totalResiduals;
  for (int n = 0; n < kPrograms; ++n) {
    Generator gen(1000 + n);
    Program program = gen.generate();
    std::string text = Printer(program).print();
    INFO("program " << n << ":\n" << text);
    withRegions += !program.regions.empty();
    for (const Interval &a : program.regions)
      for (const Interval &b : program.regions)
        nested += &a != &b && a.start <= b.start && b.end <= a.end;

    // Baseline: the VJP without --jx-remat; its outputs are @f's, regions and all.
    std::string plain = withPolicies(text, program, [](int) { return "nothing_saveable"; });
    auto base = parse(plain);
    std::mt19937_64 rng(n);
    std::vector<Tensor> inputs, cts;
    for (auto type : argumentTypes(*base, "f"))
      inputs.push_back(random(type, rng));
    for (auto type : resultTypes(*base, "f"))
      cts.push_back(random(type, rng, -1, 1));
    std::vector<Tensor> primal = call(*base, "f", inputs);
    differentiate(*base, false);
    VjpResult ref = runVjp(*base, inputs, cts);
    for (size_t i = 0; i < primal.size(); ++i)
      REQUIRE(bitIdentical(primal[i], ref.outputs[i]));
    std::vector<Residual> refResiduals = residualsOf(*base);

    std::vector<std::string> variants = allPolicies();
    variants.push_back("random");
    // Random region policies under each default-policy outside them.
    std::mt19937_64 pickOutside(n * 31 + 7);
    std::string randomRegions = withPolicies(text, program, [&](int) {
      return allPolicies()[std::uniform_int_distribution<size_t>(
          0, allPolicies().size() - 1)(pickOutside)];
    });
    std::map<std::string, int64_t> bytesOutside;
    for (std::string outside : {"everything_saveable", "min_residual_bytes", "nothing_saveable"}) {
      INFO("random regions, default-policy " << outside);
      auto module = parse(randomRegions);
      differentiate(*module, false);
      mlir::PassManager pm(&context());
      pm.addPass(mlir::cotangent::createJxRematPass({.defaultPolicy = outside}));
      REQUIRE(mlir::succeeded(pm.run(*module)));
      VjpResult r = runVjp(*module, inputs, cts);
      checkBitIdentical(r, ref);
      auto pair = mlir::jx::lookupSplitPair(*module, "f");
      REQUIRE(pair);
      auto ret = mlir::cast<mlir::func::ReturnOp>(pair->fwd.getBody().front().getTerminator());
      for (mlir::Value v : ret.getOperands().drop_front(mlir::jx::numPrimalResults(pair->fwd)))
        bytesOutside[outside] += mlir::jx::getTensorBytes(v.getType());
    }
    CHECK(bytesOutside["min_residual_bytes"] <= bytesOutside["everything_saveable"]);
    for (const std::string &policy : variants) {
      INFO("policy " << policy);
      std::mt19937_64 pick(n * 31 + 7);
      std::string source = withPolicies(text, program, [&](int) {
        if (policy != "random")
          return policy;
        return allPolicies()[std::uniform_int_distribution<size_t>(0, allPolicies().size() - 1)(pick)];
      });
      auto module = parse(source);
      differentiate(*module, false);
      bool nothing = policy == "nothing_saveable";
      if (nothing)
        markEscapes(*module);
      {
        mlir::PassManager pm(&context());
        pm.addPass(mlir::cotangent::createJxRematPass());
        REQUIRE(mlir::succeeded(pm.run(*module)));
      }
      VjpResult r = runVjp(*module, inputs, cts);
      checkBitIdentical(r, ref);
      std::vector<Residual> saved = residualsOf(*module);
      totalResiduals[policy] += static_cast<int>(saved.size());
      if (policy == "everything_saveable") {
        REQUIRE(saved.size() == refResiduals.size());
        for (size_t i = 0; i < saved.size(); ++i) {
          CHECK(saved[i].what == refResiduals[i].what);
          CHECK(saved[i].type == refResiduals[i].type);
          CHECK(saved[i].memoryKind.empty());
        }
      }
      if (nothing)
        checkNothingSaveableResiduals(*module);
      for (const Residual &res : saved) {
        if (res.memoryKind.empty())
          continue;
        CHECK(res.memoryKind == "pinned_host");
        if (policy == "random")
          continue;
        CHECK(policy.find("offload") != std::string::npos);
        if (policy.rfind("offload_dot", 0) == 0)
          CHECK(res.what == "dot_general");
        if (policy.rfind("save_and_offload", 0) == 0)
          CHECK((res.kind == Residual::Kind::Named && res.what == "b"));
      }
    }
  }
  // The generator does exercise regions and nesting.
  CHECK(withRegions > kPrograms / 2);
  CHECK(nested > 20);
  // Without regions saving nothing, nothing_saveable saves less overall than everything_saveable.
  CHECK(totalResiduals["nothing_saveable"] < totalResiduals["everything_saveable"]);
}

TEST_CASE("remat can save more residuals than no remat", "[autodiff][remat]") {
  // sin(x1 + ... + x5) saves cos(sum) without remat; checkpointed, the five
  // region inputs are saved to recompute it. Gradients are the same.
  const std::string src = R"(func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>, %c: tensor<3xf64>, %d: tensor<3xf64>, %e: tensor<3xf64>) -> tensor<3xf64> {
  %r = jx.remat(%a, %b, %c, %d, %e) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64> policy = #jx.policy<nothing_saveable> {
  ^bb0(%x1: tensor<3xf64>, %x2: tensor<3xf64>, %x3: tensor<3xf64>, %x4: tensor<3xf64>, %x5: tensor<3xf64>):
    %0 = jx.add %x1, %x2 : tensor<3xf64>
    %1 = jx.add %0, %x3 : tensor<3xf64>
    %2 = jx.add %1, %x4 : tensor<3xf64>
    %3 = jx.add %2, %x5 : tensor<3xf64>
    %4 = jx.sin %3 : tensor<3xf64>
    jx.yield %4 : tensor<3xf64>
  }
  return %r : tensor<3xf64>
})";
  auto plain = parse(src);
  differentiate(*plain, false);
  auto remat = parse(src);
  differentiate(*remat, true);
  CHECK(residualsOf(*plain).size() == 1);
  std::vector<Residual> saved = residualsOf(*remat);
  CHECK(saved.size() == 5);
  for (const Residual &r : saved)
    CHECK(r.kind == Residual::Kind::Argument);
  std::mt19937_64 rng(3);
  std::vector<Tensor> inputs;
  for (int i = 0; i < 5; ++i)
    inputs.push_back(random("tensor<3xf64>", rng));
  Tensor ct = random("tensor<3xf64>", rng);
  VjpResult a = runVjp(*plain, inputs, {ct}), b = runVjp(*remat, inputs, {ct});
  for (int i = 0; i < 5; ++i)
    CHECK(bitIdentical(a.gradients[i], b.gradients[i]));
}

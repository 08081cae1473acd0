//===- ValidProgramsFuzzer.cpp - fuzz-valid-programs: invariants of valid jx ===//
//
// The fuzzer's bytes drive the property tests' generator (random ops on
// random shapes, nested jx.remat regions, checkpoint names, jx.scan and
// jx.cond): every input is a valid program, so every stage must succeed.
// Each program becomes one module: @base (no remat pass: the VJP's
// reference) and copies of @f under four policies picked by the bytes plus
// one copy mixing policies region by region. Invariants, each a finding
// when broken:
//  - --jx-vjp, --jx-remat, the memory plan and the CPU compile succeed;
//  - in the interpreter every copy's outputs and gradients are bit-identical
//    to @base's (recomputation repeats the same ops on the same values);
//  - compiled, every copy's outputs and gradients lie within the bounds
//    runWithErrorBounds derives for @base_vjp (docs/reliability.md: no
//    tolerance chosen by hand), and every copy's equal @base's compiled ones
//    bit for bit;
//  - the residual report's bytes equal the bytes the runtime measured, and
//    so do the memory plan's residual bytes and peak (where a jx.cond
//    decides, the measured ones lie in the range over the plan's paths, and
//    at most the report's: a branch may save one buffer as two residuals).
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzSupport.h"
#include "test/support/RandomPrograms.h"

#include "analysis/MemoryPlan.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "passes/report/Residuals.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/interpreter/ErrorBound.h"
#include "runtime/interpreter/Interpreter.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <cstring>
#include <sstream>

using namespace mlir;
using ::cotangent::interp::Tensor;
using ::cotangent::testing::allPolicies;
using namespace randomprograms;

namespace {

std::string program; ///< the module under test, printed in every finding

void check(bool ok, const std::string &what) {
  if (!ok)
    ::cotangent::fuzz::violated(what, program);
}

bool bitIdentical(const Tensor &a, const Tensor &b) {
  return a.getType() == b.getType() && a.getByteSize() == b.getByteSize() &&
         std::memcmp(a.data(), b.data(), a.getByteSize()) == 0;
}

Tensor randomTensor(Type t, std::mt19937_64 &rng, double lo, double hi) {
  auto type = cast<RankedTensorType>(t);
  std::vector<double> values(type.getNumElements());
  for (double &v : values)
    v = std::uniform_real_distribution<double>(lo, hi)(rng);
  return Tensor::fromDoubles(type, values);
}

struct Run {
  std::vector<Tensor> outputs, gradients;
};

/// @name_vjp through the interpreter.
Run interpret(ModuleOp module, const std::string &name, const std::vector<Tensor> &args,
              const std::vector<Tensor> &cotangents) {
  auto fn = module.lookupSymbol<func::FuncOp>(name + "_vjp");
  check(static_cast<bool>(fn), "@" + name + "_vjp exists");
  std::vector<Tensor> all = args;
  all.insert(all.end(), cotangents.begin(), cotangents.end());
  auto results = ::cotangent::interp::run(fn, all);
  check(succeeded(results), "the interpreter runs @" + name + "_vjp");
  check(results->size() == cotangents.size() + args.size(), "@" + name + "_vjp's result count");
  Run run;
  run.outputs.assign(results->begin(), results->begin() + cotangents.size());
  run.gradients.assign(results->begin() + cotangents.size(), results->end());
  return run;
}

void compareRuns(const Run &got, const Run &want, const std::string &what) {
  check(got.outputs.size() == want.outputs.size() && got.gradients.size() == want.gradients.size(),
        what + ": result counts");
  for (size_t i = 0; i < want.outputs.size(); ++i)
    check(bitIdentical(got.outputs[i], want.outputs[i]), what + ": output " + std::to_string(i));
  for (size_t i = 0; i < want.gradients.size(); ++i)
    check(bitIdentical(got.gradients[i], want.gradients[i]), what + ": gradient " + std::to_string(i));
}

/// @base_vjp's outputs, then gradients, each with its error bound.
std::vector<::cotangent::interp::BoundedTensor> boundedReference(ModuleOp module,
                                                                  const std::vector<Tensor> &args,
                                                                  const std::vector<Tensor> &cotangents) {
  std::vector<Tensor> all = args;
  all.insert(all.end(), cotangents.begin(), cotangents.end());
  auto results = ::cotangent::interp::runWithErrorBounds(module.lookupSymbol<func::FuncOp>("base_vjp"), all);
  check(succeeded(results), "the interpreter bounds @base_vjp");
  return *results;
}

void compareWithinBounds(const Run &got, const std::vector<::cotangent::interp::BoundedTensor> &want,
                         const std::string &what) {
  check(got.outputs.size() + got.gradients.size() == want.size(), what + ": result counts");
  auto within = [&](const Tensor &t, size_t i, const std::string &name) {
    std::optional<std::string> outside = ::cotangent::interp::outsideBound(t, want[i]);
    check(!outside, what + ": " + name + ": " + outside.value_or(""));
  };
  for (size_t i = 0; i < got.outputs.size(); ++i)
    within(got.outputs[i], i, "output " + std::to_string(i));
  for (size_t i = 0; i < got.gradients.size(); ++i)
    within(got.gradients[i], got.outputs.size() + i, "gradient " + std::to_string(i));
}

std::string renamed(std::string text, const std::string &name) {
  size_t at = text.find("func.func @f(");
  check(at != std::string::npos, "the generator printed @f");
  return text.replace(at, 13, "func.func @" + name + "(");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext *ctx = &::cotangent::fuzz::contextForInput();
  if (size < 5)
    return 0;

  // Four policy picks and the mix's seed come first, the program after.
  const std::vector<std::string> &policies = allPolicies();
  std::vector<std::string> names = {"base"};
  std::string source;
  BasicGenerator<ByteSource> generator(data + 5, size - 5);
  generator.controlFlow = true;
  Program p = generator.generate();
  std::string text = Printer(p).print();
  source += renamed(withPolicies(text, p, [](int) { return "nothing_saveable"; }), "base");
  for (int k = 0; k < 4; ++k) {
    names.push_back("f" + std::to_string(k));
    const std::string &policy = policies[data[k] % policies.size()];
    source += renamed(withPolicies(text, p, [&](int) { return policy; }), names.back());
  }
  names.push_back("mixed");
  source += renamed(withPolicies(text, p, [&](int slot) {
                      return policies[(data[4] + 7 * slot) % policies.size()];
                    }),
                    "mixed");
  program = source;
  // For looking at a slow or kept input: COTANGENT_FUZZ_PRINT_PROGRAM=1.
  if (std::getenv("COTANGENT_FUZZ_PRINT_PROGRAM"))
    llvm::errs() << source;

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, ctx);
  check(static_cast<bool>(module), "the generated program parses and verifies");
  {
    // @base is differentiated without --jx-remat; the copies with it.
    PassManager vjp(ctx);
    vjp.addPass(mlir::cotangent::createJxVjpPass());
    check(succeeded(vjp.run(*module)), "--jx-vjp succeeds");
    auto base = module->lookupSymbol<func::FuncOp>("base_fwd");
    check(static_cast<bool>(base), "@base_fwd exists");
  }
  OwningOpRef<ModuleOp> baseModule = module->clone();
  {
    PassManager remat(ctx);
    remat.addPass(mlir::cotangent::createJxRematPass());
    check(succeeded(remat.run(*module)), "--jx-remat succeeds");
  }

  auto fn = baseModule->lookupSymbol<func::FuncOp>("base");
  std::mt19937_64 rng(std::hash<std::string>()(text));
  std::vector<Tensor> args, cotangents;
  for (Type t : fn.getArgumentTypes())
    args.push_back(randomTensor(t, rng, -1.5, 1.5));
  for (Type t : fn.getResultTypes())
    cotangents.push_back(randomTensor(t, rng, -1, 1));

  Run reference = interpret(*baseModule, "base", args, cotangents);
  for (const std::string &name : names)
    compareRuns(interpret(*module, name, args, cotangents), reference,
                "interpreter: @" + name + " vs @base");

  auto bounded = boundedReference(*baseModule, args, cotangents);

  auto plans = mlir::cotangent::predictMemoryPlans(*module);
  check(succeeded(plans), "the memory plan is predicted");
  auto compiled = ::cotangent::cpu::CpuModule::compile(*module);
  check(succeeded(compiled), "the module compiles for the CPU");
  std::optional<Run> compiledBase;
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string &name = names[k];
    auto measured = (*compiled)->runSplit(name, args, cotangents);
    check(succeeded(measured), "@" + name + " runs compiled");
    Run run{measured->outputs, measured->gradients};
    compareWithinBounds(run, bounded, "compiled vs interpreter: @" + name);
    if (!compiledBase)
      compiledBase = run;
    compareRuns(run, *compiledBase, "compiled: @" + name + " vs @base");

    auto pair = jx::lookupSplitPair(*module, name);
    check(pair.has_value(), "@" + name + " has a split pair");
    auto residuals = mlir::cotangent::describeResiduals(pair->fwd);
    check(succeeded(residuals), "the residual report of @" + name);
    int64_t reported = 0;
    for (const mlir::cotangent::Residual &r : *residuals)
      reported += r.bytes;
    std::ostringstream figures;
    figures << "@" << name << ": reported " << reported << ", measured "
            << measured->residualBytes;
    const mlir::cotangent::MemoryPlan *plan = nullptr;
    for (const mlir::cotangent::MemoryPlan &candidate : *plans)
      if (candidate.name == name)
        plan = &candidate;
    check(plan != nullptr, "a memory plan for @" + name);
    // Where a jx.cond decides, one branch may save one buffer as two
    // residuals (both operands the same value): the report, which counts
    // residuals, is then the bound over the paths.
    check(plan->paths > 1 ? measured->residualBytes <= reported
                          : measured->residualBytes == reported,
          "residual bytes: " + figures.str());
    figures << "; planned residuals " << plan->minResidualBytes << ".." << plan->maxResidualBytes
            << ", peak " << plan->minPeakBytes
            << ".." << plan->peakBytes << ", measured peak " << measured->peakBytes;
    // Past 64 paths the plan stops following branches (allPaths false): the
    // run may have taken one it did not follow.
    if (!plan->allPaths)
      continue;
    check(plan->paths > 1 ? plan->minResidualBytes <= measured->residualBytes &&
                                measured->residualBytes <= plan->maxResidualBytes
                          : plan->residualBytes == measured->residualBytes,
          "plan: " + figures.str());
    check(plan->minPeakBytes <= measured->peakBytes && measured->peakBytes <= plan->peakBytes &&
              (plan->paths > 1 || plan->peakBytes == measured->peakBytes),
          "peak: " + figures.str());
  }
  return 0;
}

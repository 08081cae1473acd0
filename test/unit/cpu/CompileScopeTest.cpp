// What the CPU runtime compiles: only the entry points asked for (and what
// they call), and each loop-nest structure once however often a layer
// repeats (--jx-outline-kernels), with the same results either way.
#include "test/unit/cpu/Compare.h"

#include "bench/MlpModel.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace cotangent::test;
namespace bench = cotangent::bench;
namespace cpu = cotangent::cpu;

namespace {

mlir::OwningOpRef<mlir::ModuleOp> tracedMlp(int64_t layers) {
  auto module =
      bench::traceMlp(context(), {.layers = layers, .width = 32, .batch = 8}, std::nullopt)
          .takeModule();
  mlir::PassManager pm(&context());
  pm.addPass(mlir::cotangent::createJxVjpPass());
  pm.addPass(mlir::cotangent::createJxRematPass());
  REQUIRE(mlir::succeeded(pm.run(*module)));
  return module;
}

/// The names of the lowered module's LLVM functions with bodies.
std::set<std::string> definedFunctions(const cpu::CpuModule &compiled) {
  std::set<std::string> names;
  for (auto fn : compiled.getLoweredModule().getOps<mlir::LLVM::LLVMFuncOp>())
    if (!fn.isExternal())
      names.insert(fn.getSymName().str());
  return names;
}

size_t countNamed(const std::set<std::string> &names, llvm::StringRef prefix) {
  return llvm::count_if(names, [&](const std::string &n) { return n.starts_with(prefix); });
}

/// The value-and-grad step alone, compiled.
std::unique_ptr<cpu::CpuModule> compileStep(mlir::ModuleOp module) {
  auto compiled = cpu::CpuModule::compile(module, {.entryPoints = {"mlp_value_and_grad"}});
  REQUIRE(mlir::succeeded(compiled));
  return std::move(*compiled);
}

/// Every diagnostic's text while it lives.
struct CollectedErrors {
  std::string text;
  mlir::ScopedDiagnosticHandler handler{&context(), [this](mlir::Diagnostic &diag) {
                                          text += diag.str() + "\n";
                                          return mlir::success();
                                        }};
};

} // namespace

TEST_CASE("only the entry points and their callees are compiled, with the same results",
          "[cpu][compile]") {
  auto module = tracedMlp(3);
  auto all = cpu::CpuModule::compile(*module);
  auto step = cpu::CpuModule::compile(*module, {.entryPoints = {"mlp_value_and_grad"}});
  REQUIRE(mlir::succeeded(all));
  REQUIRE(mlir::succeeded(step));

  std::set<std::string> everything = definedFunctions(**all), scoped = definedFunctions(**step);
  CHECK(everything.count("mlp_fwd") == 1);
  CHECK(everything.count("mlp") == 1);
  for (const char *dropped : {"mlp", "mlp_fwd", "mlp_bwd", "mlp_vjp", "_mlir_ciface_mlp_fwd"})
    CHECK(scoped.count(dropped) == 0);
  CHECK(scoped.count("_mlir_ciface_mlp_value_and_grad") == 1);
  CHECK(scoped.size() < everything.size());

  auto args = randomArgs(module->lookupSymbol<mlir::func::FuncOp>("mlp_value_and_grad"), 5, false);
  auto want = (*all)->call("mlp_value_and_grad", args);
  auto got = (*step)->call("mlp_value_and_grad", args);
  REQUIRE(mlir::succeeded(want));
  REQUIRE(mlir::succeeded(got));
  REQUIRE(got->results.size() == want->results.size());
  for (size_t i = 0; i < got->results.size(); ++i)
    requireIdentical(got->results[i], want->results[i]);
  CHECK(got->stats.peakBytes == want->stats.peakBytes);
}

TEST_CASE("a function that was not compiled, or an entry point that is not there, is an error",
          "[cpu][compile][errors]") {
  auto module = tracedMlp(2);
  CollectedErrors errors;
  auto missing = cpu::CpuModule::compile(*module, {.entryPoints = {"mlp_value_and_grad", "nope"}});
  CHECK(mlir::failed(missing));
  CHECK_THAT(errors.text, Catch::Contains("no public function @nope to compile"));

  errors.text.clear();
  auto step = cpu::CpuModule::compile(*module, {.entryPoints = {"mlp_vjp"}});
  REQUIRE(mlir::succeeded(step));
  auto args = randomArgs(module->lookupSymbol<mlir::func::FuncOp>("mlp_fwd"), 1, false);
  CHECK(mlir::failed((*step)->call("mlp_fwd", args)));
  CHECK_THAT(errors.text, Catch::Contains("mlp_fwd"));
}

TEST_CASE("a repeated layer's loops are compiled once, however many layers",
          "[cpu][compile]") {
  auto three = tracedMlp(3), nine = tracedMlp(9);
  auto small = compileStep(*three), large = compileStep(*nine);
  size_t kernels = countNamed(definedFunctions(*small), "jx_kernel");
  CHECK(kernels > 0);
  CHECK(countNamed(definedFunctions(*large), "jx_kernel") == kernels);
}

TEST_CASE("verifying after every pass or only the pipeline's ends gives the same module",
          "[cpu][compile]") {
  auto module = tracedMlp(3);
  auto checked = cpu::CpuModule::compile(*module, {.verifyEachPass = true});
  auto fast = cpu::CpuModule::compile(*module, {.verifyEachPass = false});
  REQUIRE(mlir::succeeded(checked));
  REQUIRE(mlir::succeeded(fast));
  std::string a, b;
  llvm::raw_string_ostream(a) << (*checked)->getLoweredModule();
  llvm::raw_string_ostream(b) << (*fast)->getLoweredModule();
  CHECK(a == b);
}

TEST_CASE("a module made invalid after tracing is a located error before any pass runs",
          "[cpu][compile][errors]") {
  auto module = tracedMlp(1);
  // A return whose operand types no longer match the function's results.
  auto fn = module->lookupSymbol<mlir::func::FuncOp>("mlp");
  REQUIRE(fn);
  auto ret = llvm::cast<mlir::func::ReturnOp>(fn.getBody().back().getTerminator());
  ret->setOperands(fn.getArguments().take_front(1));
  CollectedErrors errors;
  for (bool verifyEachPass : {true, false})
    CHECK(mlir::failed(cpu::CpuModule::compile(*module, {.verifyEachPass = verifyEachPass})));
  CHECK_THAT(errors.text, Catch::Contains("doesn't match function result"));
}

TEST_CASE("a repeated layer's host code is compiled once too: the step grows by a call per layer",
          "[cpu][compile][numerics]") {
  auto three = tracedMlp(3), nine = tracedMlp(9);
  auto small = compileStep(*three), large = compileStep(*nine);
  std::set<std::string> smallFunctions = definedFunctions(*small);
  CHECK(countNamed(smallFunctions, "jx_repeat") > 0);
  CHECK(definedFunctions(*large) == smallFunctions);

  auto stepOps = [](const cpu::CpuModule &compiled) {
    auto step =
        compiled.getLoweredModule().lookupSymbol<mlir::LLVM::LLVMFuncOp>("mlp_value_and_grad");
    REQUIRE(step);
    int64_t ops = 0;
    step.walk([&](mlir::Operation *) { ++ops; });
    return ops;
  };
  // Six more layers: six more calls forward and six backward, each a few
  // dozen ops of descriptor packing, not six more layers' host code (2322
  // more ops without jx-outline-repeats).
  int64_t grown = stepOps(*large) - stepOps(*small);
  INFO("step ops: " << stepOps(*small) << " -> " << stepOps(*large));
  CHECK(grown > 0);
  CHECK(grown < 12 * 64);

  // Both depths compute what the interpreter does, within the bound derived
  // from each (nine tanh layers round more than three, and the bound grows
  // with them).
  for (auto [compiled, module] : {std::pair{small.get(), three.get()}, std::pair{large.get(), nine.get()}}) {
    auto args = randomArgs(module.lookupSymbol<mlir::func::FuncOp>("mlp_value_and_grad"), 7, false);
    compareWithInterpreter(*compiled, module, "mlp_value_and_grad", args);
  }
}

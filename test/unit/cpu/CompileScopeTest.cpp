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

size_t countKernels(const std::set<std::string> &names) {
  return llvm::count_if(names, [](const std::string &n) { return n.starts_with("jx_kernel"); });
}

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
    requireClose(got->results[i], want->results[i], {0, 0, 0, 0});
  CHECK(got->stats.peakBytes == want->stats.peakBytes);
}

TEST_CASE("a function that was not compiled, or an entry point that is not there, is an error",
          "[cpu][compile][errors]") {
  auto module = tracedMlp(2);
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context(), [&](mlir::Diagnostic &diag) {
    errors += diag.str() + "\n";
    return mlir::success();
  });
  auto missing = cpu::CpuModule::compile(*module, {.entryPoints = {"mlp_value_and_grad", "nope"}});
  CHECK(mlir::failed(missing));
  CHECK_THAT(errors, Catch::Contains("no public function @nope to compile"));

  errors.clear();
  auto step = cpu::CpuModule::compile(*module, {.entryPoints = {"mlp_vjp"}});
  REQUIRE(mlir::succeeded(step));
  auto args = randomArgs(module->lookupSymbol<mlir::func::FuncOp>("mlp_fwd"), 1, false);
  CHECK(mlir::failed((*step)->call("mlp_fwd", args)));
  CHECK_THAT(errors, Catch::Contains("mlp_fwd"));
}

TEST_CASE("a repeated layer's loops are compiled once, however many layers",
          "[cpu][compile]") {
  auto three = tracedMlp(3), nine = tracedMlp(9);
  auto small = cpu::CpuModule::compile(*three, {.entryPoints = {"mlp_value_and_grad"}});
  auto large = cpu::CpuModule::compile(*nine, {.entryPoints = {"mlp_value_and_grad"}});
  REQUIRE(mlir::succeeded(small));
  REQUIRE(mlir::succeeded(large));
  size_t kernels = countKernels(definedFunctions(**small));
  CHECK(kernels > 0);
  CHECK(countKernels(definedFunctions(**large)) == kernels);
}

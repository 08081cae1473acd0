//===- cotangent-opt.cpp - the opt-style driver over jx IR ----------------===//
//
// MlirOptMain with the jx dialect, Cotangent's passes, and the upstream
// dialects and passes the lowering pipelines use (and, for jx-to-nvvm,
// the GPU dialects' translations to LLVM IR).
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "passes/Passes.h"
#include "conversion/nvvm/GpuPasses.h"
#include "conversion/llvm/LoweringPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::cotangent::registerCotangentPasses();
  mlir::cotangent::registerLoweringPassesAndPipeline();
  mlir::cotangent::registerGpuPassesAndPipeline();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR (jx-to-nvvm).
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<mlir::jx::JxDialect>();

  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "Cotangent " COTANGENT_VERSION "\n"; });
  // Errors read as file:line:col plus the message; the op dump MLIR appends
  // by default is for compiler developers (--mlir-print-op-on-diagnostic).
  std::vector<char *> args(argv, argv + argc);
  bool chosen = llvm::any_of(args, [](const char *a) {
    return llvm::StringRef(a).contains("mlir-print-op-on-diagnostic");
  });
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  if (!chosen)
    args.insert(args.begin() + 1, quiet);
  return mlir::asMainReturnCode(mlir::MlirOptMain(static_cast<int>(args.size()), args.data(),
                                                  "Cotangent optimizer driver\n", registry));
}

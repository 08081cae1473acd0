//===- cotangent-opt.cpp - the opt-style driver over jx IR ----------------===//
//
// MlirOptMain with the jx dialect, Cotangent's passes, and the upstream
// dialects and passes the lowering pipelines use (and, for jx-to-nvvm,
// the GPU dialects' translations to LLVM IR).
//
// The tool does what mlir-opt does, with four differences for its users:
//   - errors read as file:line:col plus the message, without the op dump
//     MLIR appends for compiler developers (--mlir-print-op-on-diagnostic);
//   - the options of every `--PASS=OPTIONS` flag are checked before the input
//     is read, and a bad one is reported with the pass's flag and the list of
//     options it takes (MLIR says `<unknown>:0: error:`, or for a pipeline
//     nothing at all);
//   - when a pass given `function=NAME` fails and the module has no such
//     function, a note lists the functions it has;
//   - an error reported by any pass makes the exit code 1, even when the pass
//     carried on (upstream's gpu-module-to-binary does, on a bad format).
// --version names Cotangent's version after LLVM's.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "passes/Passes.h"
#include "analysis/AnalysisPasses.h"
#include "analysis/PeakOracle.h"
#include "conversion/nvvm/GpuPasses.h"
#include "conversion/llvm/LoweringPasses.h"
#include "tools/common/CommandLine.h"
#include "tools/common/FunctionNames.h"
#include "tools/common/NestingDepth.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <unistd.h>
#include <vector>

using namespace mlir;

namespace {

/// A pass's or pipeline's --help entry: its flag, then one line per option.
/// printHelpStr writes to llvm::outs(); the text is part of an error message,
/// so stdout points into a pipe while it prints (an entry is far smaller than
/// a pipe's buffer).
std::string helpOf(const PassRegistryEntry &entry) {
  size_t descIndent = std::max(entry.getOptionWidth(), entry.getPassArgument().size()) + 8;
  int fds[2];
  if (pipe(fds) != 0)
    return "";
  llvm::outs().flush();
  int saved = dup(STDOUT_FILENO);
  dup2(fds[1], STDOUT_FILENO);
  entry.printHelpStr(/*indent=*/2, descIndent);
  llvm::outs().flush();
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, n);
  close(fds[0]);
  return text;
}

/// Checks the options of every `--PASS=OPTIONS` argument naming a registered
/// pass or pipeline by building it once, as MlirOptMain will; on an error,
/// says which flag and value, and lists the options the pass takes.
LogicalResult checkPassOptions(llvm::ArrayRef<char *> args) {
  for (llvm::StringRef arg : args.drop_front()) {
    if (!arg.starts_with("-") || !arg.contains('='))
      continue;
    auto [name, options] = arg.ltrim('-').split('=');
    const PassRegistryEntry *entry = PassInfo::lookup(name);
    if (!entry)
      entry = PassPipelineInfo::lookup(name);
    if (!entry)
      continue;
    std::string error;
    OpPassManager pm(OpPassManager::Nesting::Implicit);
    // llvm::cl prints some errors itself ("for the --width option: ...") and
    // hands the handler an empty message; others come only through it.
    auto handler = [&](const llvm::Twine &message) {
      error = message.str();
      return failure();
    };
    // Options taking one of a few words are enums in ODS (or the pipeline's
    // options): the parser refuses another word and the help lists them.
    bool ok = succeeded(entry->addToPipeline(pm, options, handler));
    if (ok)
      continue;
    // Strip what parsing prefixed, so the message starts with the reason.
    llvm::StringRef reason = llvm::StringRef(error).trim();
    reason.consume_front("<Pass-Options-Parser>: ");
    llvm::errs() << "cotangent-opt: error: bad options in '" << arg << "'"
                 << (reason.empty() ? "" : ": ") << reason << "\n";
    std::string help = helpOf(*entry);
    if (llvm::StringRef(help).trim().contains('\n'))
      llvm::errs() << "cotangent-opt: --" << name << " takes these options:\n" << help;
    else
      llvm::errs() << "cotangent-opt: --" << name << " takes no options\n";
    return failure();
  }
  return success();
}

/// After a pass given `function=NAME` fails on a module without @NAME, a note
/// names the functions the module has.
struct FunctionChoices : public PassInstrumentation {
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    auto module = dyn_cast<ModuleOp>(op);
    if (!module)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    pass->printAsTextualPipeline(os);
    llvm::SmallVector<llvm::StringRef> match;
    if (!llvm::Regex("[{ ]function=\"?([^ }\"]+)").match(text, &match) ||
        module.lookupSymbol(match[1]))
      return;
    op->getContext()->getDiagEngine().emit(module.getLoc(), DiagnosticSeverity::Note)
        << ::cotangent::tools::describeFunctions(module);
  }
};

/// Set when any diagnostic of severity error is reported after parsing.
std::atomic<bool> errorReported{false};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllPasses();
  mlir::cotangent::registerCotangentPasses();
  mlir::cotangent::registerCotangentAnalysisPasses();
  mlir::cotangent::registerLoweringPassesAndPipeline();
  mlir::cotangent::registerGpuPassesAndPipeline();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR (jx-to-nvvm).
  registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<jx::JxDialect>();
  // memory_budget policies are solved against the memory plan.
  mlir::cotangent::registerPeakOracle(registry);
  // jx collectives bufferize into runtime calls (--one-shot-bufferize alone too).
  mlir::cotangent::registerCollectiveBufferization(registry);

  llvm::cl::AddExtraVersionPrinter(::cotangent::tools::printCotangentVersion);
  std::vector<char *> args(argv, argv + argc);
  bool chosen = llvm::any_of(args, [](const char *a) {
    return llvm::StringRef(a).contains("mlir-print-op-on-diagnostic");
  });
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  if (!chosen)
    args.insert(args.begin() + 1, quiet);

  // What MlirOptMain(argc, argv, toolName, registry) does, with the checks
  // and the instrumentation of the file comment added.
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      static_cast<int>(args.size()), args.data(), "Cotangent optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return 0;
  }
  if (failed(checkPassOptions(args)))
    return 1;

  MlirOptMainConfig parsed = config;
  bool verifying = config.shouldVerifyDiagnostics();
  config.setPassPipelineSetupFn([parsed, verifying](PassManager &pm) -> LogicalResult {
    if (failed(parsed.setupPassPipeline(pm)))
      return failure();
    pm.addInstrumentation(std::make_unique<FunctionChoices>());
    // Under --verify-diagnostics errors are expected; the verifier judges.
    if (!verifying)
      pm.getContext()->getDiagEngine().registerHandler([](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          errorReported = true;
        return failure(); // not handled: the printing handler still prints it
      });
    return success();
  });

  if (inputFilename == "-" && llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (!::cotangent::tools::checkNestingDepth(*file, llvm::errs()))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)) || errorReported)
    return 1;
  output->keep();
  return 0;
}

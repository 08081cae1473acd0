//===- cotangent-interpret.cpp - Run a jx function on the interpreter -----===//
//
// cotangent-interpret FILE.mlir --fn NAME [--arg LITERAL]... [--seed N] [--memory]
//                     [--ranks AXIS=N]
//
// Parses FILE (jx + func dialects), runs @NAME on the reference interpreter
// and prints each result as an MLIR attribute literal. Arguments are dense
// attribute literals ("dense<[1.0, 2.0]> : tensor<2xf32>"), in order;
// arguments not given are drawn from --seed: uniform [-1, 1) for floats,
// integers in [-5, 5], booleans 0 / 1. With --ranks, @NAME runs as each
// rank of a simulated group along mesh axis AXIS (its collectives combine
// them, interp::runSpmd); rank r's random arguments come from seed + r.
// Bad input gets a diagnostic with its location and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Interpreter.h"
#include "runtime/interpreter/Spmd.h"

#include "dialects/jx/JxOps.h"
#include "tools/common/CheckFinite.h"
#include "tools/common/CommandLine.h"
#include "tools/common/FunctionNames.h"
#include "tools/common/NestingDepth.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace mlir;
using namespace cotangent::interp;

namespace {

/// Only the tool's own flags show in --help (libLLVM registers hundreds).
static llvm::cl::OptionCategory toolOptions("cotangent-interpret options");
llvm::cl::opt<std::string> inputFilename(llvm::cl::cat(toolOptions), llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir file>"),
                                         llvm::cl::Required);
llvm::cl::opt<std::string> fnName(llvm::cl::cat(toolOptions), "fn",
                                  llvm::cl::desc("The function to run"),
                                  llvm::cl::value_desc("name"), llvm::cl::Required);
llvm::cl::list<std::string>
    argLiterals(llvm::cl::cat(toolOptions), "arg",
                llvm::cl::desc("An argument, as a dense attribute literal (repeat, in order)"),
                llvm::cl::value_desc("literal"));
llvm::cl::opt<uint64_t, false,
              ::cotangent::tools::RangeParser<uint64_t, 0, std::numeric_limits<uint64_t>::max()>>
    seed(llvm::cl::cat(toolOptions), "seed",
         llvm::cl::desc("Seed of the arguments not given"), llvm::cl::init(0));
llvm::cl::opt<bool> printMemory(llvm::cl::cat(toolOptions), "memory",
                                llvm::cl::desc("Print the live and peak bytes"));
llvm::cl::opt<std::string> ranks(
    llvm::cl::cat(toolOptions), "ranks",
    llvm::cl::desc("Run as each rank of a simulated group along a mesh axis, e.g. data=4 (the "
                   "function's collectives combine the ranks; 1 to 64 ranks)"),
    llvm::cl::value_desc("AXIS=N"));
llvm::cl::opt<bool> checkFiniteValues(
    llvm::cl::cat(toolOptions), "check-finite",
    llvm::cl::desc("Report the NaN and Inf in the arguments (warnings) and results (errors); "
                   "exit 1 when a result holds any"));

/// A deterministic random tensor of `type` (same values on every platform:
/// mt19937_64's output is fixed by the standard, the mapping is ours).
Tensor randomTensor(RankedTensorType type, std::mt19937_64 &rng) {
  Tensor t(type);
  for (int64_t i = 0, e = t.getNumElements(); i < e; ++i) {
    uint64_t bits = rng();
    if (t.isFloat())
      t.setDouble(i, static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
    else if (t.getElementKind() == ElementKind::I1)
      t.setInt(i, static_cast<int64_t>(bits >> 63));
    else
      t.setInt(i, static_cast<int64_t>(bits % 11) - 5);
  }
  return t;
}

/// The arguments of `fn`: the literals given, then random tensors from `seed`.
FailureOr<std::vector<Tensor>> makeArguments(func::FuncOp fn, uint64_t seed) {
  FunctionType type = fn.getFunctionType();
  if (argLiterals.size() > type.getNumInputs())
    return emitError(fn.getLoc()) << "@" << fn.getSymName() << " takes " << type.getNumInputs()
                          << " arguments, got " << argLiterals.size() << " --arg";
  std::vector<Tensor> args;
  for (auto [i, literal] : llvm::enumerate(argLiterals)) {
    Attribute attr = parseAttribute(literal, fn.getContext());
    if (!attr)
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    if (!dense || !isSupportedType(dense.getType()))
      return emitError(fn.getArgument(i).getLoc())
             << "--arg #" << i << " must be a dense literal of a static jx tensor type, got "
             << attr;
    args.push_back(Tensor::fromAttr(dense));
  }
  std::mt19937_64 rng(seed);
  for (unsigned i = args.size(); i < type.getNumInputs(); ++i) {
    if (!isSupportedType(type.getInput(i)))
      return emitError(fn.getArgument(i).getLoc())
             << "cannot make a random argument of type " << type.getInput(i);
    if (failed(checkFitsInMemory(cast<RankedTensorType>(type.getInput(i)),
                                 fn.getArgument(i).getLoc())))
      return failure();
    args.push_back(randomTensor(cast<RankedTensorType>(type.getInput(i)), rng));
  }
  return args;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  ::cotangent::tools::setUpCommandLine(toolOptions);
  llvm::cl::ParseCommandLineOptions(argc, argv, "Cotangent reference interpreter\n");

  DialectRegistry registry;
  registry.insert<jx::JxDialect, func::FuncDialect>();
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (!::cotangent::tools::checkNestingDepth(*file, llvm::errs()))
    return 1;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  auto fn = module->lookupSymbol<func::FuncOp>(fnName);
  if (!fn) {
    emitError(module->getLoc()) << "no function named '" << fnName << "'; "
                                << ::cotangent::tools::describeFunctions(*module);
    return 1;
  }

  if (!ranks.empty()) {
    // AXIS=N: the group's axis and size.
    auto [axis, count] = llvm::StringRef(ranks).split('=');
    unsigned n = 0;
    if (axis.empty() || count.getAsInteger(10, n) || n < 1 || n > 64) {
      llvm::errs() << "cotangent-interpret: --ranks must be AXIS=N with N from 1 to 64, got '"
                   << ranks << "'\n";
      return 1;
    }
    if (printMemory) {
      llvm::errs() << "cotangent-interpret: --memory counts one run; it does not take --ranks\n";
      return 1;
    }
    std::vector<std::vector<Tensor>> perRank;
    for (unsigned r = 0; r < n; ++r) {
      FailureOr<std::vector<Tensor>> args = makeArguments(fn, seed + r);
      if (failed(args))
        return 1;
      perRank.push_back(std::move(*args));
    }
    auto results = runSpmd(fn, axis, perRank);
    if (failed(results))
      return 1;
    AsmState state(&context, OpPrintingFlags().printLargeElementsAttrWithHex(-1));
    bool finite = true;
    for (auto [r, out] : llvm::enumerate(*results)) {
      for (auto [i, result] : llvm::enumerate(out)) {
        llvm::outs() << "rank " << r << " result " << i << ": ";
        result.toAttr().print(llvm::outs(), state);
        llvm::outs() << "\n";
      }
      llvm::outs().flush();
      finite = finite && (!checkFiniteValues ||
                          succeeded(::cotangent::tools::checkFinite(
                              fn.getLoc(), perRank[r], "rank " + std::to_string(r) + " result",
                              out)));
    }
    return finite ? 0 : 1;
  }

  FailureOr<std::vector<Tensor>> args = makeArguments(fn, seed);
  if (failed(args))
    return 1;
  MemoryStats stats;
  FailureOr<std::vector<Tensor>> results = run(fn, *args, printMemory ? &stats : nullptr);
  if (failed(results))
    return 1;

  AsmState state(&context, OpPrintingFlags().printLargeElementsAttrWithHex(-1));
  for (auto [i, result] : llvm::enumerate(*results)) {
    llvm::outs() << "result " << i << ": ";
    result.toAttr().print(llvm::outs(), state);
    llvm::outs() << "\n";
  }
  if (printMemory)
    llvm::outs() << "memory: live " << stats.liveBytes << " bytes, peak " << stats.peakBytes
                 << " bytes\n";
  llvm::outs().flush();
  if (checkFiniteValues &&
      failed(::cotangent::tools::checkFinite(fn.getLoc(), *args, "result", *results)))
    return 1;
  return 0;
}

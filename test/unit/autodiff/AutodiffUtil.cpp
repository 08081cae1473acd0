//===- AutodiffUtil.cpp - helpers of the autodiff numerical tests ---------===//

#include "AutodiffUtil.h"

#include "passes/Passes.h"
#include "runtime/interpreter/Interpreter.h"

#include "dialects/jx/JxSplit.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

using namespace mlir;

namespace autodiff {

namespace {

/// Collects diagnostics so that a failing REQUIRE can show them.
struct Diagnostics {
  std::string text;
  ScopedDiagnosticHandler handler{&context(), [this](Diagnostic &d) {
                                    text += d.str() + "\n";
                                    return success();
                                  }};
};

func::FuncOp lookup(ModuleOp module, const std::string &name) {
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  INFO("function @" << name);
  REQUIRE(fn);
  return fn;
}

bool isFloat(const Tensor &t) { return t.isFloat(); }

} // namespace

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registry.insert<jx::JxDialect, func::FuncDialect>();
    func::registerInlinerExtension(registry);
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadDialect<jx::JxDialect, func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

OwningOpRef<ModuleOp> parse(const std::string &source) {
  Diagnostics diags;
  auto module = parseSourceString<ModuleOp>(source, &context());
  INFO(diags.text << "\nsource:\n" << source);
  REQUIRE(module);
  return module;
}

void inlineAndCse(ModuleOp module) {
  Diagnostics diags;
  PassManager pm(&context());
  pm.addPass(createInlinerPass());
  pm.addPass(createCSEPass());
  INFO(diags.text);
  REQUIRE(succeeded(pm.run(module)));
}

void differentiate(ModuleOp module, bool remat, const std::string &function) {
  Diagnostics diags;
  PassManager pm(&context());
  mlir::cotangent::JxVjpPassOptions options;
  options.function = function;
  pm.addPass(mlir::cotangent::createJxVjpPass(options));
  if (remat)
    pm.addPass(mlir::cotangent::createJxRematPass());
  bool ok = succeeded(pm.run(module));
  std::string printed;
  if (!ok) {
    llvm::raw_string_ostream os(printed);
    module.print(os);
  }
  INFO(diags.text << "\nmodule:\n" << printed);
  REQUIRE(ok);
}

std::vector<Tensor> call(ModuleOp module, const std::string &name,
                         const std::vector<Tensor> &args) {
  func::FuncOp fn = lookup(module, name);
  Diagnostics diags;
  auto results = ::cotangent::interp::run(fn, args);
  INFO("running @" << name << ": " << diags.text);
  REQUIRE(succeeded(results));
  return std::move(*results);
}

std::vector<RankedTensorType> argumentTypes(ModuleOp module, const std::string &name) {
  std::vector<RankedTensorType> out;
  for (Type t : lookup(module, name).getArgumentTypes())
    out.push_back(cast<RankedTensorType>(t));
  return out;
}

std::vector<RankedTensorType> resultTypes(ModuleOp module, const std::string &name) {
  std::vector<RankedTensorType> out;
  for (Type t : lookup(module, name).getResultTypes())
    out.push_back(cast<RankedTensorType>(t));
  return out;
}

RankedTensorType parseTensorType(const std::string &type) {
  auto parsed = dyn_cast_or_null<RankedTensorType>(mlir::parseType(type, &context()));
  INFO("type " << type);
  REQUIRE(parsed);
  return parsed;
}

Tensor random(RankedTensorType type, std::mt19937_64 &rng, double lo, double hi, double minAbs) {
  Tensor t(type);
  std::uniform_real_distribution<double> uniform(lo, hi);
  for (int64_t i = 0; i < t.getNumElements(); ++i) {
    if (!t.isFloat()) {
      t.setInt(i, std::uniform_int_distribution<int64_t>(static_cast<int64_t>(lo),
                                                         static_cast<int64_t>(hi))(rng));
      continue;
    }
    double v = uniform(rng);
    if (minAbs > 0) {
      double mag = std::uniform_real_distribution<double>(minAbs, std::max(std::abs(lo), hi))(rng);
      v = (std::bernoulli_distribution(0.5)(rng) && lo < 0) ? -mag : mag;
      if (lo >= 0)
        v = std::uniform_real_distribution<double>(std::max(lo, minAbs), hi)(rng);
    }
    t.setDouble(i, v);
  }
  return t;
}

Tensor random(const std::string &type, std::mt19937_64 &rng, double lo, double hi, double minAbs) {
  return random(parseTensorType(type), rng, lo, hi, minAbs);
}

Tensor values(const std::string &type, std::vector<double> v) {
  RankedTensorType t = parseTensorType(type);
  REQUIRE(static_cast<int64_t>(v.size()) == t.getNumElements());
  return Tensor::fromDoubles(t, v);
}

bool bitIdentical(const Tensor &a, const Tensor &b) {
  return a.getType() == b.getType() && a.getByteSize() == b.getByteSize() &&
         std::memcmp(a.data(), b.data(), a.getByteSize()) == 0;
}

bool allZero(const Tensor &t) {
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    if (t.getDouble(i) != 0.0)
      return false;
  return true;
}

std::string show(const Tensor &t) {
  std::ostringstream os;
  os.precision(17);
  std::string type;
  llvm::raw_string_ostream ts(type);
  t.getType().print(ts);
  os << type << " [";
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    os << (i ? ", " : "") << t.getDouble(i);
  os << "]";
  return os.str();
}

VjpResult runVjp(ModuleOp differentiated, const std::vector<Tensor> &inputs,
                 const std::vector<Tensor> &cotangents) {
  std::vector<Tensor> args = inputs;
  args.insert(args.end(), cotangents.begin(), cotangents.end());
  std::vector<Tensor> results = call(differentiated, "f_vjp", args);
  size_t numOutputs = cotangents.size();
  REQUIRE(results.size() == numOutputs + inputs.size());
  VjpResult out;
  out.outputs.assign(results.begin(), results.begin() + numOutputs);
  out.gradients.assign(results.begin() + numOutputs, results.end());
  out.inputs = inputs;
  out.cotangents = cotangents;
  return out;
}

VjpResult checkGradients(const std::string &source, const GradCheck &options) {
  std::mt19937_64 rng(options.seed);
  auto module = parse(source);
  std::vector<RankedTensorType> argTypes = argumentTypes(*module, "f");
  std::vector<RankedTensorType> resTypes = resultTypes(*module, "f");
  std::vector<Tensor> inputs = options.inputs;
  REQUIRE(inputs.size() <= argTypes.size());
  for (size_t i = inputs.size(); i < argTypes.size(); ++i)
    inputs.push_back(random(argTypes[i], rng));
  for (size_t i = 0; i < inputs.size(); ++i)
    REQUIRE(inputs[i].getType() == argTypes[i]);
  std::vector<Tensor> cts;
  for (RankedTensorType t : resTypes)
    cts.push_back(isa<FloatType>(t.getElementType()) ? random(t, rng, -1.0, 1.0) : Tensor(t));

  std::vector<Tensor> primal = call(*module, "f", inputs);
  auto differentiated = parse(source);
  differentiate(*differentiated, options.remat);
  VjpResult result = runVjp(*differentiated, inputs, cts);
  for (size_t i = 0; i < primal.size(); ++i) {
    INFO("output " << i << ": " << show(result.outputs[i]) << " vs " << show(primal[i]));
    CHECK(bitIdentical(result.outputs[i], primal[i]));
  }

  auto objective = [&](const std::vector<Tensor> &x) {
    std::vector<Tensor> y = call(*module, "f", x);
    double sum = 0;
    for (size_t r = 0; r < y.size(); ++r)
      if (y[r].isFloat())
        for (int64_t k = 0; k < y[r].getNumElements(); ++k)
          sum += cts[r].getDouble(k) * y[r].getDouble(k);
    return sum;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &grad = result.gradients[i];
    REQUIRE(grad.getType() == argTypes[i]);
    if (!isFloat(inputs[i])) {
      INFO("integer argument " << i << " cotangent " << show(grad));
      CHECK(allZero(grad));
      continue;
    }
    for (int64_t k = 0; options.finiteDifferences && k < inputs[i].getNumElements(); ++k) {
      std::vector<Tensor> plus = inputs, minus = inputs;
      plus[i] = inputs[i].clone();
      minus[i] = inputs[i].clone();
      double x = inputs[i].getDouble(k);
      plus[i].setDouble(k, x + options.step);
      minus[i].setDouble(k, x - options.step);
      double fd = (objective(plus) - objective(minus)) / (2 * options.step);
      double g = grad.getDouble(k);
      INFO("argument " << i << " element " << k << ": vjp " << g << " finite difference " << fd
                       << "\nsource:\n"
                       << source << "\ninput " << show(inputs[i]));
      CHECK(std::abs(g - fd) <= options.tolerance * (1 + std::abs(g)));
    }
  }
  return result;
}

std::vector<mlir::cotangent::Residual> residualsOf(ModuleOp differentiated, const std::string &function) {
  auto pair = mlir::jx::lookupSplitPair(differentiated, function);
  REQUIRE(pair);
  auto residuals = mlir::cotangent::describeResiduals(pair->fwd);
  REQUIRE(succeeded(residuals));
  return *residuals;
}

} // namespace autodiff

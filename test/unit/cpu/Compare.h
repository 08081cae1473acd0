//===- Compare.h - compiled code against the interpreter --------*- C++ -*-===//
//
// Helpers of the CPU tests: parse a module, make seeded arguments, run a
// function through the interpreter and the compiled module, and compare the
// results with a tolerance per element type.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_CPU_COMPARE_H
#define COTANGENT_TEST_UNIT_CPU_COMPARE_H

#include "dialects/jx/JxOps.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

namespace cotangent::test {

using interp::Tensor;

/// Relative tolerances: ints are exact; f32 elementwise within 1e-6 relative
/// (the same libm runs on both sides, so most are exact); contractions and
/// reductions (BLAS reorders sums) within `reductionTolerance`.
struct Tolerance {
  double f32 = 1e-6;
  double f64 = 1e-12;
  double low = 1e-2; ///< f16 / bf16 results (one rounding apart at most)
  double absolute = 1e-6;
};
inline Tolerance reductionTolerance() { return {1e-4, 1e-10, 2e-2, 1e-5}; }

inline mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registry.insert<mlir::jx::JxDialect, mlir::func::FuncDialect>();
    return new mlir::MLIRContext(registry);
  }();
  return *ctx;
}

inline mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context());
  REQUIRE(module);
  return module;
}

/// Seeded values: floats in [-2, 2) (or [0.1, 2) when `positive`), ints in
/// [-4, 4], booleans.
inline std::vector<Tensor> randomArgs(mlir::func::FuncOp fn, unsigned seed, bool positive) {
  std::mt19937 rng(seed);
  std::vector<Tensor> args;
  for (mlir::Type t : fn.getArgumentTypes()) {
    auto type = mlir::cast<mlir::RankedTensorType>(t);
    std::vector<double> values(type.getNumElements());
    for (double &v : values) {
      mlir::Type e = type.getElementType();
      if (mlir::isa<mlir::FloatType>(e))
        v = positive ? std::uniform_real_distribution<double>(0.1, 2.0)(rng)
                     : std::uniform_real_distribution<double>(-2.0, 2.0)(rng);
      else if (e.isInteger(1))
        v = rng() & 1;
      else
        v = std::uniform_int_distribution<int>(-4, 4)(rng);
    }
    args.push_back(Tensor::fromDoubles(type, values));
  }
  return args;
}

inline void requireClose(const Tensor &got, const Tensor &want, const Tolerance &tol) {
  REQUIRE(got.getType() == want.getType());
  double rel = tol.f32;
  mlir::Type e = want.getElementType();
  if (e.isF64())
    rel = tol.f64;
  else if (e.isF16() || e.isBF16())
    rel = tol.low;
  for (int64_t i = 0; i < want.getNumElements(); ++i) {
    INFO("element " << i);
    if (!want.isFloat()) {
      REQUIRE(got.getInt(i) == want.getInt(i));
      continue;
    }
    double g = got.getDouble(i), w = want.getDouble(i);
    if (std::isnan(w)) {
      REQUIRE(std::isnan(g));
      continue;
    }
    if (std::isinf(w)) {
      REQUIRE(g == w);
      continue;
    }
    REQUIRE(std::abs(g - w) <= tol.absolute + rel * std::abs(w));
  }
}

/// Runs @name of `module` on `args` through the interpreter and the compiled
/// module and compares every result.
inline void compareWithInterpreter(cpu::CpuModule &compiled, mlir::ModuleOp module,
                                   llvm::StringRef name, llvm::ArrayRef<Tensor> args,
                                   const Tolerance &tol) {
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(name);
  REQUIRE(fn);
  auto want = interp::run(fn, args);
  REQUIRE(mlir::succeeded(want));
  auto got = compiled.call(name, args);
  REQUIRE(mlir::succeeded(got));
  REQUIRE(got->results.size() == want->size());
  for (size_t i = 0; i < want->size(); ++i) {
    INFO("result " << i);
    requireClose(got->results[i], (*want)[i], tol);
  }
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_UNIT_CPU_COMPARE_H

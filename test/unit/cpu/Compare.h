//===- Compare.h - compiled code against the interpreter --------*- C++ -*-===//
//
// Helpers of the CPU tests: parse a module, make seeded arguments, run a
// function through the interpreter and the compiled module, and compare the
// results within the bound derived from what the function computes.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_CPU_COMPARE_H
#define COTANGENT_TEST_UNIT_CPU_COMPARE_H

#include "dialects/jx/JxOps.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/interpreter/ErrorBound.h"
#include "test/support/WithinBound.h"
#include "runtime/interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <random>

namespace cotangent::test {

using interp::Tensor;

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

/// `got` bit for bit `want` (the same compiled code on the same inputs).
inline void requireIdentical(const Tensor &got, const Tensor &want) {
  REQUIRE(got.getType() == want.getType());
  REQUIRE(std::memcmp(got.data(), want.data(), want.getByteSize()) == 0);
}

/// Runs @name of `module` on `args` through the interpreter and the compiled
/// module and checks every result within its bound.
inline void compareWithInterpreter(cpu::CpuModule &compiled, mlir::ModuleOp module,
                                   llvm::StringRef name, llvm::ArrayRef<Tensor> args) {
  auto want = boundedReference(module.lookupSymbol<mlir::func::FuncOp>(name), args);
  auto got = compiled.call(name, args);
  REQUIRE(mlir::succeeded(got));
  requireAllWithinBounds(got->results, want);
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_UNIT_CPU_COMPARE_H

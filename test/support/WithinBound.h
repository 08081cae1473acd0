//===- WithinBound.h - Catch2 checks against a bounded reference -*- C++ -*-===//
//
// The one way tests compare computed floats with the interpreter: each value
// within the bound runWithErrorBounds derived for it (docs/reliability.md),
// never within a tolerance picked on one machine.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_SUPPORT_WITHINBOUND_H
#define COTANGENT_TEST_SUPPORT_WITHINBOUND_H

#include "runtime/interpreter/ErrorBound.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cotangent::test {

/// The interpreter's results of `fn` on `args`, with their bounds.
inline std::vector<interp::BoundedTensor> boundedReference(mlir::func::FuncOp fn,
                                                           llvm::ArrayRef<interp::Tensor> args) {
  REQUIRE(fn);
  auto want = interp::runWithErrorBounds(fn, args);
  REQUIRE(mlir::succeeded(want));
  return std::move(*want);
}

/// `got` within `want`'s bound of its value.
inline void requireWithinBound(const interp::Tensor &got, const interp::BoundedTensor &want) {
  std::optional<std::string> outside = interp::outsideBound(got, want);
  INFO(outside.value_or(""));
  REQUIRE(!outside);
}

/// Each `got[i]` within the bound of `want[first + i]`, and nothing left over.
inline void requireAllWithinBounds(const std::vector<interp::Tensor> &got,
                                   const std::vector<interp::BoundedTensor> &want, size_t first = 0) {
  REQUIRE(first + got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("result " << first + i);
    requireWithinBound(got[i], want[first + i]);
  }
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_SUPPORT_WITHINBOUND_H

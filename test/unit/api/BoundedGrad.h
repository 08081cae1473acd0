//===- BoundedGrad.h - a traced function's bounded reference ----*- C++ -*-===//
//
// What the API tests compare compiled (jit) results with: the traced
// function, or its value and gradient, through runWithErrorBounds.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_API_BOUNDEDGRAD_H
#define COTANGENT_TEST_UNIT_API_BOUNDEDGRAD_H

#include "tracer/Autodiff.h"
#include "test/support/WithinBound.h"

namespace cotangent::test {

/// The leaves of value trees `args`, in the order tracing flattens them.
template <class... A>
std::vector<interp::Tensor> leavesOf(const A &...args) {
  std::vector<interp::Tensor> flat;
  ((Tree<A>::forEach(args, "", [&](const std::string &, const interp::Tensor &t) { flat.push_back(t); })),
   ...);
  return flat;
}

/// `fn` (returning one scalar) at `args`: its value, then its gradient's
/// leaves in the order grad(fn) returns them, each with its bound.
template <class F, class... A>
std::vector<interp::BoundedTensor> boundedValueAndGrad(const F &fn, const A &...args) {
  std::vector<interp::Tensor> leaves = leavesOf(args...);
  REQUIRE(!leaves.empty());
  Split split = vjp(TraceOptions{.context = leaves.front().getType().getContext()}, fn, args...);
  REQUIRE(split.value_and_grad());
  return boundedReference(split.value_and_grad(), leaves);
}

/// `fn`'s results at `args`, each with its bound.
template <class F, class... A>
std::vector<interp::BoundedTensor> boundedCall(const F &fn, const A &...args) {
  std::vector<interp::Tensor> leaves = leavesOf(args...);
  REQUIRE(!leaves.empty());
  cotangent::trace traced(TraceOptions{.context = leaves.front().getType().getContext()}, fn, args...);
  return boundedReference(traced.func(), leaves);
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_UNIT_API_BOUNDEDGRAD_H

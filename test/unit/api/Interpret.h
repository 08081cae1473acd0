//===- Interpret.h - a traced function run by the interpreter --*- C++ -*-===//

#ifndef COTANGENT_TEST_UNIT_API_INTERPRET_H
#define COTANGENT_TEST_UNIT_API_INTERPRET_H

#include "tracer/Trace.h"
#include "tracer/ValueTree.h"
#include "runtime/interpreter/Interpreter.h"

#include <catch2/catch.hpp>

/// `fn` traced on value trees `args` and run through the reference
/// interpreter: its results' leaves.
template <class F, class... A>
std::vector<cotangent::interp::Tensor> interpret(mlir::MLIRContext &ctx, const F &fn,
                                                 const A &...args) {
  cotangent::TraceOptions opts{.name = "apply", .context = &ctx};
  cotangent::trace traced(opts, fn, args...);
  std::vector<cotangent::interp::Tensor> flat;
  ((cotangent::Tree<A>::forEach(args, "",
                                [&](const std::string &, const cotangent::interp::Tensor &t) {
                                  flat.push_back(t);
                                })),
   ...);
  auto out = cotangent::interp::run(traced.func(), flat);
  REQUIRE(mlir::succeeded(out));
  return *out;
}

#endif // COTANGENT_TEST_UNIT_API_INTERPRET_H

//===- Errors.h - TraceError: misuse of the tracing API ---------*- C++ -*-===//
//
// Every misuse of the tracing API (a shape or dtype mismatch, a tensor from
// another or a finished trace, a static argument used as a tensor, a bad axis)
// throws `TraceError`. Its message names the op, the operand shapes and the
// user's source location, so that it reads like a compiler diagnostic:
//
//   dot_general: contracting dimension sizes differ ... (operands f32[5,4],
//   f32[3]) at /src/model.cpp:12
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_ERRORS_H
#define COTANGENT_TRACER_ERRORS_H

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cotangent {

/// Thrown on any misuse of the tracing API; never an MLIR assertion.
class TraceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// `file:line` of a source location, the path as the compiler gave it.
std::string formatLocation(const std::source_location &loc);

/// Throws a TraceError "`op`: `what` (operands `shapes`) at file:line".
/// `shapes` are already formatted ("f32[5,4]"); empty means none.
[[noreturn]] void throwTraceError(std::string_view op, std::string_view what,
                                  const std::vector<std::string> &shapes,
                                  const std::source_location &loc);

} // namespace cotangent

#endif // COTANGENT_TRACER_ERRORS_H

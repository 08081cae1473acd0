//===- CheckFinite.h - where NaN and Inf are, for --check-finite -*- C++ -*-===//
//
// NaN and Inf in arguments are data like any other: the tools compute with
// them, as JAX does. --check-finite (cotangent-run, cotangent-interpret) says
// where they are: a warning for each argument that holds any, an error for
// each result, and the tool exits 1 when a result does.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COMMON_CHECKFINITE_H
#define COTANGENT_TOOLS_COMMON_CHECKFINITE_H

#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>
#include <string>

namespace cotangent::tools {

struct NonFinite {
  int64_t nans = 0, infs = 0;
  int64_t first = -1; ///< flat index of the first one
  explicit operator bool() const { return first >= 0; }
};

inline NonFinite findNonFinite(const interp::Tensor &t) {
  NonFinite found;
  if (!t.isFloat())
    return found;
  for (int64_t i = 0, e = t.getNumElements(); i < e; ++i) {
    double v = t.getDouble(i);
    if (std::isfinite(v))
      continue;
    ++(std::isnan(v) ? found.nans : found.infs);
    if (found.first < 0)
      found.first = i;
  }
  return found;
}

/// "2 NaN and 1 Inf, the first at [0, 1]".
inline std::string describe(const NonFinite &found, llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> index(shape.size());
  int64_t rest = found.first;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? rest % shape[d] : 0;
    rest = shape[d] ? rest / shape[d] : 0;
  }
  std::string text = std::to_string(found.nans) + " NaN and " + std::to_string(found.infs) +
                     " Inf, the first at [";
  for (auto [i, v] : llvm::enumerate(index))
    text += (i ? ", " : "") + std::to_string(v);
  return text + "]";
}

/// Reports the NaN and Inf of `args` (warnings) and `results` (errors) at
/// `loc`, naming each by `argLabel`/`resultLabel` and its position; failure
/// when a result holds any.
inline mlir::LogicalResult checkFinite(mlir::Location loc, llvm::ArrayRef<interp::Tensor> args,
                                       llvm::StringRef resultLabel,
                                       llvm::ArrayRef<interp::Tensor> results) {
  for (auto [i, t] : llvm::enumerate(args))
    if (NonFinite found = findNonFinite(t))
      mlir::emitWarning(loc) << "argument " << i << " (" << t.getType() << ") holds "
                             << describe(found, t.getShape());
  bool clean = true;
  for (auto [i, t] : llvm::enumerate(results))
    if (NonFinite found = findNonFinite(t)) {
      mlir::emitError(loc) << resultLabel << " " << i << " (" << t.getType() << ") holds "
                           << describe(found, t.getShape());
      clean = false;
    }
  return mlir::success(clean);
}

} // namespace cotangent::tools

#endif // COTANGENT_TOOLS_COMMON_CHECKFINITE_H

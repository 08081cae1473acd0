//===- ArrayDifference.h - how far a step's result is from a reference -*- C++ -*-===//
//
// `--expect` compares each result with its reference as |a - b| against
// max |b| (a relative error of the whole array, so that elements near zero
// do not dominate). A result of a 16-bit float type cannot be closer than
// its rounding allows: two runs that accumulate in f32 in different orders
// (cuBLAS and the CPU's BLAS) may round an element, and what is computed
// from it, to neighbouring values, so the tolerance never goes below two
// units in the last place of the largest element.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COTANGENT_STEP_ARRAYDIFFERENCE_H
#define COTANGENT_TOOLS_COTANGENT_STEP_ARRAYDIFFERENCE_H

#include "tools/cotangent-step/NpyFile.h"

#include <optional>

namespace cotangent::step {

/// The relative tolerance below which `dtype` cannot resolve a difference:
/// two units in the last place relative to the largest magnitude (bf16
/// 2^-6, f16 2^-9), 0 for f32, f64 and integers.
double resolution(DType dtype);

struct Difference {
  double abs = 0;   ///< max |a - b|; infinite where only one is NaN or an inf differs
  double scale = 0; ///< max |b| over the finite elements
  double floor = 0; ///< resolution() of the arrays' type
  double relative() const;
  /// |a - b| <= max(rtol, floor) * scale + atol.
  bool within(double rtol, double atol) const;
};

/// nullopt when the types or shapes differ.
std::optional<Difference> difference(const Array &got, const Array &want);

} // namespace cotangent::step

#endif // COTANGENT_TOOLS_COTANGENT_STEP_ARRAYDIFFERENCE_H

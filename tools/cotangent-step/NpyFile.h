//===- NpyFile.h - NumPy .npy files without MLIR ----------------*- C++ -*-===//
//
// cotangent-step's arguments and expected values: versions 1-3, C order,
// little endian, the dtypes a step's manifest names (f16 as raw halves, bf16
// as `<V2`: tools/common/NpyFormat.h). runtime/interpreter/TensorNpy.h is the same
// format over the interpreter's tensors.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COTANGENT_STEP_NPYFILE_H
#define COTANGENT_TOOLS_COTANGENT_STEP_NPYFILE_H

#include "runtime/core/Manifest.h"

#include <string>
#include <vector>

namespace cotangent::step {

using core::byteWidth;
using core::DType;
using core::dtypeName;
using core::TensorType;

struct Array {
  TensorType type;
  std::vector<char> data; ///< type.bytes() bytes, row-major
  double at(int64_t i) const; ///< element i as a double
  /// Element i = v, rounded to the nearest of its type (ties to even).
  void set(int64_t i, double v);
};

/// Reads `path`; on error returns false with `error` saying what is wrong.
bool readNpy(const std::string &path, Array &array, std::string &error);
bool writeNpy(const std::string &path, const Array &array, std::string &error);

} // namespace cotangent::step

#endif // COTANGENT_TOOLS_COTANGENT_STEP_NPYFILE_H

//===- Manifest.h - what a compiled step says about itself ------*- C++ -*-===//
//
// The text `cotangent_manifest()` of a step object returns
// (runtime/host/ObjectFile.h writes it): its target, each public function
// with its packed entry, argument and result types and result memory kinds,
// and its forward/backward splits. Read without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COTANGENT_STEP_MANIFEST_H
#define COTANGENT_TOOLS_COTANGENT_STEP_MANIFEST_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cotangent::step {

enum class DType { F32, F64, F16, BF16, I32, I64, I1 };

struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t elements() const;
  int64_t bytes() const;
  /// "f32[256,1024]"
  std::string str() const;
};

int64_t byteWidth(DType dtype);
const char *dtypeName(DType dtype);

struct Function {
  std::string name, entry;
  std::vector<TensorType> args, results;
  std::vector<bool> pinnedHost; ///< per result: waits in pinned host memory
};

struct Split {
  std::string base, fwd, bwd;
  int64_t numOutputs = 0;
  /// The device memory the step's memory plan predicts (`plan` line); -1
  /// where the manifest has none.
  int64_t predictedPeakBytes = -1, predictedResidualBytes = -1;
};

struct Manifest {
  std::string target; ///< "cuda sm_80,sm_90"
  std::map<std::string, Function> functions;
  std::vector<Split> splits;
};

/// Parses `text`; on error returns false with `error` naming the line.
bool parseManifest(const std::string &text, Manifest &manifest, std::string &error);

} // namespace cotangent::step

#endif // COTANGENT_TOOLS_COTANGENT_STEP_MANIFEST_H

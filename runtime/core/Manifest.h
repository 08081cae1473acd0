//===- Manifest.h - what a compiled step says about itself ------*- C++ -*-===//
//
// The one schema of a compiled step's signatures, with its writer and its
// reader: the text `cotangent_manifest()` of a step object returns (written
// by runtime/host/ObjectFile.cpp's stepManifest, read by cotangent-step):
// its target, each public function with its packed entry, argument and
// result types (dtype and shape) and result memory kinds, its
// forward/backward splits and their predicted memory. Free of MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_MANIFEST_H
#define COTANGENT_RUNTIME_CORE_MANIFEST_H

#include "runtime/core/TensorType.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cotangent::core {

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

/// The manifest's text: functions by name, then the splits in order, each
/// with its `plan` line where it has a prediction.
std::string writeManifest(const Manifest &manifest);

/// Parses `text`; on error returns false with `error` naming the line.
bool parseManifest(const std::string &text, Manifest &manifest, std::string &error);

} // namespace cotangent::core

#endif // COTANGENT_RUNTIME_CORE_MANIFEST_H

//===- TensorNpy.h - NumPy .npy files of host tensors -----------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (versions 1-3) for every dtype of
// jx: f32, f64, f16, bf16 (as `<V2`, tools/common/NpyFormat.h), i32, i64 and
// bool, in C order, little endian.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_TENSORNPY_H
#define COTANGENT_RUNTIME_INTERPRETER_TENSORNPY_H

#include "runtime/interpreter/Tensor.h"

#include "llvm/Support/Error.h"

#include <string>

namespace cotangent::npy {

/// Parses `bytes` (a whole .npy file) into a tensor in `ctx`; the error says
/// what is wrong with the file.
llvm::Expected<interp::Tensor> parse(mlir::MLIRContext *ctx, llvm::StringRef bytes);

/// The .npy bytes of `tensor` (version 1.0).
llvm::Expected<std::string> serialize(const interp::Tensor &tensor);

} // namespace cotangent::npy

#endif // COTANGENT_RUNTIME_INTERPRETER_TENSORNPY_H

//===- KernelStructure.h - when two kernels compute the same ----*- C++ -*-===//
//
// A model repeats itself (the layers of an MLP, the blocks of a
// transformer), and so do the kernels lowered from it. Both back ends
// compile each structure once: jx-outline-kernels (CPU loop nests as
// functions) and jx-gpu-merge-kernels (GPU kernel modules). Kernels are
// bucketed by a hash and compared exactly within a bucket, which keeps the
// search linear in the program's size.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_LLVM_KERNELSTRUCTURE_H
#define COTANGENT_CONVERSION_LLVM_KERNELSTRUCTURE_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::cotangent {

/// A hash that kernels of the same structure share: the function type and,
/// in order, every op's name, attributes, result types, operand count and
/// nesting. The function's own name and attributes are left out.
llvm::hash_code structuralHash(FunctionOpInterface kernel);

/// Whether `a` and `b` compute the same: the same type and bodies equal but
/// for locations (their names and other attributes are not compared).
bool sameStructure(FunctionOpInterface a, FunctionOpInterface b);

} // namespace mlir::cotangent

#endif // COTANGENT_CONVERSION_LLVM_KERNELSTRUCTURE_H

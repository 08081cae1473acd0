// --jx-remat-function's errors: no policy, a policy that does not parse, a
// function that is not there, an argument that is not a tensor.
// RUN: not cotangent-opt %s --jx-remat-function 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not cotangent-opt %s --jx-remat-function="policy=save_everything" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not cotangent-opt %s --jx-remat-function="policy=nothing_saveable function=g" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not cotangent-opt %s --jx-remat-function="policy=nothing_saveable function=scaled" 2>&1 | FileCheck %s --check-prefix=SCALAR

// NONE: error: --jx-remat-function: give the policy, e.g. --jx-remat-function="policy=memory_budget(0.8)"
// BAD: error: --jx-remat-function: unknown remat policy 'save_everything'; expected one of: everything_saveable,
// MISSING: error: --jx-remat-function: no function @g with a body
// SCALAR: jx-remat-function-errors.mlir:[[@LINE+5]]:1: error: --jx-remat-function: argument 1 of @scaled is 'i32', not a tensor; a jx.remat region takes tensors
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @scaled(%x: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

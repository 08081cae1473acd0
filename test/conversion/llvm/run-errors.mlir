// Bad input gets a diagnostic with a location and exit code 1.
// RUN: not cotangent-run %s --fn missing 2>&1 | FileCheck %s --check-prefix=FN
// RUN: not cotangent-run %s --fn twice --input %s 2>&1 | FileCheck %s --check-prefix=NPY
// RUN: not cotangent-run %s --fn twice --input %s --input %s 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not cotangent-run %s --fn twice --split 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not cotangent-run %S/Inputs/malformed.mlir --fn f 2>&1 | FileCheck %s --check-prefix=PARSE

// FN: run-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: no function @missing in
// NPY: run-errors.mlir:0:0: error: not a .npy file (no \x93NUMPY magic)
// COUNT: run-errors.mlir:{{[0-9]+}}:1: error: @twice takes 1 arguments, 2 --input files given
// SPLIT: error: no forward/backward pair of @twice in {{.*}} (pass --vjp to make it)
// PARSE: malformed.mlir:3:15: error: use of value
func.func @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Malformed input exits non-zero with file:line:col, never a crash.
// RUN: not cotangent-opt %s 2>&1 | FileCheck %s
// RUN: not cotangent-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not cotangent-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: cotangent-opt --version | FileCheck %s --check-prefix=VERSION

// CHECK: cotangent-opt-errors.mlir:[[@LINE+2]]:8: error: custom op 'jx.sinn' is unknown
func.func @f(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = jx.sinn %x : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// MISSING: cannot open input file
// FLAG: Unknown command line argument '--no-such-flag'
// VERSION: Cotangent {{[0-9.]+$}}

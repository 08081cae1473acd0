// Bad input gets a diagnostic with a location and exit code 1, never a crash.
// RUN: not cotangent-interpret %s --fn nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not cotangent-interpret %s --fn f --arg "dense<1.0> : tensor<2xf32>" --arg "dense<1.0> : tensor<2xf32>" 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not cotangent-interpret %s --fn f --arg "dense<1.0> : tensor<3xf32>" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not cotangent-interpret %s --fn f --arg "dense<1> : tensor<2xi32>" 2>&1 | FileCheck %s --check-prefix=ELEMENT
// RUN: not cotangent-interpret %s --fn f --arg "dense<[1.0, 2.0> : tensor<2xf32>" 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not cotangent-interpret %s --fn f --arg "42 : i32" 2>&1 | FileCheck %s --check-prefix=NOTDENSE
// RUN: not cotangent-interpret %s --fn scalar 2>&1 | FileCheck %s --check-prefix=RANDOM
// RUN: not cotangent-interpret %S/Inputs/malformed.mlir --fn f 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not cotangent-interpret %s.missing --fn f 2>&1 | FileCheck %s --check-prefix=MISSING

// UNKNOWN: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: no function named 'nope'
// COUNT: errors.mlir:[[@LINE+4]]:1: error: @f takes 1 arguments, got 2 --arg
// TYPE: errors.mlir:[[@LINE+3]]:14: error: argument #0 of 'f' has type 'tensor<2xf32>', got 'tensor<3xf32>'
// ELEMENT: errors.mlir:[[@LINE+2]]:14: error: argument #0 of 'f' has type 'tensor<2xf32>', got 'tensor<2xi32>'
// PARSE: error: expected ']'
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.neg %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// NOTDENSE: errors.mlir:[[@LINE-5]]:14: error: --arg #0 must be a dense literal of a static jx tensor type, got 42 : i32

// RANDOM: errors.mlir:[[@LINE+1]]:19: error: cannot make a random argument of type 'f32'
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}

// MALFORMED: malformed.mlir:2:15: error: use of value '%x' expects different type
// MISSING: cannot open input file

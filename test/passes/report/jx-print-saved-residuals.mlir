// RUN: cotangent-opt %s --jx-vjp --jx-print-saved-residuals=format=json -o /dev/null | FileCheck %s
// RUN: cotangent-opt %s --jx-vjp --jx-print-saved-residuals=json -o /dev/null | FileCheck %s
// RUN: not cotangent-opt %s --jx-print-saved-residuals 2>&1 | FileCheck %s --check-prefix=NOFWD
// RUN: not cotangent-opt %s --jx-vjp --jx-print-saved-residuals=format=xml 2>&1 | FileCheck %s --check-prefix=FORMAT

#g = loc("g"("model.cpp":12:7))
func.func @f(%x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<4xf32> {
  %0 = jx.sin %x : tensor<4xf32> loc(#g)
  %1 = jx.checkpoint_name %0, "a" : tensor<4xf32> loc(#g)
  %2 = jx.mul %1, %1 : tensor<4xf32> loc(#g)
  return %2 : tensor<4xf32>
}
// CHECK:      [
// CHECK-NEXT:   {
// CHECK-NEXT:     "function": "f",
// CHECK:      "residuals": [
// CHECK:          "bytes": 16,
// CHECK-NEXT:     "kind": "output",
// CHECK-NEXT:     "location": "model.cpp:12 (g)",
// CHECK-NEXT:     "type": "f32[4]",
// CHECK-NEXT:     "what": "cos"
// CHECK:          "kind": "named",
// CHECK:          "what": "a"
// CHECK:      "total_bytes": 32
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "function": "h",
// CHECK:          "total_bytes": 0
// CHECK-NEXT:   }
// CHECK-NEXT: ]

// A second split: the same array (one JSON document for every split).
func.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// NOFWD: error: --jx-print-saved-residuals: no forward function in the module; run --jx-vjp first
// FORMAT: for the --format option: Cannot find option named 'xml'!
// FORMAT: =text
// FORMAT: =json

// RUN: cotangent-opt %s --jx-approximate-math | FileCheck %s

// f32 tanh, exp, expm1, log, log1p, erf, erfc and atan2 become arithmetic (fused
// multiply-adds as LLVM's intrinsic, which the loop vectorizer widens);
// f64, and f32 sin and cos, stay math ops (libm calls later).
// CHECK-LABEL: func.func @approximated
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.log
// CHECK-NOT:     math.atan2
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.fma
// CHECK:         llvm.intr.fma
// CHECK:         return
func.func @approximated(%x: f32, %y: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.exp %x : f32
  %2 = math.expm1 %x : f32
  %3 = math.log %x : f32
  %4 = math.log1p %x : f32
  %5 = math.atan2 %x, %y : f32
  %6 = math.erf %x : f32
  %7 = math.erfc %x : f32
  return %0, %1, %2, %3, %4, %5, %6, %7 : f32, f32, f32, f32, f32, f32, f32, f32
}

// CHECK-LABEL: func.func @kept
// CHECK:         math.tanh %{{.*}} : f64
// CHECK:         math.exp %{{.*}} : f64
// CHECK:         math.erf %{{.*}} : f64
// CHECK:         math.sin %{{.*}} : f32
// CHECK:         math.cos %{{.*}} : f32
func.func @kept(%x: f64, %s: f32) -> (f64, f64, f64, f32, f32) {
  %0 = math.tanh %x : f64
  %1 = math.exp %x : f64
  %4 = math.erf %x : f64
  %2 = math.sin %s : f32
  %3 = math.cos %s : f32
  return %0, %1, %4, %2, %3 : f64, f64, f64, f32, f32
}

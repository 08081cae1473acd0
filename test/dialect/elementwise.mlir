// Every elementwise op prints, parses and prints again; the custom form
// survives a detour through the generic form.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
func.func @unary_float(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %[[V0:.+]] = jx.neg %[[X]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V1:.+]] = jx.sin %[[V0]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V2:.+]] = jx.cos %[[V1]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V3:.+]] = jx.tan %[[V2]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V4:.+]] = jx.exp %[[V3]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V5:.+]] = jx.log %[[V4]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V6:.+]] = jx.log1p %[[V5]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V7:.+]] = jx.expm1 %[[V6]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[E0:.+]] = jx.erf %[[V7]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[E1:.+]] = jx.erfc %[[E0]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V8:.+]] = jx.tanh %[[E1]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V9:.+]] = jx.logistic %[[V8]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V10:.+]] = jx.sqrt %[[V9]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V11:.+]] = jx.rsqrt %[[V10]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V12:.+]] = jx.abs %[[V11]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V13:.+]] = jx.sign %[[V12]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V14:.+]] = jx.floor %[[V13]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V15:.+]] = jx.ceil %[[V14]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V16:.+]] = jx.stop_gradient %[[V15]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[V17:.+]] = jx.integer_pow %[[V16]], y = -2 : tensor<2x3xf32>
  // CHECK-NEXT: return %[[V17]] : tensor<2x3xf32>
  %0 = jx.neg %x : tensor<2x3xf32>
  %1 = jx.sin %0 : tensor<2x3xf32>
  %2 = jx.cos %1 : tensor<2x3xf32>
  %3 = jx.tan %2 : tensor<2x3xf32>
  %4 = jx.exp %3 : tensor<2x3xf32>
  %5 = jx.log %4 : tensor<2x3xf32>
  %6 = jx.log1p %5 : tensor<2x3xf32>
  %7 = jx.expm1 %6 : tensor<2x3xf32>
  %e0 = jx.erf %7 : tensor<2x3xf32>
  %e1 = jx.erfc %e0 : tensor<2x3xf32>
  %8 = jx.tanh %e1 : tensor<2x3xf32>
  %9 = jx.logistic %8 : tensor<2x3xf32>
  %10 = jx.sqrt %9 : tensor<2x3xf32>
  %11 = jx.rsqrt %10 : tensor<2x3xf32>
  %12 = jx.abs %11 : tensor<2x3xf32>
  %13 = jx.sign %12 : tensor<2x3xf32>
  %14 = jx.floor %13 : tensor<2x3xf32>
  %15 = jx.ceil %14 : tensor<2x3xf32>
  %16 = jx.stop_gradient %15 : tensor<2x3xf32>
  %17 = jx.integer_pow %16, y = -2 : tensor<2x3xf32>
  return %17 : tensor<2x3xf32>
}

// The float ops accept every float width, 0-d tensors included.
// CHECK-LABEL: func.func @float_widths
func.func @float_widths(%a: tensor<f64>, %b: tensor<4xf16>, %c: tensor<4xbf16>)
    -> (tensor<f64>, tensor<4xf16>, tensor<4xbf16>) {
  // CHECK-NEXT: jx.exp %{{.*}} : tensor<f64>
  // CHECK-NEXT: jx.logistic %{{.*}} : tensor<4xf16>
  // CHECK-NEXT: jx.rsqrt %{{.*}} : tensor<4xbf16>
  %0 = jx.exp %a : tensor<f64>
  %1 = jx.logistic %b : tensor<4xf16>
  %2 = jx.rsqrt %c : tensor<4xbf16>
  return %0, %1, %2 : tensor<f64>, tensor<4xf16>, tensor<4xbf16>
}

// neg, abs, sign and integer_pow (non-negative y) take integers; not takes
// integers and booleans; stop_gradient takes every element type.
// CHECK-LABEL: func.func @unary_int_bool
func.func @unary_int_bool(%i: tensor<3xi32>, %l: tensor<3xi64>, %p: tensor<3xi1>)
    -> (tensor<3xi32>, tensor<3xi64>, tensor<3xi1>) {
  // CHECK-NEXT: %[[N:.+]] = jx.neg %{{.*}} : tensor<3xi32>
  // CHECK-NEXT: %[[A:.+]] = jx.abs %[[N]] : tensor<3xi32>
  // CHECK-NEXT: %[[S:.+]] = jx.sign %[[A]] : tensor<3xi32>
  // CHECK-NEXT: %[[P:.+]] = jx.integer_pow %[[S]], y = 3 : tensor<3xi32>
  // CHECK-NEXT: %[[NI:.+]] = jx.not %[[P]] : tensor<3xi32>
  // CHECK-NEXT: %[[NL:.+]] = jx.not %{{.*}} : tensor<3xi64>
  // CHECK-NEXT: %[[NP:.+]] = jx.not %{{.*}} : tensor<3xi1>
  // CHECK-NEXT: %[[SG:.+]] = jx.stop_gradient %[[NP]] : tensor<3xi1>
  // CHECK-NEXT: return %[[NI]], %[[NL]], %[[SG]]
  %0 = jx.neg %i : tensor<3xi32>
  %1 = jx.abs %0 : tensor<3xi32>
  %2 = jx.sign %1 : tensor<3xi32>
  %3 = jx.integer_pow %2, y = 3 : tensor<3xi32>
  %4 = jx.not %3 : tensor<3xi32>
  %5 = jx.not %l : tensor<3xi64>
  %6 = jx.not %p : tensor<3xi1>
  %7 = jx.stop_gradient %6 : tensor<3xi1>
  return %4, %5, %7 : tensor<3xi32>, tensor<3xi64>, tensor<3xi1>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[Y:[a-z0-9]+]]: tensor<4xf32>)
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[V0:.+]] = jx.add %[[X]], %[[Y]] : tensor<4xf32>
  // CHECK-NEXT: %[[V1:.+]] = jx.sub %[[V0]], %[[Y]] : tensor<4xf32>
  // CHECK-NEXT: %[[V2:.+]] = jx.mul %[[V1]], %[[X]] : tensor<4xf32>
  // CHECK-NEXT: %[[V3:.+]] = jx.div %[[V2]], %[[Y]] : tensor<4xf32>
  // CHECK-NEXT: %[[V4:.+]] = jx.max %[[V3]], %[[X]] : tensor<4xf32>
  // CHECK-NEXT: %[[V5:.+]] = jx.min %[[V4]], %[[Y]] : tensor<4xf32>
  // CHECK-NEXT: %[[V6:.+]] = jx.pow %[[V5]], %[[X]] : tensor<4xf32>
  // CHECK-NEXT: %[[V7:.+]] = jx.atan2 %[[V6]], %[[Y]] : tensor<4xf32>
  // CHECK-NEXT: %[[V8:.+]] = jx.rem %[[V7]], %[[X]] : tensor<4xf32>
  // CHECK-NEXT: return %[[V8]] : tensor<4xf32>
  %0 = jx.add %x, %y : tensor<4xf32>
  %1 = jx.sub %0, %y : tensor<4xf32>
  %2 = jx.mul %1, %x : tensor<4xf32>
  %3 = jx.div %2, %y : tensor<4xf32>
  %4 = jx.max %3, %x : tensor<4xf32>
  %5 = jx.min %4, %y : tensor<4xf32>
  %6 = jx.pow %5, %x : tensor<4xf32>
  %7 = jx.atan2 %6, %y : tensor<4xf32>
  %8 = jx.rem %7, %x : tensor<4xf32>
  return %8 : tensor<4xf32>
}

// CHECK-LABEL: func.func @binary_int_bool
func.func @binary_int_bool(%i: tensor<2x2xi64>, %p: tensor<2x2xi1>, %q: tensor<2x2xi1>, %h: tensor<f16>)
    -> (tensor<2x2xi64>, tensor<2x2xi1>, tensor<f16>) {
  // CHECK-NEXT: %[[D:.+]] = jx.div %{{.*}}, %{{.*}} : tensor<2x2xi64>
  // CHECK-NEXT: %[[R:.+]] = jx.rem %[[D]], %{{.*}} : tensor<2x2xi64>
  // CHECK-NEXT: %[[A:.+]] = jx.and %[[R]], %[[R]] : tensor<2x2xi64>
  // CHECK-NEXT: %[[O:.+]] = jx.or %{{.*}}, %{{.*}} : tensor<2x2xi1>
  // CHECK-NEXT: %[[B:.+]] = jx.and %[[O]], %{{.*}} : tensor<2x2xi1>
  // CHECK-NEXT: %[[W:.+]] = jx.pow %{{.*}}, %{{.*}} : tensor<f16>
  // CHECK-NEXT: return %[[A]], %[[B]], %[[W]]
  %0 = jx.div %i, %i : tensor<2x2xi64>
  %1 = jx.rem %0, %i : tensor<2x2xi64>
  %2 = jx.and %1, %1 : tensor<2x2xi64>
  %3 = jx.or %p, %q : tensor<2x2xi1>
  %4 = jx.and %3, %p : tensor<2x2xi1>
  %5 = jx.pow %h, %h : tensor<f16>
  return %2, %4, %5 : tensor<2x2xi64>, tensor<2x2xi1>, tensor<f16>
}

// Comparisons print the operand type; the result is i1 of the same shape.
// CHECK-LABEL: func.func @compare
func.func @compare(%x: tensor<4xf32>, %i: tensor<2x3xi32>, %b: tensor<bf16>, %p: tensor<i1>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<i1>, tensor<i1>) {
  // CHECK-NEXT: %[[EQ:.+]] = jx.eq %{{.*}}, %{{.*}} : tensor<4xf32>
  // CHECK-NEXT: %[[NE:.+]] = jx.ne %{{.*}}, %{{.*}} : tensor<4xf32>
  // CHECK-NEXT: %[[LT:.+]] = jx.lt %{{.*}}, %{{.*}} : tensor<2x3xi32>
  // CHECK-NEXT: %[[LE:.+]] = jx.le %{{.*}}, %{{.*}} : tensor<2x3xi32>
  // CHECK-NEXT: %[[GT:.+]] = jx.gt %{{.*}}, %{{.*}} : tensor<bf16>
  // CHECK-NEXT: %[[GE:.+]] = jx.ge %{{.*}}, %{{.*}} : tensor<i1>
  // CHECK-NEXT: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]] : tensor<4xi1>, tensor<4xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<i1>, tensor<i1>
  %0 = jx.eq %x, %x : tensor<4xf32>
  %1 = jx.ne %x, %x : tensor<4xf32>
  %2 = jx.lt %i, %i : tensor<2x3xi32>
  %3 = jx.le %i, %i : tensor<2x3xi32>
  %4 = jx.gt %b, %b : tensor<bf16>
  %5 = jx.ge %p, %p : tensor<i1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<i1>, tensor<i1>
}

// select_n: a boolean selector of the cases' shape, a scalar i32 selector
// over three cases, and a single case.
// CHECK-LABEL: func.func @select_n
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<4xi1>, %[[K:[a-z0-9]+]]: tensor<i32>, %[[A:[a-z0-9]+]]: tensor<4xf64>, %[[B:[a-z0-9]+]]: tensor<4xf64>, %[[C:[a-z0-9]+]]: tensor<4xf64>)
func.func @select_n(%p: tensor<4xi1>, %k: tensor<i32>, %a: tensor<4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>)
    -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  // CHECK-NEXT: %[[S0:.+]] = jx.select_n %[[P]], %[[A]], %[[B]] : tensor<4xi1>, tensor<4xf64>, tensor<4xf64>
  // CHECK-NEXT: %[[S1:.+]] = jx.select_n %[[K]], %[[A]], %[[B]], %[[C]] : tensor<i32>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
  // CHECK-NEXT: %[[S2:.+]] = jx.select_n %[[K]], %[[C]] : tensor<i32>, tensor<4xf64>
  // CHECK-NEXT: return %[[S0]], %[[S1]], %[[S2]]
  %0 = jx.select_n %p, %a, %b : tensor<4xi1>, tensor<4xf64>, tensor<4xf64>
  %1 = jx.select_n %k, %a, %b, %c : tensor<i32>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
  %2 = jx.select_n %k, %c : tensor<i32>, tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// The bit ops of JAX's PRNG.
// CHECK-LABEL: func.func @prng_bits
func.func @prng_bits(%k: tensor<4xi32>, %x: tensor<4xi32>, %b: tensor<4xi1>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>) {
  // CHECK-NEXT: %[[Y0:[^,]+]], %[[Y1:.+]] = jx.threefry2x32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi32>
  // CHECK-NEXT: %[[S:.+]] = jx.shift_right_logical %[[Y0]], %{{.*}} : tensor<4xi32>
  // CHECK-NEXT: %[[X:.+]] = jx.xor %[[S]], %[[Y1]] : tensor<4xi32>
  // CHECK-NEXT: %[[F:.+]] = jx.bitcast_convert_type %[[X]] : tensor<4xi32> -> tensor<4xf32>
  // CHECK-NEXT: %[[B:.+]] = jx.xor %{{.*}}, %{{.*}} : tensor<4xi1>
  %y0, %y1 = jx.threefry2x32 %k, %k, %x, %x : tensor<4xi32>
  %s = jx.shift_right_logical %y0, %x : tensor<4xi32>
  %r = jx.xor %s, %y1 : tensor<4xi32>
  %f = jx.bitcast_convert_type %r : tensor<4xi32> -> tensor<4xf32>
  %c = jx.xor %b, %b : tensor<4xi1>
  return %y0, %r, %f, %c : tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>
}

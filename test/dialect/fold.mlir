// The folders, under -canonicalize; and what must not fold: a used
// checkpoint_name, and optimization_barriers under -cse.
// RUN: cotangent-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: cotangent-opt %s -cse -split-input-file | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.neg %x : tensor<4xf32>
  %1 = jx.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// A single neg stays.
// CHECK-LABEL: func.func @neg_once
// CHECK-NEXT: %[[N:.+]] = jx.neg
// CHECK-NEXT: return %[[N]]
func.func @neg_once(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = jx.neg %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jx.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A chain becomes one reshape from the original operand.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = jx.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = jx.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = jx.reshape %0 : tensor<6xf32> -> tensor<1x6xf32>
  %2 = jx.reshape %1 : tensor<1x6xf32> -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// A chain that ends where it started disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jx.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = jx.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT: %[[C:.+]] = jx.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_constant() -> tensor<2x2xi32> {
  %0 = jx.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %1 = jx.reshape %0 : tensor<4xi32> -> tensor<2x2xi32>
  return %1 : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jx.transpose %x, perm = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A permutation that keeps the type is still a transpose.
// CHECK-LABEL: func.func @transpose_square
// CHECK-NEXT: jx.transpose %{{.*}}, perm = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
func.func @transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = jx.transpose %x, perm = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @squeeze_nothing
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @squeeze_nothing(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = jx.squeeze %x, dims = [] : tensor<1x3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @select_single_case
// CHECK-SAME: (%{{[a-z0-9]+}}: tensor<i32>, %[[A:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[A]]
func.func @select_single_case(%k: tensor<i32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.select_n %k, %a : tensor<i32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A constant selector picks its case; out-of-range indices clamp.
// CHECK-LABEL: func.func @select_constant
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>, %[[C:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[B]], %[[A]], %[[C]], %[[A]], %[[C]], %[[B]]
func.func @select_constant(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = jx.constant dense<true> : tensor<i1>
  %f = jx.constant dense<false> : tensor<i1>
  %two = jx.constant dense<2> : tensor<i32>
  %neg = jx.constant dense<-1> : tensor<i32>
  %big = jx.constant dense<7> : tensor<i32>
  %one = jx.constant dense<1> : tensor<4xi32>
  %0 = jx.select_n %t, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %1 = jx.select_n %f, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %2 = jx.select_n %two, %a, %b, %c : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %3 = jx.select_n %neg, %a, %b, %c : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %4 = jx.select_n %big, %a, %b, %c : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %5 = jx.select_n %one, %a, %b, %c : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A selector that is not constant stays.
// CHECK-LABEL: func.func @select_variable
// CHECK-NEXT: jx.select_n
func.func @select_variable(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.select_n %p, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.+]] = jx.constant dense<2.500000e+00> : tensor<3x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<3x4xf32> {
  %0 = jx.constant dense<2.5> : tensor<4xf32>
  %1 = jx.broadcast_in_dim %0, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// A non-splat constant is not broadcast at compile time.
// CHECK-LABEL: func.func @broadcast_dense
// CHECK: jx.broadcast_in_dim
func.func @broadcast_dense() -> tensor<3x2xf32> {
  %0 = jx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = jx.broadcast_in_dim %0, dims = [1] : tensor<2xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xi1>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_identity(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %0 = jx.broadcast_in_dim %x, dims = [0, 1] : tensor<2x3xi1> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @reduce_no_axes
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @reduce_no_axes(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = jx.reduce_sum %x, axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = jx.reduce_max %x, axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = jx.reduce_min %x, axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = jx.reduce_prod %x, axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @convert_same_type
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3xbf16>)
// CHECK-NEXT: %[[C:.+]] = jx.convert_element_type %[[X]] : tensor<3xbf16> -> tensor<3xf32>
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @convert_same_type(%x: tensor<3xbf16>) -> (tensor<3xbf16>, tensor<3xf32>) {
  %0 = jx.convert_element_type %x : tensor<3xbf16> -> tensor<3xbf16>
  %1 = jx.convert_element_type %x : tensor<3xbf16> -> tensor<3xf32>
  return %0, %1 : tensor<3xbf16>, tensor<3xf32>
}

// CHECK-LABEL: func.func @concatenate_one
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3xi64>)
// CHECK-NEXT: return %[[X]]
func.func @concatenate_one(%x: tensor<3xi64>) -> tensor<3xi64> {
  %0 = jx.concatenate(%x) dim = 0 : tensor<3xi64> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// CHECK-LABEL: func.func @slice_whole
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2xf64>)
// CHECK-NEXT: %[[S:.+]] = jx.slice %[[X]], start = [0, 0], limit = [4, 2], strides = [2, 1]
// CHECK-NEXT: return %[[X]], %[[S]]
func.func @slice_whole(%x: tensor<4x2xf64>) -> (tensor<4x2xf64>, tensor<2x2xf64>) {
  %0 = jx.slice %x, start = [0, 0], limit = [4, 2], strides = [1, 1] : tensor<4x2xf64> -> tensor<4x2xf64>
  %1 = jx.slice %x, start = [0, 0], limit = [4, 2], strides = [2, 1] : tensor<4x2xf64> -> tensor<2x2xf64>
  return %0, %1 : tensor<4x2xf64>, tensor<2x2xf64>
}

// Folds reach into regions; the region ops themselves stay.
// CHECK-LABEL: func.func @fold_in_remat
// CHECK-NEXT: jx.remat
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4xf32>):
// CHECK-NEXT:   jx.yield %[[A]] : tensor<4xf32>
func.func @fold_in_remat(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.remat (%x) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<4xf32>):
    %1 = jx.neg %a : tensor<4xf32>
    %2 = jx.neg %1 : tensor<4xf32>
    jx.yield %2 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// checkpoint_name is an identity the policies look at: it survives while used,
// even when everything around it folds away.
// CHECK-LABEL: func.func @checkpoint_name_kept
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.+]] = jx.checkpoint_name %[[X]], "h" : tensor<4xf32>
// CHECK-NEXT: return %[[N]]
func.func @checkpoint_name_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.neg %x : tensor<4xf32>
  %1 = jx.neg %0 : tensor<4xf32>
  %2 = jx.checkpoint_name %1, "h" : tensor<4xf32>
  %3 = jx.reshape %2 : tensor<4xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// An optimization_barrier is opaque to canonicalization, even with a
// constant operand and identical neighbours.
// CHECK-LABEL: func.func @barrier_kept
// CHECK: %[[C:.+]] = jx.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[B0:.+]] = jx.optimization_barrier %[[C]] : tensor<4xf32>
// CHECK-NEXT: %[[B1:.+]] = jx.optimization_barrier %[[C]] : tensor<4xf32>
// CHECK-NEXT: %[[N:.+]] = jx.neg %[[B1]]
// CHECK-NEXT: %[[B2:.+]] = jx.optimization_barrier %[[N]] : tensor<4xf32>
// CHECK-NEXT: %[[M:.+]] = jx.neg %[[B2]]
// CHECK-NEXT: return %[[B0]], %[[M]]
func.func @barrier_kept() -> (tensor<4xf32>, tensor<4xf32>) {
  %c = jx.constant dense<1.0> : tensor<4xf32>
  %0 = jx.optimization_barrier %c : tensor<4xf32>
  %1 = jx.optimization_barrier %c : tensor<4xf32>
  %2 = jx.neg %1 : tensor<4xf32>
  %3 = jx.optimization_barrier %2 : tensor<4xf32>
  %4 = jx.neg %3 : tensor<4xf32>
  return %0, %4 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CSE merges identical pure ops, but never two optimization_barriers: that
// is what keeps a recomputation apart from the forward computation.
// CSE-LABEL: func.func @cse_barriers
// CSE-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CSE-NEXT: %[[S:.+]] = jx.sin %[[X]]
// CSE-NEXT: %[[B0:.+]] = jx.optimization_barrier %[[X]] : tensor<4xf32>
// CSE-NEXT: %[[B1:.+]] = jx.optimization_barrier %[[X]] : tensor<4xf32>
// CSE-NEXT: %[[T0:.+]] = jx.sin %[[B0]]
// CSE-NEXT: %[[T1:.+]] = jx.sin %[[B1]]
// CSE-NEXT: return %[[S]], %[[S]], %[[T0]], %[[T1]]
func.func @cse_barriers(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.sin %x : tensor<4xf32>
  %b0 = jx.optimization_barrier %x : tensor<4xf32>
  %b1 = jx.optimization_barrier %x : tensor<4xf32>
  %2 = jx.sin %b0 : tensor<4xf32>
  %3 = jx.sin %b1 : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

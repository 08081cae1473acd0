// --jx-raise-composites on what python/cotangent_jax exports (cotangent_jax.to_jx of the
// JAX functions named above each @function, trimmed of locations): attention in JAX's two
// layouts, causal or not, scaled on the scores or on the query; optax's cross-entropy and its
// log_softmax form. Then what must stay: a mask that is not tril, a softmax whose maximum is
// of other scores, f64, probabilities used twice.
// RUN: cotangent-opt %s --jx-raise-composites | FileCheck %s
// The raised program computes what the original does (the reference interpreter, within
// rounding): the same leading digits from both, seeded or given arguments; labels out of
// [-C, C) give NaN in both (JAX's fill mode, kept by a select).
// DEFINE: %{logits} = '--arg=dense<[[[1.0,2.0,0.5,-1.0,3.0],[0.1,0.2,0.3,0.4,0.5],[2.0,-2.0,1.0,0.0,1.5]],[[-1.0,0.0,1.0,2.0,3.0],[4.0,1.0,0.0,0.5,0.25],[0.7,0.6,0.5,0.4,0.3]]]>:tensor<2x3x5xf32>'
// DEFINE: %{labels} = %{logits} '--arg=dense<[[0,4,-1],[2,-5,3]]>:tensor<2x3xi32>'
// DEFINE: %{outside} = %{logits} '--arg=dense<[[0,4,5],[2,-5,3]]>:tensor<2x3xi32>'
// RUN: cotangent-interpret %s --fn bhtd_causal --seed 1 | FileCheck %s --check-prefix=CAUSAL
// RUN: cotangent-opt %s --jx-raise-composites | cotangent-interpret - --fn bhtd_causal --seed 1 | FileCheck %s --check-prefix=CAUSAL
// RUN: cotangent-interpret %s --fn flax_causal --seed 1 | FileCheck %s --check-prefix=CAUSAL
// RUN: cotangent-opt %s --jx-raise-composites | cotangent-interpret - --fn flax_causal --seed 1 | FileCheck %s --check-prefix=CAUSAL
// RUN: cotangent-interpret %s --fn btnh --seed 2 | FileCheck %s --check-prefix=BTNH
// RUN: cotangent-opt %s --jx-raise-composites | cotangent-interpret - --fn btnh --seed 2 | FileCheck %s --check-prefix=BTNH
// RUN: cotangent-opt %s --jx-vjp | cotangent-interpret - --fn ce_mean_value_and_grad %{labels} | FileCheck %s --check-prefix=CE
// RUN: cotangent-opt %s --jx-raise-composites --jx-vjp | cotangent-interpret - --fn ce_mean_value_and_grad %{labels} | FileCheck %s --check-prefix=CE
// RUN: cotangent-interpret %s --fn ce_logsoftmax %{labels} | FileCheck %s --check-prefix=LOGSOFTMAX
// RUN: cotangent-opt %s --jx-raise-composites | cotangent-interpret - --fn ce_logsoftmax %{labels} | FileCheck %s --check-prefix=LOGSOFTMAX
// RUN: cotangent-opt %s --jx-raise-composites | cotangent-interpret - --fn ce_mean %{outside} | FileCheck %s --check-prefix=OUTSIDE

// CAUSAL: result 0: dense<{{\[+}}0.822525{{[0-9]*[], []+}}0.152861{{[0-9]*[], []+}}0.847738{{[0-9]*[], []+}}-0.951210{{[0-9]*[], []+}}0.529835
// BTNH: result 0: dense<{{\[+}}-0.046750{{[0-9]*[], []+}}-0.216722{{[0-9]*[], []+}}0.315651{{[0-9]*[], []+}}-0.317550{{[0-9]*}}
// CE: result 0: dense<1.572194{{[0-9]*}}> : tensor<f32>
// CE: result 1: dense<{{\[+}}-0.152601{{[0-9]*[], []+}}0.038234{{[0-9]*[], []+}}0.0085312{{[0-9]*[], []+}}0.0019035{{[0-9]*[], []+}}0.103931
// LOGSOFTMAX: result 0: dense<9.433169{{[0-9]*}}> : tensor<f32>
// OUTSIDE: result 0: dense<0x7FC00000> : tensor<f32>

module {

// gpt2_jax.py's attention: q, k, v transposed to [b, h, t, d], einsum "bhqd,bhkd->bhqk",
// / sqrt(d), where(tril(ones(T, T)), s, finfo(f32).min), softmax, einsum "bhqk,bhkd->bqhd".
// The transposes cancel: the composite reads the arguments.
// CHECK-LABEL: func.func @bhtd_causal
// CHECK-NEXT: %[[O:.*]], %{{.*}} = jx.dot_product_attention %arg0, %arg1, %arg2, scale = 5.000000e-01 causal
// CHECK-NEXT: return %[[O]]
  func.func @bhtd_causal(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> tensor<1x4x2x4xf32> {
    %0 = jx.transpose %arg0, perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %1 = jx.transpose %arg1, perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %2 = jx.transpose %arg2, perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %3 = jx.dot_general %0, %1, contracting_dims = [3] x [3], batch_dims = [0, 1] x [0, 1] : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %4 = jx.constant dense<2.000000e+00> : tensor<f32>
    %5 = jx.broadcast_in_dim %4, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %6 = jx.div %3, %5 : tensor<1x2x4x4xf32>
    %7 = jx.constant dense<true> : tensor<i1>
    %8 = jx.broadcast_in_dim %7, dims = [] : tensor<i1> -> tensor<4x4xi1>
    %9 = jx.iota dim = 0 : tensor<4x4xi32>
    %10 = jx.constant dense<0> : tensor<i32>
    %11 = jx.broadcast_in_dim %10, dims = [] : tensor<i32> -> tensor<4x4xi32>
    %12 = jx.add %9, %11 : tensor<4x4xi32>
    %13 = jx.iota dim = 1 : tensor<4x4xi32>
    %14 = jx.ge %12, %13 : tensor<4x4xi32>
    %15 = jx.constant dense<false> : tensor<i1>
    %16 = jx.broadcast_in_dim %15, dims = [] : tensor<i1> -> tensor<4x4xi1>
    %17 = jx.select_n %14, %16, %8 : tensor<4x4xi1>, tensor<4x4xi1>, tensor<4x4xi1>
    %18 = jx.constant dense<-3.40282347E+38> : tensor<f32>
    %19 = jx.broadcast_in_dim %17, dims = [2, 3] : tensor<4x4xi1> -> tensor<1x2x4x4xi1>
    %20 = jx.broadcast_in_dim %18, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %21 = jx.select_n %19, %20, %6 : tensor<1x2x4x4xi1>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
    %22 = jx.reduce_max %21, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %23 = jx.constant dense<0xFF800000> : tensor<f32>
    %24 = jx.broadcast_in_dim %23, dims = [] : tensor<f32> -> tensor<1x2x4xf32>
    %25 = jx.max %24, %22 : tensor<1x2x4xf32>
    %26 = jx.broadcast_in_dim %25, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %27 = jx.stop_gradient %26 : tensor<1x2x4x1xf32>
    %28 = jx.broadcast_in_dim %27, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %29 = jx.sub %21, %28 : tensor<1x2x4x4xf32>
    %30 = jx.exp %29 : tensor<1x2x4x4xf32>
    %31 = jx.reduce_sum %30, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %32 = jx.broadcast_in_dim %31, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %33 = jx.broadcast_in_dim %32, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %34 = jx.div %30, %33 : tensor<1x2x4x4xf32>
    %35 = jx.dot_general %2, %34, contracting_dims = [2] x [3], batch_dims = [0, 1] x [0, 1] : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %36 = jx.transpose %35, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
    return %36 : tensor<1x4x2x4xf32>
  }

// einsum "bqhd,bkhd->bhqk" * 0.3, softmax, einsum "bhqk,bkhd->bqhd": no mask.
// CHECK-LABEL: func.func @btnh
// CHECK-NEXT: %[[O:.*]], %{{.*}} = jx.dot_product_attention %arg0, %arg1, %arg2, scale = 0.30000001192092896 :
// CHECK-NEXT: return %[[O]]
  func.func @btnh(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> tensor<1x4x2x4xf32> {
    %0 = jx.dot_general %arg0, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %1 = jx.constant dense<3.000000e-01> : tensor<f32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %3 = jx.mul %0, %2 : tensor<1x2x4x4xf32>
    %4 = jx.reduce_max %3, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %5 = jx.constant dense<0xFF800000> : tensor<f32>
    %6 = jx.broadcast_in_dim %5, dims = [] : tensor<f32> -> tensor<1x2x4xf32>
    %7 = jx.max %6, %4 : tensor<1x2x4xf32>
    %8 = jx.broadcast_in_dim %7, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %9 = jx.stop_gradient %8 : tensor<1x2x4x1xf32>
    %10 = jx.broadcast_in_dim %9, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %11 = jx.sub %3, %10 : tensor<1x2x4x4xf32>
    %12 = jx.exp %11 : tensor<1x2x4x4xf32>
    %13 = jx.reduce_sum %12, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %14 = jx.broadcast_in_dim %13, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %15 = jx.broadcast_in_dim %14, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %16 = jx.div %12, %15 : tensor<1x2x4x4xf32>
    %17 = jx.dot_general %arg2, %16, contracting_dims = [1] x [3], batch_dims = [0, 2] x [0, 1] : tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %18 = jx.transpose %17, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
    return %18 : tensor<1x4x2x4xf32>
  }

// Flax's: the query divided by sqrt(head size) first, a mask from aranges (i >= j), -inf.
// CHECK-LABEL: func.func @flax_causal
// CHECK-NEXT: %[[O:.*]], %{{.*}} = jx.dot_product_attention %arg0, %arg1, %arg2, scale = 5.000000e-01 causal
// CHECK-NEXT: return %[[O]]
  func.func @flax_causal(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> tensor<1x4x2x4xf32> {
    %0 = jx.constant dense<4.000000e+00> : tensor<f32>
    %1 = jx.sqrt %0 : tensor<f32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<1x4x2x4xf32>
    %3 = jx.div %arg0, %2 : tensor<1x4x2x4xf32>
    %4 = jx.dot_general %3, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %5 = jx.iota dim = 0 : tensor<4xi32>
    %6 = jx.broadcast_in_dim %5, dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
    %7 = jx.broadcast_in_dim %5, dims = [1] : tensor<4xi32> -> tensor<1x4xi32>
    %8 = jx.broadcast_in_dim %6, dims = [0, 1] : tensor<4x1xi32> -> tensor<4x4xi32>
    %9 = jx.broadcast_in_dim %7, dims = [0, 1] : tensor<1x4xi32> -> tensor<4x4xi32>
    %10 = jx.ge %8, %9 : tensor<4x4xi32>
    %11 = jx.broadcast_in_dim %10, dims = [2, 3] : tensor<4x4xi1> -> tensor<1x1x4x4xi1>
    %12 = jx.constant dense<0xFF800000> : tensor<f32>
    %13 = jx.broadcast_in_dim %11, dims = [0, 1, 2, 3] : tensor<1x1x4x4xi1> -> tensor<1x2x4x4xi1>
    %14 = jx.broadcast_in_dim %12, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %15 = jx.select_n %13, %14, %4 : tensor<1x2x4x4xi1>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
    %16 = jx.reduce_max %15, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %17 = jx.broadcast_in_dim %12, dims = [] : tensor<f32> -> tensor<1x2x4xf32>
    %18 = jx.max %17, %16 : tensor<1x2x4xf32>
    %19 = jx.broadcast_in_dim %18, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %20 = jx.stop_gradient %19 : tensor<1x2x4x1xf32>
    %21 = jx.broadcast_in_dim %20, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %22 = jx.sub %15, %21 : tensor<1x2x4x4xf32>
    %23 = jx.exp %22 : tensor<1x2x4x4xf32>
    %24 = jx.reduce_sum %23, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %25 = jx.broadcast_in_dim %24, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %26 = jx.broadcast_in_dim %25, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %27 = jx.div %23, %26 : tensor<1x2x4x4xf32>
    %28 = jx.dot_general %arg2, %27, contracting_dims = [1] x [3], batch_dims = [0, 2] x [0, 1] : tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %29 = jx.transpose %28, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
    return %29 : tensor<1x4x2x4xf32>
  }

// where(tril(ones(T, T), -1), s, -1e9): not causal (row 0 sees nothing), left alone.
// CHECK-LABEL: func.func @band
// CHECK-NOT: jx.dot_product_attention
// CHECK: return
  func.func @band(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> tensor<1x4x2x4xf32> {
    %0 = jx.dot_general %arg0, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %1 = jx.constant dense<5.000000e-01> : tensor<f32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %3 = jx.mul %0, %2 : tensor<1x2x4x4xf32>
    %4 = jx.constant dense<true> : tensor<i1>
    %5 = jx.broadcast_in_dim %4, dims = [] : tensor<i1> -> tensor<4x4xi1>
    %6 = jx.iota dim = 0 : tensor<4x4xi32>
    %7 = jx.constant dense<-1> : tensor<i32>
    %8 = jx.broadcast_in_dim %7, dims = [] : tensor<i32> -> tensor<4x4xi32>
    %9 = jx.add %6, %8 : tensor<4x4xi32>
    %10 = jx.iota dim = 1 : tensor<4x4xi32>
    %11 = jx.ge %9, %10 : tensor<4x4xi32>
    %12 = jx.constant dense<false> : tensor<i1>
    %13 = jx.broadcast_in_dim %12, dims = [] : tensor<i1> -> tensor<4x4xi1>
    %14 = jx.select_n %11, %13, %5 : tensor<4x4xi1>, tensor<4x4xi1>, tensor<4x4xi1>
    %15 = jx.constant dense<-1.000000e+09> : tensor<f32>
    %16 = jx.broadcast_in_dim %14, dims = [2, 3] : tensor<4x4xi1> -> tensor<1x2x4x4xi1>
    %17 = jx.broadcast_in_dim %15, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %18 = jx.select_n %16, %17, %3 : tensor<1x2x4x4xi1>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
    %19 = jx.reduce_max %18, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %20 = jx.constant dense<0xFF800000> : tensor<f32>
    %21 = jx.broadcast_in_dim %20, dims = [] : tensor<f32> -> tensor<1x2x4xf32>
    %22 = jx.max %21, %19 : tensor<1x2x4xf32>
    %23 = jx.broadcast_in_dim %22, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %24 = jx.stop_gradient %23 : tensor<1x2x4x1xf32>
    %25 = jx.broadcast_in_dim %24, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %26 = jx.sub %18, %25 : tensor<1x2x4x4xf32>
    %27 = jx.exp %26 : tensor<1x2x4x4xf32>
    %28 = jx.reduce_sum %27, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %29 = jx.broadcast_in_dim %28, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %30 = jx.broadcast_in_dim %29, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %31 = jx.div %27, %30 : tensor<1x2x4x4xf32>
    %32 = jx.dot_general %arg2, %31, contracting_dims = [1] x [3], batch_dims = [0, 2] x [0, 1] : tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %33 = jx.transpose %32, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
    return %33 : tensor<1x4x2x4xf32>
  }

// mean(optax.softmax_cross_entropy_with_integer_labels(logits, labels)): the fused loss, NaN
// where JAX's take_along_axis fills (labels outside [-C, C)), then the mean as written.
// CHECK-LABEL: func.func @ce_mean
// CHECK: %[[LOSS:.*]], %{{.*}} = jx.softmax_cross_entropy %arg0, %arg1 : tensor<2x3x5xf32>, tensor<2x3xi32>
// CHECK-DAG: %[[LOW:.*]] = jx.constant dense<-5> : tensor<2x3xi32>
// CHECK-DAG: %[[HIGH:.*]] = jx.constant dense<5> : tensor<2x3xi32>
// CHECK-DAG: %[[LT:.*]] = jx.lt %arg1, %[[HIGH]]
// CHECK-DAG: %[[GE:.*]] = jx.ge %arg1, %[[LOW]]
// CHECK: %[[IN:.*]] = jx.and %[[GE]], %[[LT]]
// CHECK: %[[NAN:.*]] = jx.constant dense<0x7FC00000> : tensor<2x3xf32>
// CHECK: %[[PICKED:.*]] = jx.select_n %[[IN]], %[[NAN]], %[[LOSS]]
// CHECK: jx.reduce_sum %[[PICKED]], axes = [0, 1]
// CHECK-NOT: jx.take
// CHECK-NOT: jx.exp
// CHECK: return
  func.func @ce_mean(%arg0: tensor<2x3x5xf32>, %arg1: tensor<2x3xi32>) -> tensor<f32> {
    %0 = jx.broadcast_in_dim %arg1, dims = [0, 1] : tensor<2x3xi32> -> tensor<2x3x1xi32>
    %1 = jx.constant dense<0> : tensor<i32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<i32> -> tensor<2x3x1xi32>
    %3 = jx.lt %0, %2 : tensor<2x3x1xi32>
    %4 = jx.constant dense<5> : tensor<i32>
    %5 = jx.broadcast_in_dim %4, dims = [] : tensor<i32> -> tensor<2x3x1xi32>
    %6 = jx.add %0, %5 : tensor<2x3x1xi32>
    %7 = jx.select_n %3, %0, %6 : tensor<2x3x1xi1>, tensor<2x3x1xi32>, tensor<2x3x1xi32>
    %8 = jx.reshape %7 : tensor<2x3x1xi32> -> tensor<2x3x1x1xi32>
    %9 = jx.reshape %arg0 : tensor<2x3x5xf32> -> tensor<30xf32>
    %10 = jx.slice %8, start = [0, 0, 0, 0], limit = [2, 3, 1, 1], strides = [1, 1, 1, 1] : tensor<2x3x1x1xi32> -> tensor<2x3x1x1xi32>
    %11 = jx.reshape %10 : tensor<2x3x1x1xi32> -> tensor<2x3x1xi32>
    %12 = jx.constant dense<0> : tensor<2x3x1xi32>
    %13 = jx.constant dense<4> : tensor<2x3x1xi32>
    %14 = jx.ge %11, %12 : tensor<2x3x1xi32>
    %15 = jx.le %11, %13 : tensor<2x3x1xi32>
    %16 = jx.and %14, %15 : tensor<2x3x1xi1>
    %17 = jx.max %11, %12 : tensor<2x3x1xi32>
    %18 = jx.min %17, %13 : tensor<2x3x1xi32>
    %19 = jx.iota dim = 0 : tensor<2x3x1xi32>
    %20 = jx.iota dim = 1 : tensor<2x3x1xi32>
    %21 = jx.constant dense<5> : tensor<2x3x1xi32>
    %22 = jx.mul %20, %21 : tensor<2x3x1xi32>
    %23 = jx.add %18, %22 : tensor<2x3x1xi32>
    %24 = jx.constant dense<15> : tensor<2x3x1xi32>
    %25 = jx.mul %19, %24 : tensor<2x3x1xi32>
    %26 = jx.add %23, %25 : tensor<2x3x1xi32>
    %27 = jx.reshape %26 : tensor<2x3x1xi32> -> tensor<6xi32>
    %28 = jx.reshape %16 : tensor<2x3x1xi1> -> tensor<6xi1>
    %29 = jx.take %9[%27], axis = 0 : tensor<30xf32>, tensor<6xi32> -> tensor<6xf32>
    %30 = jx.constant dense<0x7FC00000> : tensor<6xf32>
    %31 = jx.select_n %28, %30, %29 : tensor<6xi1>, tensor<6xf32>, tensor<6xf32>
    %32 = jx.reshape %31 : tensor<6xf32> -> tensor<2x3x1xf32>
    %33 = jx.lt %1, %1 : tensor<i32>
    %34 = jx.constant dense<1> : tensor<i32>
    %35 = jx.add %1, %34 : tensor<i32>
    %36 = jx.select_n %33, %1, %35 : tensor<i1>, tensor<i32>, tensor<i32>
    %37 = jx.broadcast_in_dim %36, dims = [] : tensor<i32> -> tensor<1xi32>
    %38 = jx.take %32[%37], axis = 2 : tensor<2x3x1xf32>, tensor<1xi32> -> tensor<2x3x1xf32>
    %39 = jx.constant dense<0> : tensor<1xi32>
    %40 = jx.constant dense<1> : tensor<1xi32>
    %41 = jx.ge %37, %39 : tensor<1xi32>
    %42 = jx.lt %37, %40 : tensor<1xi32>
    %43 = jx.and %41, %42 : tensor<1xi1>
    %44 = jx.broadcast_in_dim %43, dims = [2] : tensor<1xi1> -> tensor<2x3x1xi1>
    %45 = jx.constant dense<0x7FC00000> : tensor<2x3x1xf32>
    %46 = jx.select_n %44, %45, %38 : tensor<2x3x1xi1>, tensor<2x3x1xf32>, tensor<2x3x1xf32>
    %47 = jx.reshape %46 : tensor<2x3x1xf32> -> tensor<2x3xf32>
    %48 = jx.reduce_max %arg0, axes = [2] : tensor<2x3x5xf32> -> tensor<2x3xf32>
    %49 = jx.constant dense<0xFF800000> : tensor<f32>
    %50 = jx.broadcast_in_dim %49, dims = [] : tensor<f32> -> tensor<2x3xf32>
    %51 = jx.max %50, %48 : tensor<2x3xf32>
    %52 = jx.sub %51, %51 : tensor<2x3xf32>
    %53 = jx.constant dense<0.000000e+00> : tensor<2x3xf32>
    %54 = jx.eq %52, %53 : tensor<2x3xf32>
    %55 = jx.constant dense<0.000000e+00> : tensor<f32>
    %56 = jx.broadcast_in_dim %55, dims = [] : tensor<f32> -> tensor<2x3xf32>
    %57 = jx.select_n %54, %56, %51 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>
    %58 = jx.stop_gradient %57 : tensor<2x3xf32>
    %59 = jx.broadcast_in_dim %58, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3x1xf32>
    %60 = jx.broadcast_in_dim %59, dims = [0, 1, 2] : tensor<2x3x1xf32> -> tensor<2x3x5xf32>
    %61 = jx.sub %arg0, %60 : tensor<2x3x5xf32>
    %62 = jx.exp %61 : tensor<2x3x5xf32>
    %63 = jx.reduce_sum %62, axes = [2] : tensor<2x3x5xf32> -> tensor<2x3xf32>
    %64 = jx.sign %63 : tensor<2x3xf32>
    %65 = jx.abs %63 : tensor<2x3xf32>
    %66 = jx.log %65 : tensor<2x3xf32>
    %67 = jx.add %66, %58 : tensor<2x3xf32>
    %68 = jx.sub %67, %47 : tensor<2x3xf32>
    %69 = jx.reduce_sum %68, axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
    %70 = jx.constant dense<6.000000e+00> : tensor<f32>
    %71 = jx.div %69, %70 : tensor<f32>
    return %71 : tensor<f32>
  }

// sum(-take_along_axis(log_softmax(logits), labels[..., None], -1)[..., 0]).
// CHECK-LABEL: func.func @ce_logsoftmax
// CHECK: jx.softmax_cross_entropy %arg0, %arg1
// CHECK-NOT: jx.take
// CHECK-NOT: jx.exp
// CHECK: return
  func.func @ce_logsoftmax(%arg0: tensor<2x3x5xf32>, %arg1: tensor<2x3xi32>) -> tensor<f32> {
    %0 = jx.reduce_max %arg0, axes = [2] : tensor<2x3x5xf32> -> tensor<2x3xf32>
    %1 = jx.constant dense<0xFF800000> : tensor<f32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<2x3xf32>
    %3 = jx.max %2, %0 : tensor<2x3xf32>
    %4 = jx.broadcast_in_dim %3, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3x1xf32>
    %5 = jx.stop_gradient %4 : tensor<2x3x1xf32>
    %6 = jx.broadcast_in_dim %5, dims = [0, 1, 2] : tensor<2x3x1xf32> -> tensor<2x3x5xf32>
    %7 = jx.sub %arg0, %6 : tensor<2x3x5xf32>
    %8 = jx.exp %7 : tensor<2x3x5xf32>
    %9 = jx.reduce_sum %8, axes = [2] : tensor<2x3x5xf32> -> tensor<2x3xf32>
    %10 = jx.broadcast_in_dim %9, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3x1xf32>
    %11 = jx.log %10 : tensor<2x3x1xf32>
    %12 = jx.broadcast_in_dim %11, dims = [0, 1, 2] : tensor<2x3x1xf32> -> tensor<2x3x5xf32>
    %13 = jx.sub %7, %12 : tensor<2x3x5xf32>
    %14 = jx.broadcast_in_dim %arg1, dims = [0, 1] : tensor<2x3xi32> -> tensor<2x3x1xi32>
    %15 = jx.constant dense<0> : tensor<i32>
    %16 = jx.broadcast_in_dim %15, dims = [] : tensor<i32> -> tensor<2x3x1xi32>
    %17 = jx.lt %14, %16 : tensor<2x3x1xi32>
    %18 = jx.constant dense<5> : tensor<i32>
    %19 = jx.broadcast_in_dim %18, dims = [] : tensor<i32> -> tensor<2x3x1xi32>
    %20 = jx.add %14, %19 : tensor<2x3x1xi32>
    %21 = jx.select_n %17, %14, %20 : tensor<2x3x1xi1>, tensor<2x3x1xi32>, tensor<2x3x1xi32>
    %22 = jx.reshape %21 : tensor<2x3x1xi32> -> tensor<2x3x1x1xi32>
    %23 = jx.reshape %13 : tensor<2x3x5xf32> -> tensor<30xf32>
    %24 = jx.slice %22, start = [0, 0, 0, 0], limit = [2, 3, 1, 1], strides = [1, 1, 1, 1] : tensor<2x3x1x1xi32> -> tensor<2x3x1x1xi32>
    %25 = jx.reshape %24 : tensor<2x3x1x1xi32> -> tensor<2x3x1xi32>
    %26 = jx.constant dense<0> : tensor<2x3x1xi32>
    %27 = jx.constant dense<4> : tensor<2x3x1xi32>
    %28 = jx.ge %25, %26 : tensor<2x3x1xi32>
    %29 = jx.le %25, %27 : tensor<2x3x1xi32>
    %30 = jx.and %28, %29 : tensor<2x3x1xi1>
    %31 = jx.max %25, %26 : tensor<2x3x1xi32>
    %32 = jx.min %31, %27 : tensor<2x3x1xi32>
    %33 = jx.iota dim = 0 : tensor<2x3x1xi32>
    %34 = jx.iota dim = 1 : tensor<2x3x1xi32>
    %35 = jx.constant dense<5> : tensor<2x3x1xi32>
    %36 = jx.mul %34, %35 : tensor<2x3x1xi32>
    %37 = jx.add %32, %36 : tensor<2x3x1xi32>
    %38 = jx.constant dense<15> : tensor<2x3x1xi32>
    %39 = jx.mul %33, %38 : tensor<2x3x1xi32>
    %40 = jx.add %37, %39 : tensor<2x3x1xi32>
    %41 = jx.reshape %40 : tensor<2x3x1xi32> -> tensor<6xi32>
    %42 = jx.reshape %30 : tensor<2x3x1xi1> -> tensor<6xi1>
    %43 = jx.take %23[%41], axis = 0 : tensor<30xf32>, tensor<6xi32> -> tensor<6xf32>
    %44 = jx.constant dense<0x7FC00000> : tensor<6xf32>
    %45 = jx.select_n %42, %44, %43 : tensor<6xi1>, tensor<6xf32>, tensor<6xf32>
    %46 = jx.reshape %45 : tensor<6xf32> -> tensor<2x3x1xf32>
    %47 = jx.squeeze %46, dims = [2] : tensor<2x3x1xf32> -> tensor<2x3xf32>
    %48 = jx.neg %47 : tensor<2x3xf32>
    %49 = jx.reduce_sum %48, axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
    return %49 : tensor<f32>
  }

// The maximum of other scores (s * 0.25) than the exponentiated ones (s * 0.3): the same
// probabilities in exact arithmetic, not the composite's logsumexp: left alone.
// CHECK-LABEL: func.func @two_scales
// CHECK-NOT: jx.dot_product_attention
// CHECK: return
  func.func @two_scales(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> tensor<1x4x2x4xf32> {
    %0 = jx.dot_general %arg0, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %1 = jx.constant dense<3.000000e-01> : tensor<f32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %3 = jx.mul %0, %2 : tensor<1x2x4x4xf32>
    %c = jx.constant dense<2.500000e-01> : tensor<f32>
    %cb = jx.broadcast_in_dim %c, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %other = jx.mul %0, %cb : tensor<1x2x4x4xf32>
    %4 = jx.reduce_max %other, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %5 = jx.constant dense<0xFF800000> : tensor<f32>
    %6 = jx.broadcast_in_dim %5, dims = [] : tensor<f32> -> tensor<1x2x4xf32>
    %7 = jx.max %6, %4 : tensor<1x2x4xf32>
    %8 = jx.broadcast_in_dim %7, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %9 = jx.stop_gradient %8 : tensor<1x2x4x1xf32>
    %10 = jx.broadcast_in_dim %9, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %11 = jx.sub %3, %10 : tensor<1x2x4x4xf32>
    %12 = jx.exp %11 : tensor<1x2x4x4xf32>
    %13 = jx.reduce_sum %12, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %14 = jx.broadcast_in_dim %13, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %15 = jx.broadcast_in_dim %14, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %16 = jx.div %12, %15 : tensor<1x2x4x4xf32>
    %17 = jx.dot_general %arg2, %16, contracting_dims = [1] x [3], batch_dims = [0, 2] x [0, 1] : tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %18 = jx.transpose %17, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
    return %18 : tensor<1x4x2x4xf32>
  }

// f64: the composites compute f64 as f64, but the CPU's kernels are f32; left alone.
// CHECK-LABEL: func.func @f64
// CHECK-NOT: jx.dot_product_attention
// CHECK: return
  func.func @f64(%arg0: tensor<1x4x2x4xf64>, %arg1: tensor<1x4x2x4xf64>, %arg2: tensor<1x4x2x4xf64>) -> tensor<1x4x2x4xf64> {
    %0 = jx.dot_general %arg0, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<1x4x2x4xf64>, tensor<1x4x2x4xf64> -> tensor<1x2x4x4xf64>
    %1 = jx.constant dense<3.000000e-01> : tensor<f64>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f64> -> tensor<1x2x4x4xf64>
    %3 = jx.mul %0, %2 : tensor<1x2x4x4xf64>
    %4 = jx.reduce_max %3, axes = [3] : tensor<1x2x4x4xf64> -> tensor<1x2x4xf64>
    %5 = jx.constant dense<0xFFF0000000000000> : tensor<f64>
    %6 = jx.broadcast_in_dim %5, dims = [] : tensor<f64> -> tensor<1x2x4xf64>
    %7 = jx.max %6, %4 : tensor<1x2x4xf64>
    %8 = jx.broadcast_in_dim %7, dims = [0, 1, 2] : tensor<1x2x4xf64> -> tensor<1x2x4x1xf64>
    %9 = jx.stop_gradient %8 : tensor<1x2x4x1xf64>
    %10 = jx.broadcast_in_dim %9, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf64> -> tensor<1x2x4x4xf64>
    %11 = jx.sub %3, %10 : tensor<1x2x4x4xf64>
    %12 = jx.exp %11 : tensor<1x2x4x4xf64>
    %13 = jx.reduce_sum %12, axes = [3] : tensor<1x2x4x4xf64> -> tensor<1x2x4xf64>
    %14 = jx.broadcast_in_dim %13, dims = [0, 1, 2] : tensor<1x2x4xf64> -> tensor<1x2x4x1xf64>
    %15 = jx.broadcast_in_dim %14, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf64> -> tensor<1x2x4x4xf64>
    %16 = jx.div %12, %15 : tensor<1x2x4x4xf64>
    %17 = jx.dot_general %arg2, %16, contracting_dims = [1] x [3], batch_dims = [0, 2] x [0, 1] : tensor<1x4x2x4xf64>, tensor<1x2x4x4xf64> -> tensor<1x2x4x4xf64>
    %18 = jx.transpose %17, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf64> -> tensor<1x4x2x4xf64>
    return %18 : tensor<1x4x2x4xf64>
  }

// The probabilities are a result too: the composite would not spare them; left alone.
// CHECK-LABEL: func.func @probs_returned
// CHECK-NOT: jx.dot_product_attention
// CHECK: return
  func.func @probs_returned(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> (tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32>) {
    %0 = jx.dot_general %arg0, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
    %1 = jx.constant dense<3.000000e-01> : tensor<f32>
    %2 = jx.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<1x2x4x4xf32>
    %3 = jx.mul %0, %2 : tensor<1x2x4x4xf32>
    %4 = jx.reduce_max %3, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %5 = jx.constant dense<0xFF800000> : tensor<f32>
    %6 = jx.broadcast_in_dim %5, dims = [] : tensor<f32> -> tensor<1x2x4xf32>
    %7 = jx.max %6, %4 : tensor<1x2x4xf32>
    %8 = jx.broadcast_in_dim %7, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %9 = jx.stop_gradient %8 : tensor<1x2x4x1xf32>
    %10 = jx.broadcast_in_dim %9, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %11 = jx.sub %3, %10 : tensor<1x2x4x4xf32>
    %12 = jx.exp %11 : tensor<1x2x4x4xf32>
    %13 = jx.reduce_sum %12, axes = [3] : tensor<1x2x4x4xf32> -> tensor<1x2x4xf32>
    %14 = jx.broadcast_in_dim %13, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
    %15 = jx.broadcast_in_dim %14, dims = [0, 1, 2, 3] : tensor<1x2x4x1xf32> -> tensor<1x2x4x4xf32>
    %16 = jx.div %12, %15 : tensor<1x2x4x4xf32>
    %17 = jx.dot_general %arg2, %16, contracting_dims = [1] x [3], batch_dims = [0, 2] x [0, 1] : tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %18 = jx.transpose %17, perm = [0, 3, 1, 2] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
    return %18, %16 : tensor<1x4x2x4xf32>, tensor<1x2x4x4xf32>
  }
}

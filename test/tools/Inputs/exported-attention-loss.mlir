// gpt2_jax.py's causal attention as cotangent_jax exports it (the @bhtd_causal of
// test/passes/raise/jx-raise-composites.mlir), reduced to a loss: sum(attention(q, k, v)^2).
module {
  func.func @loss(%arg0: tensor<1x4x2x4xf32>, %arg1: tensor<1x4x2x4xf32>, %arg2: tensor<1x4x2x4xf32>) -> tensor<f32> {
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
    %37 = jx.mul %36, %36 : tensor<1x4x2x4xf32>
    %38 = jx.reduce_sum %37, axes = [0, 1, 2, 3] : tensor<1x4x2x4xf32> -> tensor<f32>
    return %38 : tensor<f32>
  }
}

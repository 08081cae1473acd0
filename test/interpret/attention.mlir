// jx.dot_product_attention and its backward by their definition, on one
// batch, one head of size 1: queries 1, 2, keys 0, 1, values 10, 20.
// Causal: query 0 sees key 0 only (output 10, logsumexp 0); query 1 both,
// softmax([0, 2]) = [0.1192, 0.8808] (output 18.808, logsumexp log(1 + e^2)).
// Unmasked, query 0 sees both: softmax([0, 1]) gives 17.3106, log(1 + e).
// RUN: cotangent-interpret %s --fn causal | FileCheck %s --check-prefix=CAUSAL
// RUN: cotangent-interpret %s --fn unmasked | FileCheck %s --check-prefix=UNMASKED
// RUN: cotangent-interpret %s --fn backward | FileCheck %s --check-prefix=BACKWARD

// CAUSAL: result 0: dense<{{.*}}1.000000e+01{{.*}}18.80797{{.*}}> : tensor<1x2x1x1xf32>
// CAUSAL: result 1: dense<{{.*}}0.000000e+00, 2.126928{{.*}}> : tensor<1x1x2xf32>
func.func @causal() -> (tensor<1x2x1x1xf32>, tensor<1x1x2xf32>) {
  %q = jx.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %k = jx.constant dense<[[[[0.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>
  %v = jx.constant dense<[[[[10.0]], [[20.0]]]]> : tensor<1x2x1x1xf32>
  %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 1.0 causal
      : tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>
  return %o, %lse : tensor<1x2x1x1xf32>, tensor<1x1x2xf32>
}

// UNMASKED: result 0: dense<{{.*}}17.31058{{.*}}18.80797{{.*}}> : tensor<1x2x1x1xf32>
// UNMASKED: result 1: dense<{{.*}}1.313261{{.*}}, 2.126928{{.*}}> : tensor<1x1x2xf32>
func.func @unmasked() -> (tensor<1x2x1x1xf32>, tensor<1x1x2xf32>) {
  %q = jx.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %k = jx.constant dense<[[[[0.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>
  %v = jx.constant dense<[[[[10.0]], [[20.0]]]]> : tensor<1x2x1x1xf32>
  %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 1.0
      : tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>
  return %o, %lse : tensor<1x2x1x1xf32>, tensor<1x1x2xf32>
}

// With doutput 1 everywhere: dV = P^T 1 = [1 + 0.1192, 0.8808]; dS of row 1
// is P (dP - D) = [-1.0499, 1.0499] (row 0's is 0), so dQ = [0, 1.0499]
// (d out_1 / d q_1 = 10 p (1 - p)) and dK = 2 [-1.0499, 1.0499].
// BACKWARD: result 0: dense<{{.*}}0.000000e+00{{.*}}1.049936{{.*}}> : tensor<1x2x1x1xf32>
// BACKWARD: result 1: dense<{{.*}}-2.09987{{.*}}2.09987{{.*}}> : tensor<1x2x1x1xf32>
// BACKWARD: result 2: dense<{{.*}}1.119202{{.*}}8.807970e-01{{.*}}> : tensor<1x2x1x1xf32>
func.func @backward() -> (tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>) {
  %q = jx.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %k = jx.constant dense<[[[[0.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>
  %v = jx.constant dense<[[[[10.0]], [[20.0]]]]> : tensor<1x2x1x1xf32>
  %do = jx.constant dense<1.0> : tensor<1x2x1x1xf32>
  %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 1.0 causal
      : tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>
  %dq, %dk, %dv = jx.dot_product_attention_grad %q, %k, %v, %o, %lse, %do, scale = 1.0 causal
      : tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>,
        tensor<1x1x2xf32>, tensor<1x2x1x1xf32>
  return %dq, %dk, %dv : tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>
}

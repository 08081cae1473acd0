// jx.softmax_cross_entropy and its backward on logits [1, 2, 3] per row:
// logsumexp log(e + e^2 + e^3) = 3.407606, softmax [0.0900306, 0.2447285,
// 0.6652410]. Labels 2, -3 (from the end: class 0) and 7 (clamped: class 2)
// give losses 3.407606 - 3, - 1, - 3.
// RUN: cotangent-interpret %s --fn forward | FileCheck %s --check-prefix=FORWARD
// RUN: cotangent-interpret %s --fn backward | FileCheck %s --check-prefix=BACKWARD

// FORWARD: result 0: dense<[0.4076{{[0-9]*}}, 2.4076{{[0-9]*}}, 0.4076{{[0-9]*}}]> : tensor<3xf32>
// FORWARD: result 1: dense<3.4076{{[0-9]*}}> : tensor<3xf32>
func.func @forward() -> (tensor<3xf32>, tensor<3xf32>) {
  %x = jx.constant dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]> : tensor<3x3xf32>
  %y = jx.constant dense<[2, -3, 7]> : tensor<3xi32>
  %loss, %lse = jx.softmax_cross_entropy %x, %y : tensor<3x3xf32>, tensor<3xi32>
  return %loss, %lse : tensor<3xf32>, tensor<3xf32>
}

// d(logits) = (softmax - one-hot) * dloss, dloss = [1, 2, 0].
// BACKWARD: result 0: dense<{{\[}}[0.0900{{[0-9]*}}, 0.2447{{[0-9]*}}, -3.34759{{[0-9]*}}e-01], [-1.8199{{[0-9]*}}, 0.4894{{[0-9]*}}, 1.3304{{[0-9]*}}], [0.000000e+00, 0.000000e+00, -0.000000e+00]]> : tensor<3x3xf32>
func.func @backward() -> tensor<3x3xf32> {
  %x = jx.constant dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]> : tensor<3x3xf32>
  %y = jx.constant dense<[2, -3, 7]> : tensor<3xi32>
  %g = jx.constant dense<[1.0, 2.0, 0.0]> : tensor<3xf32>
  %loss, %lse = jx.softmax_cross_entropy %x, %y : tensor<3x3xf32>, tensor<3xi32>
  %d = jx.softmax_cross_entropy_grad %x, %lse, %y, %g
      : tensor<3x3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>
  return %d : tensor<3x3xf32>
}

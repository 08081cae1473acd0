// Runs small programs compiled for the CPU and checks their exact results.
// RUN: cotangent-run %s --fn elementwise | FileCheck %s --check-prefix=ELT
// RUN: cotangent-run %s --fn dot | FileCheck %s --check-prefix=DOT
// RUN: cotangent-run %s --fn scan | FileCheck %s --check-prefix=SCAN
// RUN: cotangent-run %s --fn shapes | FileCheck %s --check-prefix=SHAPE
// RUN: cotangent-run %s --fn control | FileCheck %s --check-prefix=CTRL
// RUN: cotangent-run %s --fn gather --values=10 | FileCheck %s --check-prefix=GATHER
// RUN: cotangent-run %s --fn long_sum | FileCheck %s --check-prefix=LONG

// ELT: @elementwise: 4 results
// ELT-NEXT: result 0: f32[4] [3, -6, 0, 5] sum=2
// ELT-NEXT: result 1: i32[4] [3, -3, -1, -3] sum=-4
// ELT-NEXT: result 2: i32[4] [1, -1, 5, 0] sum=5
// ELT-NEXT: result 3: bool[4] [1, 1, 0, 0] sum=2
// ELT: live bytes at return: 52
func.func @elementwise() -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>) {
  %a = jx.constant dense<[1.0, -2.0, 0.5, 4.0]> : tensor<4xf32>
  %b = jx.constant dense<[2.0, 2.0, -1.0, 0.25]> : tensor<4xf32>
  %0 = jx.mul %a, %b : tensor<4xf32>
  %1 = jx.add %0, %a : tensor<4xf32>
  %i = jx.constant dense<[7, -7, 5, 3]> : tensor<4xi32>
  %j = jx.constant dense<[2, 2, 0, -1]> : tensor<4xi32>
  // XLA: x / 0 = -1, x % 0 = x.
  %d = jx.div %i, %j : tensor<4xi32>
  %r = jx.rem %i, %j : tensor<4xi32>
  %lt = jx.lt %a, %b : tensor<4xf32>
  return %1, %d, %r, %lt : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>
}

// DOT: @dot: 1 results
// DOT-NEXT: result 0: f32[2,2] [4, 5, 10, 11] sum=30
// DOT: live bytes at return: 16
// DOT: peak bytes: {{[0-9]+}}
func.func @dot() -> tensor<2x2xf32> {
  %a = jx.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = jx.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// SCAN: result 0: f32[2] [9, 12] sum=21
// SCAN-NEXT: result 1: f32[3,2] [1, 2, 4, 6, ...] sum=34
func.func @scan() -> (tensor<2xf32>, tensor<3x2xf32>) {
  %h = jx.constant dense<0.0> : tensor<2xf32>
  %xs = jx.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %c, %ys = jx.scan (%h, %xs) length = 3, consts = 0, carry = 1
      : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%acc: tensor<2xf32>, %x: tensor<2xf32>):
    %0 = jx.add %acc, %x : tensor<2xf32>
    jx.yield %0, %0 : tensor<2xf32>, tensor<2xf32>
  }
  return %c, %ys : tensor<2xf32>, tensor<3x2xf32>
}

// SHAPE: result 0: f32[3,2] [1, 4, 2, 5, ...] sum=21
// SHAPE-NEXT: result 1: f32[7] [0, 1, 0, 2, ...] sum=6
// SHAPE-NEXT: result 2: f32[2] [5, 6] sum=11
// SHAPE-NEXT: result 3: i32[2,3] [0, 0, 0, 1, ...] sum=3
// SHAPE-NEXT: result 4: f32[2,3] [1, 2, 3, 1, ...] sum=12
func.func @shapes() -> (tensor<3x2xf32>, tensor<7xf32>, tensor<2xf32>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %m = jx.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = jx.transpose %m, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %v = jx.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = jx.constant dense<0.0> : tensor<f32>
  // low 1, high 1, interior 1: [0, 1, 0, 2, 0, 3, 0]
  %p = jx.pad %v, %z, low = [1], high = [1], interior = [1] : tensor<3xf32>, tensor<f32> -> tensor<7xf32>
  %flat = jx.reshape %m : tensor<2x3xf32> -> tensor<6xf32>
  %i = jx.constant dense<9> : tensor<i32>
  // start 9 is clamped to 4
  %ds = jx.dynamic_slice %flat[%i], sizes = [2] : tensor<6xf32>, tensor<i32> -> tensor<2xf32>
  %io = jx.iota dim = 0 : tensor<2x3xi32>
  %b = jx.broadcast_in_dim %v, dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  return %t, %p, %ds, %io, %b : tensor<3x2xf32>, tensor<7xf32>, tensor<2xf32>, tensor<2x3xi32>, tensor<2x3xf32>
}

// CTRL: result 0: i32[] [10] sum=10
// CTRL-NEXT: result 1: f32[2] [-1, -2] sum=-3
// CTRL-NEXT: result 2: f32[2] [2, 1] sum=3
func.func @control() -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %i0 = jx.constant dense<0> : tensor<i32>
  %n = jx.while (%i0) : (tensor<i32>) -> tensor<i32> cond {
  ^bb0(%i: tensor<i32>):
    %ten = jx.constant dense<10> : tensor<i32>
    %c = jx.lt %i, %ten : tensor<i32>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %one = jx.constant dense<1> : tensor<i32>
    %j = jx.add %i, %one : tensor<i32>
    jx.yield %j : tensor<i32>
  }
  %x = jx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %p = jx.constant dense<true> : tensor<i1>
  // true picks branch 1 (negate)
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    jx.yield %a : tensor<2xf32>
  }, {
  ^bb0(%a: tensor<2xf32>):
    %0 = jx.neg %a : tensor<2xf32>
    jx.yield %0 : tensor<2xf32>
  }
  // an i32 index of 7 is clamped to the last branch (reverse)
  %k = jx.constant dense<7> : tensor<i32>
  %s = jx.cond %k (%x) : tensor<i32>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    jx.yield %a : tensor<2xf32>
  }, {
  ^bb0(%a: tensor<2xf32>):
    %0 = jx.slice %a, start = [1], limit = [2], strides = [1] : tensor<2xf32> -> tensor<1xf32>
    %1 = jx.slice %a, start = [0], limit = [1], strides = [1] : tensor<2xf32> -> tensor<1xf32>
    %2 = jx.concatenate(%0, %1) dim = 0 : tensor<1xf32>, tensor<1xf32> -> tensor<2xf32>
    jx.yield %2 : tensor<2xf32>
  }
  return %n, %r, %s : tensor<i32>, tensor<2xf32>, tensor<2xf32>
}

// take clamps 9 to row 2 and -1 to row 0; scatter_add accumulates the
// repeated rows, in f32 along axis 0 and in i32 along axis 1.
// GATHER: result 0: f32[5,2] [5, 6, 1, 2, 5, 6, 1, 2, 5, 6] sum=39
// GATHER-NEXT: result 1: f32[3,2] [2, 2, 0, 0, 3, 3] sum=10
// GATHER-NEXT: result 2: i32[2,3] [1, 6, 3, 4, 15, 6] sum=35
func.func @gather() -> (tensor<5x2xf32>, tensor<3x2xf32>, tensor<2x3xi32>) {
  %x = jx.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %i = jx.constant dense<[2, 0, 9, -1, 2]> : tensor<5xi32>
  %0 = jx.take %x[%i], axis = 0 : tensor<3x2xf32>, tensor<5xi32> -> tensor<5x2xf32>
  %z = jx.constant dense<0.0> : tensor<3x2xf32>
  %ones = jx.constant dense<1.0> : tensor<5x2xf32>
  %1 = jx.scatter_add %z[%i], %ones, axis = 0 : tensor<3x2xf32>, tensor<5xi32>, tensor<5x2xf32>
  %m = jx.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %j = jx.constant dense<[1, 1]> : tensor<2xi64>
  %c = jx.take %m[%j], axis = 1 : tensor<2x3xi32>, tensor<2xi64> -> tensor<2x2xi32>
  %2 = jx.scatter_add %m[%j], %c, axis = 1 : tensor<2x3xi32>, tensor<2xi64>, tensor<2x2xi32>
  return %0, %1, %2 : tensor<5x2xf32>, tensor<3x2xf32>, tensor<2x3xi32>
}

// 2^21 times 0.1f sums to 209715.2. The compiled sum is reassociated into
// vectorized partial sums: within 0.05% (one chain of float adds ends at
// 206132.781, 1.7% low; the order of the partial sums is LLVM's).
// LONG: result 0: f32[] [{{209[67][0-9][0-9]}}]
func.func @long_sum() -> tensor<f32> {
  %c = jx.constant dense<0.1> : tensor<2048x1024xf32>
  %s = jx.reduce_sum %c, axes = [0, 1] : tensor<2048x1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @bad_schedule(%h0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.scan' op checkpoint_lengths multiply to 8 but the scan length is 6}}
  %c = jx.scan(%h0, %xs) length = 6, consts = 0, carry = 1 : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
    jx.yield %x : tensor<4xf32>
  } attributes {checkpoint_lengths = array<i64: 2, 4>}
  return %c : tensor<4xf32>
}

// -----

func.func @zero_chunk(%h0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.scan' op checkpoint_lengths must be positive, got 0}}
  %c = jx.scan(%h0, %xs) length = 6, consts = 0, carry = 1 : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
    jx.yield %x : tensor<4xf32>
  } attributes {checkpoint_lengths = array<i64: 0, 6>}
  return %c : tensor<4xf32>
}

// -----

func.func @no_snapshots(%h0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.scan' op snapshots must be at least 1, got 0}}
  %c = jx.scan(%h0, %xs) length = 6, consts = 0, carry = 1 : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
    jx.yield %x : tensor<4xf32>
  } attributes {snapshots = 0 : i64}
  return %c : tensor<4xf32>
}

// -----

func.func @two_schedules(%h0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.scan' op takes checkpoint_lengths or snapshots, not both}}
  %c = jx.scan(%h0, %xs) length = 6, consts = 0, carry = 1 : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
    jx.yield %x : tensor<4xf32>
  } attributes {checkpoint_lengths = array<i64: 2, 3>, snapshots = 2 : i64}
  return %c : tensor<4xf32>
}


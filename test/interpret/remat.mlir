// jx.remat runs its body; checkpoint_name and optimization_barrier are
// identities; func.call runs the callee. --memory counts live and peak bytes.
// RUN: cotangent-interpret %s --fn layer --arg "dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>" --arg "dense<[1.0, -1.0]> : tensor<2xf32>" | FileCheck %s --check-prefix=LAYER
// RUN: cotangent-interpret %s --fn chain --memory | FileCheck %s --check-prefix=CHAIN
// RUN: cotangent-interpret %s --fn keep --memory | FileCheck %s --check-prefix=KEEP

// W x = [-1, -1]; named, squared (1, 1), through the barrier, plus x.
// LAYER: result 0: dense<[2.000000e+00, 0.000000e+00]> : tensor<2xf32>
// LAYER: result 1: dense<-1.000000e+00> : tensor<2xf32>
func.func @layer(%W: tensor<2x2xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r, %h = jx.remat (%W, %x) : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      policy = #jx.policy<save_only_these_names("h")> {
  ^bb0(%w: tensor<2x2xf32>, %v: tensor<2xf32>):
    %0 = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<2x2xf32>, tensor<2xf32> -> tensor<2xf32>
    %1 = jx.checkpoint_name %0, "h" : tensor<2xf32>
    %2 = func.call @square(%1) : (tensor<2xf32>) -> tensor<2xf32>
    %3, %4 = jx.optimization_barrier %2, %v : tensor<2xf32>, tensor<2xf32>
    %5 = jx.add %3, %4 : tensor<2xf32>
    jx.yield %5, %1 : tensor<2xf32>, tensor<2xf32>
  }
  return %r, %h : tensor<2xf32>, tensor<2xf32>
}

func.func private @square(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.mul %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Each value dies at its last use: at most two 1024-byte buffers are live.
// CHAIN: memory: live 1024 bytes, peak 2048 bytes
func.func @chain(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = jx.neg %x : tensor<256xf32>
  %1 = jx.exp %0 : tensor<256xf32>
  %2 = jx.neg %1 : tensor<256xf32>
  return %2 : tensor<256xf32>
}

// %x is used last by the add, so three buffers are live at once.
// KEEP: memory: live 1024 bytes, peak 3072 bytes
func.func @keep(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = jx.neg %x : tensor<256xf32>
  %1 = jx.exp %0 : tensor<256xf32>
  %2 = jx.add %1, %x : tensor<256xf32>
  return %2 : tensor<256xf32>
}

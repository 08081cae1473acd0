// RUN: cotangent-opt %s --jx-vjp --jx-remat '--jx-dump-fwd-bwd=width=100' -o /dev/null | FileCheck %s
// RUN: cotangent-opt %s --jx-vjp --jx-remat '--jx-dump-fwd-bwd=syntax=jaxpr width=100' -o /dev/null | FileCheck %s --check-prefix=JAXPR
// RUN: not cotangent-opt %s '--jx-dump-fwd-bwd=syntax=latex' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not cotangent-opt %s --jx-dump-fwd-bwd 2>&1 | FileCheck %s --check-prefix=NOPAIR

func.func @g(%x: tensor<5xf32>) -> tensor<5xf32> {
  %r = jx.remat(%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%h: tensor<5xf32>):
    %0 = jx.sin %h : tensor<5xf32>
    jx.yield %0 : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}
// Two 48-column halves joined by " | ", the forward left, the backward right;
// long lines wrap inside their column.
// CHECK:      {{^}}forward @g_fwd{{ +}}| backward @g_bwd{{$}}
// CHECK-NEXT: {{^-{48} \| -{48}$}}
// CHECK-NEXT: {{^}}func.func @g_fwd({{.*}}| func.func @g_bwd(
// CHECK:      jx.sin {{.*}}| {{.*}}jx.optimization_barrier
// CHECK:      | {{.*}}jx.cos

// JAXPR:      forward @g_fwd{{ +}}| backward @g_bwd
// JAXPR:      { lambda ; a:f32[5]. let{{ +}}| { lambda ; a:f32[5] b:f32[5]. let
// JAXPR-NEXT: b:f32[5] = sin a{{ +}}| c:f32[5] = optimization_barrier a
// JAXPR-NEXT: in (b, a) }{{ +}}| d:f32[5] = cos c

// BAD: for the --syntax option: Cannot find option named 'latex'!
// BAD: =mlir
// BAD: =jaxpr
// NOPAIR: error: --jx-dump-fwd-bwd: no forward/backward pair; run --jx-vjp first

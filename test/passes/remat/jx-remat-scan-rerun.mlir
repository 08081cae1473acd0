// A scan whose carries a policy recomputes is re-run in the backward, but
// only the part of its body those carries need, and what the policy saves
// inside the body is read back, stacked, instead of being run again: under
// dots_saveable no dot of the forward runs twice (JAX's partial evaluation
// of a scan does the same). The file is a template: POLICY is replaced by
// each policy in turn.
//
// @remat_scan is what Flax's nn.remat_scan(lengths=(2, 2)) writes: a scan
// whose body is a checkpoint around a scan of blocks of two dots. The re-run
// of the inner scan adds the saved second dot to the carry; an offloading
// policy inside the loop body offloads what it stacks.
//
// RUN: sed 's/POLICY/dots_saveable/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=DOTS
// RUN: sed 's/POLICY/offload_dot_with_no_batch_dims("device", "pinned_host")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=OFFLOAD
// RUN: sed 's/POLICY/nothing_saveable/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: sed 's/POLICY/dots_saveable/' %s | cotangent-opt --jx-vjp --jx-remat | FileCheck %s --check-prefix=IR
//
// Gradients: under every policy, value and gradient by the interpreter are
// bit-identical to those without remat, and so are the compiled ones.
//
// RUN: sed 's/POLICY/everything_saveable/' %s | cotangent-opt --jx-vjp -o %t.ref.mlir
// RUN: for f in dot_in_scan remat_scan; do \
// RUN:   cotangent-interpret %t.ref.mlir --fn ${f}_value_and_grad --seed 5 > %t.$f.interp || exit 1; \
// RUN:   cotangent-run %t.ref.mlir --fn ${f}_value_and_grad --seed 5 | grep '^result' > %t.$f.run || exit 1; \
// RUN: done
// RUN: for p in nothing_saveable dots_saveable 'offload_dot_with_no_batch_dims("device", "pinned_host")' \
// RUN:     'save_only_these_names("a")'; do \
// RUN:   sed "s/POLICY/$p/" %s | cotangent-opt --jx-vjp --jx-remat -o %t.remat.mlir || exit 1; \
// RUN:   for f in dot_in_scan remat_scan; do \
// RUN:     cotangent-interpret %t.remat.mlir --fn ${f}_value_and_grad --seed 5 > %t.got || exit 1; \
// RUN:     diff %t.$f.interp %t.got || { echo "interpreter: $f under $p"; exit 1; }; \
// RUN:     cotangent-run %t.remat.mlir --fn ${f}_value_and_grad --seed 5 | grep '^result' > %t.got || exit 1; \
// RUN:     diff %t.$f.run %t.got || { echo "compiled: $f under $p"; exit 1; }; \
// RUN:   done; \
// RUN: done

func.func @dot_in_scan(%w: tensor<4x4xf32> {jx.arg_name = "w"}, %h0: tensor<4xf32> {jx.arg_name = "h0"}) -> tensor<f32> {
  %r = jx.remat(%w, %h0) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<POLICY> {
  ^bb0(%a0: tensor<4x4xf32>, %a1: tensor<4xf32>):
    %c = jx.scan(%a0, %a1) length = 3, consts = 1, carry = 1
        : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>):
      %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
      %1 = jx.sin %0 : tensor<4xf32>
      jx.yield %1 : tensor<4xf32>
    }
    jx.yield %c : tensor<4xf32>
  }
  %s = jx.reduce_sum %r, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// DOTS-LABEL: saved residuals of @dot_in_scan:
// DOTS-NEXT:  f32[4,4] from the argument w
// DOTS-NEXT:  f32[4] from the argument h0
// DOTS-NEXT:  f32[3,4] stacked by the scan from {{.*}}, one output of dot_general from {{.*}} per iteration
// DOTS-NEXT:  total: 3 residuals, 128 bytes
// The re-run only applies sin to the saved dots; the backward's two dots are
// the transposes.
// IR-LABEL: func.func @dot_in_scan_bwd
// IR:       jx.scan
// IR-NOT:   jx.dot_general
// IR:       jx.sin
// IR-NOT:   jx.dot_general
// IR:       jx.scan{{.*}} reverse
// IR-COUNT-2: jx.dot_general
// IR-NOT:   jx.dot_general
// IR:       func.func @dot_in_scan_vjp

func.func @remat_scan(%w1: tensor<2x2x8x8xf32> {jx.arg_name = "w1"}, %w2: tensor<2x2x8x8xf32> {jx.arg_name = "w2"}, %x: tensor<3x8xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.scan(%x, %w1, %w2) length = 2, consts = 0, carry = 1 : (tensor<3x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<3x8xf32> {
  ^bb0(%c: tensor<3x8xf32>, %v1: tensor<2x8x8xf32>, %v2: tensor<2x8x8xf32>):
    %o = jx.remat(%c, %v1, %v2) : (tensor<3x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<3x8xf32> policy = #jx.policy<POLICY> {
    ^bb0(%a: tensor<3x8xf32>, %u1: tensor<2x8x8xf32>, %u2: tensor<2x8x8xf32>):
      %i = jx.scan(%a, %u1, %u2) length = 2, consts = 0, carry = 1 : (tensor<3x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<3x8xf32> {
      ^bb0(%h: tensor<3x8xf32>, %k1: tensor<8x8xf32>, %k2: tensor<8x8xf32>):
        %0 = jx.dot_general %h, %k1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x8xf32>, tensor<8x8xf32> -> tensor<3x8xf32>
        %1 = jx.sin %0 : tensor<3x8xf32>
        %2 = jx.checkpoint_name %1, "a" : tensor<3x8xf32>
        %3 = jx.dot_general %2, %k2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x8xf32>, tensor<8x8xf32> -> tensor<3x8xf32>
        %4 = jx.add %h, %3 : tensor<3x8xf32>
        jx.yield %4 : tensor<3x8xf32>
      }
      jx.yield %i : tensor<3x8xf32>
    }
    jx.yield %o : tensor<3x8xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<3x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// DOTS-LABEL: saved residuals of @remat_scan:
// DOTS-NEXT:  f32[2,2,8,8] from the argument w1
// DOTS-NEXT:  f32[2,2,8,8] from the argument w2
// DOTS-NEXT:  f32[2,3,8] stacked by the scan from {{.*}}, the carry at each iteration
// DOTS-NEXT:  f32[2,2,3,8] stacked by the scan from {{.*}}, one output of scan from {{.*}} per iteration
// DOTS-NEXT:  f32[2,2,3,8] stacked by the scan from {{.*}}, one output of scan from {{.*}} per iteration
// DOTS-NEXT:  total: 5 residuals, 3008 bytes
// OFFLOAD-LABEL: saved residuals of @remat_scan:
// OFFLOAD:       f32[2,3,8] stacked by the scan from {{.*}}, the carry at each iteration
// OFFLOAD-NEXT:  f32[2,2,3,8] stacked {{.*}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  f32[2,2,3,8] stacked {{.*}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 5 residuals, 3008 bytes (768 offloaded)
// NONE-LABEL: saved residuals of @remat_scan:
// NONE:       f32[2,3,8] stacked by the scan from {{.*}}, the carry at each iteration
// NONE-NEXT:  total: 3 residuals, 2240 bytes
// The inner re-run adds the saved second dot to the carry: no dot, no sin.
// IR-LABEL: func.func @remat_scan_bwd
// IR:       jx.scan{{.*}} reverse
// IR:       jx.scan
// IR-NEXT:  ^bb0
// IR-NEXT:  jx.add
// IR-NEXT:  jx.yield
// IR:       jx.scan{{.*}} reverse
// IR-COUNT-4: jx.dot_general
// IR-NOT:   jx.dot_general
// IR:       func.func @remat_scan_vjp

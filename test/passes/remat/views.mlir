// Every view op between a value a policy forbids and the backward that needs
// it: reshape, broadcast_in_dim, transpose, squeeze, expand_dims,
// convert_element_type, slice, and a view of a view. Each function computes
// a = sin(x), names it 'a', views it, and squares the view, so the backward
// needs the view (for the square) and cos(x) (for the sin). The file is a
// template: POLICY is replaced by each policy in turn.
//
// Reports: the values a policy allows are saved, the rest is recomputed
// from the region's input x, whatever views lie in between; a saved view
// that only reshapes, broadcasts or widens is saved as the (no larger) value
// it views (f32[4,1], not its f32[4,8] broadcast).
//
// RUN: sed 's/POLICY/nothing_saveable/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: sed 's/POLICY/dots_saveable/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: sed 's/POLICY/dots_with_no_batch_dims_saveable/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: sed 's/POLICY/offload_dot_with_no_batch_dims("device", "pinned_host")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: sed 's/POLICY/save_only_these_names("a")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NAMED
// RUN: sed 's/POLICY/save_any_names_but_these("b")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NAMED
// RUN: sed 's/POLICY/save_and_offload_only_these_names(["a"], ["c"], "device", "pinned_host")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NAMED
// RUN: sed 's/POLICY/save_from_both_policies(dots_saveable, save_only_these_names("a"))/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=NAMED
// RUN: sed 's/POLICY/save_and_offload_only_these_names([], ["a"], "device", "pinned_host")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=OFFLOAD
// RUN: sed 's/POLICY/save_anything_except_these_names("a")/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=EXCEPT
// RUN: sed 's/POLICY/everything_saveable/' %s | cotangent-opt --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=ALL
//
// Gradients: under every policy, each function's value and gradient, by the
// interpreter, are bit-identical to those of the split without remat; and,
// compiled for the CPU, under three policies that save different things
// (compiling is slower), identical to the compiled split without remat.
//
// RUN: sed 's/POLICY/everything_saveable/' %s | cotangent-opt --jx-vjp -o %t.ref.mlir
// RUN: for f in reshape broadcast_in_dim transpose squeeze expand_dims convert_element_type slice chain; do \
// RUN:   cotangent-interpret %t.ref.mlir --fn ${f}_value_and_grad --seed 3 > %t.$f.interp || exit 1; \
// RUN:   cotangent-run %t.ref.mlir --fn ${f}_value_and_grad --seed 3 | grep '^result' > %t.$f.run || exit 1; \
// RUN: done
// RUN: for p in nothing_saveable dots_saveable dots_with_no_batch_dims_saveable \
// RUN:     'offload_dot_with_no_batch_dims("device", "pinned_host")' 'save_only_these_names("a")' \
// RUN:     'save_any_names_but_these("b")' 'save_anything_except_these_names("a")' \
// RUN:     'save_and_offload_only_these_names(["a"], ["c"], "device", "pinned_host")' \
// RUN:     'save_and_offload_only_these_names([], ["a"], "device", "pinned_host")' \
// RUN:     'save_from_both_policies(dots_saveable, save_only_these_names("a"))' everything_saveable; do \
// RUN:   sed "s/POLICY/$p/" %s | cotangent-opt --jx-vjp --jx-remat -o %t.remat.mlir || exit 1; \
// RUN:   for f in reshape broadcast_in_dim transpose squeeze expand_dims convert_element_type slice chain; do \
// RUN:     cotangent-interpret %t.remat.mlir --fn ${f}_value_and_grad --seed 3 > %t.got || exit 1; \
// RUN:     diff %t.$f.interp %t.got || { echo "interpreter: $f under $p"; exit 1; }; \
// RUN:   done; \
// RUN: done
// RUN: for p in nothing_saveable 'save_only_these_names("a")' 'save_anything_except_these_names("a")'; do \
// RUN:   sed "s/POLICY/$p/" %s | cotangent-opt --jx-vjp --jx-remat -o %t.remat.mlir || exit 1; \
// RUN:   for f in reshape broadcast_in_dim transpose squeeze expand_dims convert_element_type slice chain; do \
// RUN:     cotangent-run %t.remat.mlir --fn ${f}_value_and_grad --seed 3 | grep '^result' > %t.got || exit 1; \
// RUN:     diff %t.$f.run %t.got || { echo "compiled: $f under $p"; exit 1; }; \
// RUN:   done; \
// RUN: done

func.func @reshape(%x: tensor<4x8xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4x8xf32>) -> tensor<32xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4x8xf32>):
    %a = jx.sin %h : tensor<4x8xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4x8xf32>
    %v = jx.reshape %n : tensor<4x8xf32> -> tensor<32xf32>
    %m = jx.mul %v, %v : tensor<32xf32>
    jx.yield %m : tensor<32xf32>
  }
  %s = jx.reduce_sum %r, axes = [0] : tensor<32xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @reshape:
// NONE-NEXT:  f32[4,8] from the argument x
// NONE-NEXT:  total: 1 residuals, 128 bytes
// NAMED-LABEL: saved residuals of @reshape:
// NAMED-NEXT:  f32[4,8] from the argument x
// NAMED-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 256 bytes
// OFFLOAD-LABEL: saved residuals of @reshape:
// OFFLOAD-NEXT:  f32[4,8] from the argument x
// OFFLOAD-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 256 bytes (128 offloaded)
// EXCEPT-LABEL: saved residuals of @reshape:
// EXCEPT-NEXT:  f32[4,8] output of sin from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 256 bytes
// ALL-LABEL: saved residuals of @reshape:
// ALL-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 256 bytes

func.func @broadcast_in_dim(%x: tensor<4x1xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4x1xf32>) -> tensor<4x8xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4x1xf32>):
    %a = jx.sin %h : tensor<4x1xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4x1xf32>
    %v = jx.broadcast_in_dim %n, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %m = jx.mul %v, %v : tensor<4x8xf32>
    jx.yield %m : tensor<4x8xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @broadcast_in_dim:
// NONE-NEXT:  f32[4,1] from the argument x
// NONE-NEXT:  total: 1 residuals, 16 bytes
// NAMED-LABEL: saved residuals of @broadcast_in_dim:
// NAMED-NEXT:  f32[4,1] from the argument x
// NAMED-NEXT:  f32[4,1] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 32 bytes
// OFFLOAD-LABEL: saved residuals of @broadcast_in_dim:
// OFFLOAD-NEXT:  f32[4,1] from the argument x
// OFFLOAD-NEXT:  f32[4,1] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 32 bytes (16 offloaded)
// EXCEPT-LABEL: saved residuals of @broadcast_in_dim:
// EXCEPT-NEXT:  f32[4,1] output of sin from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[4,1] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 32 bytes
// ALL-LABEL: saved residuals of @broadcast_in_dim:
// ALL-NEXT:  f32[4,1] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[4,1] named 'a' from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 32 bytes

func.func @transpose(%x: tensor<4x8xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4x8xf32>):
    %a = jx.sin %h : tensor<4x8xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4x8xf32>
    %v = jx.transpose %n, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    %m = jx.mul %v, %v : tensor<8x4xf32>
    jx.yield %m : tensor<8x4xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @transpose:
// NONE-NEXT:  f32[4,8] from the argument x
// NONE-NEXT:  total: 1 residuals, 128 bytes
// NAMED-LABEL: saved residuals of @transpose:
// NAMED-NEXT:  f32[4,8] from the argument x
// NAMED-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 256 bytes
// OFFLOAD-LABEL: saved residuals of @transpose:
// OFFLOAD-NEXT:  f32[4,8] from the argument x
// OFFLOAD-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 256 bytes (128 offloaded)
// EXCEPT-LABEL: saved residuals of @transpose:
// EXCEPT-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[8,4] output of transpose from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 256 bytes
// ALL-LABEL: saved residuals of @transpose:
// ALL-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[8,4] output of transpose from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 256 bytes

func.func @squeeze(%x: tensor<4x1xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4x1xf32>) -> tensor<4xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4x1xf32>):
    %a = jx.sin %h : tensor<4x1xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4x1xf32>
    %v = jx.squeeze %n, dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
    %m = jx.mul %v, %v : tensor<4xf32>
    jx.yield %m : tensor<4xf32>
  }
  %s = jx.reduce_sum %r, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @squeeze:
// NONE-NEXT:  f32[4,1] from the argument x
// NONE-NEXT:  total: 1 residuals, 16 bytes
// NAMED-LABEL: saved residuals of @squeeze:
// NAMED-NEXT:  f32[4,1] from the argument x
// NAMED-NEXT:  f32[4,1] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 32 bytes
// OFFLOAD-LABEL: saved residuals of @squeeze:
// OFFLOAD-NEXT:  f32[4,1] from the argument x
// OFFLOAD-NEXT:  f32[4,1] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 32 bytes (16 offloaded)
// EXCEPT-LABEL: saved residuals of @squeeze:
// EXCEPT-NEXT:  f32[4,1] output of sin from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[4,1] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 32 bytes
// ALL-LABEL: saved residuals of @squeeze:
// ALL-NEXT:  f32[4,1] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[4,1] named 'a' from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 32 bytes

func.func @expand_dims(%x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4x1xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4xf32>):
    %a = jx.sin %h : tensor<4xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4xf32>
    %v = jx.expand_dims %n, dims = [1] : tensor<4xf32> -> tensor<4x1xf32>
    %m = jx.mul %v, %v : tensor<4x1xf32>
    jx.yield %m : tensor<4x1xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<4x1xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @expand_dims:
// NONE-NEXT:  f32[4] from the argument x
// NONE-NEXT:  total: 1 residuals, 16 bytes
// NAMED-LABEL: saved residuals of @expand_dims:
// NAMED-NEXT:  f32[4] from the argument x
// NAMED-NEXT:  f32[4] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 32 bytes
// OFFLOAD-LABEL: saved residuals of @expand_dims:
// OFFLOAD-NEXT:  f32[4] from the argument x
// OFFLOAD-NEXT:  f32[4] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 32 bytes (16 offloaded)
// EXCEPT-LABEL: saved residuals of @expand_dims:
// EXCEPT-NEXT:  f32[4] output of sin from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[4] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 32 bytes
// ALL-LABEL: saved residuals of @expand_dims:
// ALL-NEXT:  f32[4] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[4] named 'a' from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 32 bytes

func.func @convert_element_type(%x: tensor<4xf16> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4xf16>) -> tensor<4xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4xf16>):
    %a = jx.sin %h : tensor<4xf16>
    %n = jx.checkpoint_name %a, "a" : tensor<4xf16>
    %v = jx.convert_element_type %n : tensor<4xf16> -> tensor<4xf32>
    %m = jx.mul %v, %v : tensor<4xf32>
    jx.yield %m : tensor<4xf32>
  }
  %s = jx.reduce_sum %r, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @convert_element_type:
// NONE-NEXT:  f16[4] from the argument x
// NONE-NEXT:  total: 1 residuals, 8 bytes
// NAMED-LABEL: saved residuals of @convert_element_type:
// NAMED-NEXT:  f16[4] from the argument x
// NAMED-NEXT:  f16[4] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 16 bytes
// OFFLOAD-LABEL: saved residuals of @convert_element_type:
// OFFLOAD-NEXT:  f16[4] from the argument x
// OFFLOAD-NEXT:  f16[4] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 16 bytes (8 offloaded)
// EXCEPT-LABEL: saved residuals of @convert_element_type:
// EXCEPT-NEXT:  f16[4] output of sin from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f16[4] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 16 bytes
// ALL-LABEL: saved residuals of @convert_element_type:
// ALL-NEXT:  f16[4] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f16[4] named 'a' from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 16 bytes

func.func @slice(%x: tensor<4x8xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4x8xf32>) -> tensor<4x2xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4x8xf32>):
    %a = jx.sin %h : tensor<4x8xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4x8xf32>
    %v = jx.slice %n, start = [0, 0], limit = [4, 2], strides = [1, 1] : tensor<4x8xf32> -> tensor<4x2xf32>
    %m = jx.mul %v, %v : tensor<4x2xf32>
    jx.yield %m : tensor<4x2xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @slice:
// NONE-NEXT:  f32[4,8] from the argument x
// NONE-NEXT:  total: 1 residuals, 128 bytes
// NAMED-LABEL: saved residuals of @slice:
// NAMED-NEXT:  f32[4,8] from the argument x
// NAMED-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 256 bytes
// OFFLOAD-LABEL: saved residuals of @slice:
// OFFLOAD-NEXT:  f32[4,8] from the argument x
// OFFLOAD-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 256 bytes (128 offloaded)
// EXCEPT-LABEL: saved residuals of @slice:
// EXCEPT-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[4,2] output of slice from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 160 bytes
// ALL-LABEL: saved residuals of @slice:
// ALL-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[4,2] output of slice from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 160 bytes

// Views stacked on views: transpose(reshape(named)) reaches the backward
// through two views; the policy still decides about the named value.
func.func @chain(%x: tensor<4x8xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> policy = #jx.policy<POLICY> {
  ^bb0(%h: tensor<4x8xf32>):
    %a = jx.sin %h : tensor<4x8xf32>
    %n = jx.checkpoint_name %a, "a" : tensor<4x8xf32>
    %w = jx.reshape %n : tensor<4x8xf32> -> tensor<8x4xf32>
    %v = jx.transpose %w, perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
    %m = jx.mul %v, %v : tensor<4x8xf32>
    jx.yield %m : tensor<4x8xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// NONE-LABEL: saved residuals of @chain:
// NONE-NEXT:  f32[4,8] from the argument x
// NONE-NEXT:  total: 1 residuals, 128 bytes
// NAMED-LABEL: saved residuals of @chain:
// NAMED-NEXT:  f32[4,8] from the argument x
// NAMED-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}}
// NAMED-NEXT:  total: 2 residuals, 256 bytes
// OFFLOAD-LABEL: saved residuals of @chain:
// OFFLOAD-NEXT:  f32[4,8] from the argument x
// OFFLOAD-NEXT:  f32[4,8] named 'a' from <stdin>:{{[0-9]+}} [offloaded to pinned_host]
// OFFLOAD-NEXT:  total: 2 residuals, 256 bytes (128 offloaded)
// EXCEPT-LABEL: saved residuals of @chain:
// EXCEPT-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  f32[4,8] output of transpose from <stdin>:{{[0-9]+}}
// EXCEPT-NEXT:  total: 2 residuals, 256 bytes
// ALL-LABEL: saved residuals of @chain:
// ALL-NEXT:  f32[4,8] output of cos from <stdin>:{{[0-9]+}}
// ALL-NEXT:  f32[4,8] output of transpose from <stdin>:{{[0-9]+}}
// ALL-NEXT:  total: 2 residuals, 256 bytes

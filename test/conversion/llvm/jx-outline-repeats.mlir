// RUN: cotangent-opt %s --jx-outline-repeats --split-input-file | FileCheck %s
// RUN: cotangent-opt %s --jx-outline-repeats --split-input-file --finalize-memref-to-llvm \
// RUN:   --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts \
// RUN:   | FileCheck %s --check-prefix=LLVM

// Three layers of the same host code: allocate, call the layer's kernel,
// free the layer's input. One function holds a layer, called three times;
// it frees its argument where the layer did, so allocations and frees keep
// their order. The kernel's constant scale is cloned in, not passed.
// CHECK-LABEL: func.func @layers
// CHECK-SAME:      (%[[X:.*]]: memref<8xf32>, %[[W0:.*]]: memref<8xf32>, %[[W1:.*]]: memref<8xf32>, %[[W2:.*]]: memref<8xf32>)
// CHECK-NEXT:    %[[S:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %[[H0:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    call @kernel(%[[X]], %[[W0]], %[[H0]], %[[S]])
// CHECK-NEXT:    %[[H1:.*]] = call @[[LAYER:jx_repeat[_0-9]*]](%[[H0]], %[[W1]]) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
// CHECK-NEXT:    %[[H2:.*]] = call @[[LAYER]](%[[H1]], %[[W2]])
// CHECK-NEXT:    %[[H3:.*]] = call @[[LAYER]](%[[H2]], %[[W0]])
// CHECK-NEXT:    return %[[H3]]
// CHECK:       func.func private @[[LAYER]](%[[IN:.*]]: memref<8xf32>, %[[W:.*]]: memref<8xf32>) -> memref<8xf32>
// CHECK-SAME:      attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline", "optnone"]}
// CHECK-NEXT:    %[[SCALE:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    call @kernel(%[[IN]], %[[W]], %[[OUT]], %[[SCALE]])
// CHECK-NEXT:    %[[TMP:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    call @kernel(%[[OUT]], %[[W]], %[[TMP]], %[[SCALE]])
// CHECK-NEXT:    memref.dealloc %[[TMP]]
// CHECK-NEXT:    memref.dealloc %[[IN]]
// CHECK-NEXT:    return %[[OUT]]

// LLVM: llvm.func internal @jx_repeat(
// LLVM-SAME: passthrough = ["noinline", "optnone"]
func.func private @kernel(memref<8xf32>, memref<8xf32>, memref<8xf32>, f32)
func.func @layers(%x: memref<8xf32>, %w0: memref<8xf32>, %w1: memref<8xf32>, %w2: memref<8xf32>) -> memref<8xf32> {
  %s = arith.constant 2.0 : f32
  %h0 = memref.alloc() : memref<8xf32>
  func.call @kernel(%x, %w0, %h0, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  %h1 = memref.alloc() : memref<8xf32>
  func.call @kernel(%h0, %w1, %h1, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  %t1 = memref.alloc() : memref<8xf32>
  func.call @kernel(%h1, %w1, %t1, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  memref.dealloc %t1 : memref<8xf32>
  memref.dealloc %h0 : memref<8xf32>
  %h2 = memref.alloc() : memref<8xf32>
  func.call @kernel(%h1, %w2, %h2, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  %t2 = memref.alloc() : memref<8xf32>
  func.call @kernel(%h2, %w2, %t2, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  memref.dealloc %t2 : memref<8xf32>
  memref.dealloc %h1 : memref<8xf32>
  %h3 = memref.alloc() : memref<8xf32>
  func.call @kernel(%h2, %w0, %h3, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  %t3 = memref.alloc() : memref<8xf32>
  func.call @kernel(%h3, %w0, %t3, %s) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, f32) -> ()
  memref.dealloc %t3 : memref<8xf32>
  memref.dealloc %h2 : memref<8xf32>
  return %h3 : memref<8xf32>
}

// -----

// The second copy reads its own first result where the first copy read
// the function's argument: the copies disagree on data flow, nothing moves.
// CHECK-LABEL: func.func @disagree
// CHECK-NOT:     jx_repeat
// CHECK:         return
func.func private @kernel2(memref<8xf32>, memref<8xf32>)
func.func @disagree(%x: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  func.call @kernel2(%x, %a) : (memref<8xf32>, memref<8xf32>) -> ()
  %b = memref.alloc() : memref<8xf32>
  func.call @kernel2(%x, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  %c = memref.alloc() : memref<8xf32>
  func.call @kernel2(%c, %c) : (memref<8xf32>, memref<8xf32>) -> ()
  %d = memref.alloc() : memref<8xf32>
  func.call @kernel2(%d, %d) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  memref.dealloc %c : memref<8xf32>
  memref.dealloc %d : memref<8xf32>
  return
}

// -----

// One value read twice in the first copy, two values in the second: two
// arguments, each copy passing its own.
// CHECK-LABEL: func.func @two_slots
// CHECK-SAME:      (%[[X:.*]]: memref<8xf32>, %[[Y:.*]]: memref<8xf32>)
// CHECK-NEXT:    call @[[F:jx_repeat[_0-9]*]](%[[X]], %[[X]])
// CHECK-NEXT:    call @[[F]](%[[X]], %[[Y]])
// CHECK:       func.func private @[[F]](%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK:         call @kernel3(%[[A]], %{{.*}})
// CHECK:         call @kernel3(%[[B]], %{{.*}})
func.func private @kernel3(memref<8xf32>, memref<8xf32>)
func.func @two_slots(%x: memref<8xf32>, %y: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  func.call @kernel3(%x, %a) : (memref<8xf32>, memref<8xf32>) -> ()
  func.call @kernel3(%x, %a) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  func.call @kernel3(%x, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  func.call @kernel3(%y, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// Runs under four ops, and stack allocations (which would die with the
// outlined function's frame), stay.
// CHECK-LABEL: func.func @short_and_stack
// CHECK-NOT:     jx_repeat
// CHECK:         return
func.func private @kernel4(memref<8xf32>)
func.func @short_and_stack(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>) {
  func.call @kernel4(%x) : (memref<8xf32>) -> ()
  func.call @kernel4(%x) : (memref<8xf32>) -> ()
  func.call @kernel4(%x) : (memref<8xf32>) -> ()
  %a = memref.alloca() : memref<8xf32>
  func.call @kernel4(%a) : (memref<8xf32>) -> ()
  func.call @kernel4(%a) : (memref<8xf32>) -> ()
  func.call @kernel4(%a) : (memref<8xf32>) -> ()
  %b = memref.alloca() : memref<8xf32>
  func.call @kernel4(%b) : (memref<8xf32>) -> ()
  func.call @kernel4(%b) : (memref<8xf32>) -> ()
  func.call @kernel4(%b) : (memref<8xf32>) -> ()
  return %a, %b : memref<8xf32>, memref<8xf32>
}

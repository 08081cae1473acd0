// RUN: cotangent-opt %s --split-input-file --jx-gpu-host-buffers | FileCheck %s
// RUN: cotangent-opt %s --split-input-file --jx-gpu-host-buffers --jx-gpu-kernelize-host-code | FileCheck %s --check-prefix=HOST

// An alias check as the deallocation pipeline lowers it: buffers of base
// addresses and ownership flags, filled by the host, passed to a helper that
// loops over them, read back. They go on the stack, allocated once at the
// function's start (not at each iteration of the loop around them), and
// lose their deallocs; the buffer a kernel would write stays on the device.
// CHECK-LABEL: func.func @check
// CHECK-DAG:     %[[A:.*]] = memref.alloca() : memref<2xindex>
// CHECK-DAG:     %[[F:.*]] = memref.alloca() : memref<2xi1>
// CHECK-DAG:     %[[R:.*]] = memref.alloca() : memref<1xi1>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc()
// CHECK:           memref.store %{{.*}}, %[[A]]
// CHECK:           call @helper
// CHECK:           memref.load %[[R]]
// CHECK-NOT:       memref.dealloc %[[A]]
// CHECK:       memref.alloc() : memref<4xf32>
// CHECK:       linalg.fill

// The stores, the helper's loops and the loads stay on the host: no kernel,
// no read through the runtime.
// HOST-LABEL: func.func @check
// HOST-NOT:     gpu.launch
// HOST-NOT:     cotangent_cuda_read_scalar
// HOST:         linalg.fill
// HOST-LABEL: func.func private @helper
// HOST-NOT:     gpu.launch
// HOST:         return
func.func @check(%x: memref<4xf32>, %y: memref<4xf32>, %n: index) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %true) -> (i1) {
    %a = memref.alloc() : memref<2xindex>
    %f = memref.alloc() : memref<2xi1>
    %o = memref.alloc() : memref<1xi1>
    %px = memref.extract_aligned_pointer_as_index %x : memref<4xf32> -> index
    %py = memref.extract_aligned_pointer_as_index %y : memref<4xf32> -> index
    memref.store %px, %a[%c0] : memref<2xindex>
    memref.store %py, %a[%c1] : memref<2xindex>
    memref.store %true, %f[%c0] : memref<2xi1>
    memref.store %acc, %f[%c1] : memref<2xi1>
    %ca = memref.cast %a : memref<2xindex> to memref<?xindex>
    %cf = memref.cast %f : memref<2xi1> to memref<?xi1>
    %co = memref.cast %o : memref<1xi1> to memref<?xi1>
    func.call @helper(%ca, %cf, %co) : (memref<?xindex>, memref<?xi1>, memref<?xi1>) -> ()
    memref.dealloc %a : memref<2xindex>
    memref.dealloc %f : memref<2xi1>
    %v = memref.load %o[%c0] : memref<1xi1>
    memref.dealloc %o : memref<1xi1>
    scf.yield %v : i1
  }
  %d = memref.alloc() : memref<4xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%d : memref<4xf32>)
  memref.dealloc %d : memref<4xf32>
  return %r : i1
}

func.func private @helper(%a: memref<?xindex>, %f: memref<?xi1>, %o: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %n = memref.dim %a, %c0 : memref<?xindex>
  memref.store %false, %o[%c0] : memref<?xi1>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %f[%i] : memref<?xi1>
    %y = memref.load %o[%c0] : memref<?xi1>
    %z = arith.ori %x, %y : i1
    memref.store %z, %o[%c0] : memref<?xi1>
  }
  return
}

// -----

// A buffer that a public function receives, or that a linalg op writes, is
// not the host's alone: it stays a device allocation.
// CHECK-LABEL: func.func @shared
// CHECK:         memref.alloc() : memref<2xindex>
// CHECK:         memref.alloc() : memref<2xf32>
// CHECK-NOT:     memref.alloca
func.func @shared(%v: index) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<2xindex>
  memref.store %v, %a[%c0] : memref<2xindex>
  func.call @external(%a) : (memref<2xindex>) -> ()
  memref.dealloc %a : memref<2xindex>
  %b = memref.alloc() : memref<2xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%b : memref<2xf32>)
  memref.store %one, %b[%c0] : memref<2xf32>
  memref.dealloc %b : memref<2xf32>
  return
}
func.func @external(%a: memref<2xindex>) {
  return
}

// RUN: cotangent-opt %s --jx-gpu-kernelize-host-code --canonicalize | FileCheck %s

// A sum over all dimensions: one block of 256 threads (the 8x32 elements
// fill 256), each folding a strided share from 0.0; gpu.all_reduce adds
// the shares and thread 0 adds the total into the element.
// CHECK-LABEL: func.func @sum_all
// CHECK:         gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:           %[[SHARE:.*]] = scf.for %[[K:.*]] = %[[T]] to %c256{{.*}} step %c256{{.*}} iter_args(%[[ACC:.*]] = %cst{{.*}}) -> (f32)
// CHECK-NEXT:        %[[J:.*]] = arith.remui %[[K]], %c32
// CHECK-NEXT:        %[[I:.*]] = arith.divui %[[K]], %c32
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK:             %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK:             scf.yield %[[NEXT]]
// CHECK:           %[[SUM:.*]] = gpu.all_reduce add %[[SHARE]] uniform
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK:           scf.if %[[FIRST]]
// CHECK:             %[[OLD:.*]] = memref.load %arg1[]
// CHECK:             %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK:             memref.store %[[NEW]], %arg1[]
// CHECK-NOT:     memref.load
// CHECK:         return
func.func @sum_all(%in: memref<8x32xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c32 step %c1 {
      %a = memref.load %out[] : memref<f32>
      %x = memref.load %in[%i, %j] : memref<8x32xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %out[] : memref<f32>
    }
  }
  return
}

// A sum over 2048x1024 elements: blocks of 1024 threads, as many as fill
// the device once (twice its multiprocessors, asked of the runtime on the
// host) but no more than 128, the blocks of 16 elements per thread; the
// threads stride over the grid's size; every block adds its total
// atomically.
// CHECK-LABEL: func.func @sum_large
// CHECK:         %[[SMS:.*]] = call @cotangent_cuda_multiprocessors() : () -> i64
// CHECK:         %[[COUNT:.*]] = arith.index_cast %[[SMS]] : i64 to index
// CHECK:         %[[TWICE:.*]] = arith.muli %[[COUNT]], %c2
// CHECK:         %[[WAVE:.*]] = arith.maxui %[[TWICE]], %c1
// CHECK:         %[[GRID:.*]] = arith.minui %[[WAVE]], %c128
// CHECK:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %[[GRID]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c1024{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:           %[[BASE:.*]] = arith.muli %[[B]], %c1024
// CHECK:           %[[START:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK:           %[[STRIDE:.*]] = arith.muli %[[GX]], %c1024
// CHECK:           %[[SHARE:.*]] = scf.for %{{.*}} = %[[START]] to %c2097152 step %[[STRIDE]]
// CHECK:           %[[SUM:.*]] = gpu.all_reduce add %[[SHARE]] uniform
// CHECK:           scf.if
// CHECK-NEXT:        memref.atomic_rmw addf %[[SUM]], %arg1[] : (f32, memref<f32>) -> f32
func.func @sum_large(%in: memref<2048x1024xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c2048 step %c1 {
    scf.for %j = %c0 to %c1024 step %c1 {
      %a = memref.load %out[] : memref<f32>
      %x = memref.load %in[%i, %j] : memref<2048x1024xf32>
      %s = arith.addf %x, %a : f32
      memref.store %s, %out[] : memref<f32>
    }
  }
  return
}

// A max over 5000 elements: a full block of 1024 threads from -inf.
// CHECK-LABEL: func.func @max_all
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1024
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[NEGINF]])
// CHECK:           gpu.all_reduce maximumf
func.func @max_all(%in: memref<5000xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 5000 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %out[] : memref<f32>
    %x = memref.load %in[%i] : memref<5000xf32>
    %m = arith.maximumf %x, %a : f32
    memref.store %m, %out[] : memref<f32>
  }
  return
}

// A loop that is not a reduction into one element (it writes %out[%i])
// and a lone store of 0-d arithmetic: one-thread kernels, the loads and
// arithmetic computing the stored value cloned in.
// CHECK-LABEL: func.func @serial
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %arg1[%{{.*}}]
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:           %[[V:.*]] = memref.load %arg2[]
// CHECK:           %[[W:.*]] = arith.mulf %[[V]], %[[V]]
// CHECK:           memref.store %[[W]], %arg3[]
// CHECK-NOT:     memref.load
// CHECK:         return
func.func @serial(%in: memref<4xf32>, %out: memref<4xf32>, %s: memref<f32>, %t: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c1 to %c3 step %c1 {
    %x = memref.load %in[%i] : memref<4xf32>
    memref.store %x, %out[%i] : memref<4xf32>
  }
  %v = memref.load %s[] : memref<f32>
  %w = arith.mulf %v, %v : f32
  memref.store %w, %t[] : memref<f32>
  return
}

// memref.copy: a parallel loop (later a kernel); 0-d: a one-thread kernel.
// CHECK-LABEL: func.func @copies
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1)
// CHECK:           %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK:           memref.store %[[X]], %arg1[%[[I]], %[[J]]]
// CHECK:         gpu.launch
// CHECK:           memref.load %arg2[]
// CHECK:           memref.store %{{.*}}, %arg3[]
// CHECK-NOT:     memref.copy
func.func @copies(%a: memref<2x3xf32>, %b: memref<2x3xf32, strided<[4, 1]>>,
                  %c: memref<i32>, %d: memref<i32>) {
  memref.copy %a, %b : memref<2x3xf32> to memref<2x3xf32, strided<[4, 1]>>
  memref.copy %c, %d : memref<i32> to memref<i32>
  return
}

// With an offset and strides, the element's byte address is computed.
// CHECK-LABEL: func.func @strided_read
// CHECK:         %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %arg0
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK:         %[[ROW:.*]] = arith.muli %arg1, %[[STRIDES]]#0
// CHECK:         %[[EL:.*]] = arith.addi %[[OFFSET]], %[[ROW]]
// CHECK:         %[[COL:.*]] = arith.muli %arg2, %[[STRIDES]]#1
// CHECK:         %[[EL2:.*]] = arith.addi %[[EL]], %[[COL]]
// CHECK:         %[[BYTES:.*]] = arith.muli %[[EL2]], %c8
// CHECK:         %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK:         call @cotangent_cuda_read_scalar(%{{.*}}, %c8_i64)
// CHECK:         arith.bitcast %{{.*}} : i64 to f64
func.func @strided_read(%m: memref<4x4xf64, strided<[?, ?], offset: ?>>, %i: index, %j: index) -> f64 {
  %v = memref.load %m[%i, %j] : memref<4x4xf64, strided<[?, ?], offset: ?>>
  return %v : f64
}

// A predicate the host branches on: read through the runtime (one byte at
// the element's address), the branch stays on the host.
// CHECK-LABEL: func.func @branch
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK:         %[[A64:.*]] = arith.index_castui %[[PTR]] : index to i64
// CHECK:         %[[RAW:.*]] = call @cotangent_cuda_read_scalar(%[[A64]], %c1_i64)
// CHECK:         %[[P:.*]] = arith.trunci %[[RAW]] : i64 to i1
// CHECK:         scf.if %[[P]]
// CHECK:       func.func private @cotangent_cuda_read_scalar(i64, i64) -> i64
func.func @branch(%p: memref<i1>, %x: memref<4xf32>, %y: memref<4xf32>) {
  %b = memref.load %p[] : memref<i1>
  scf.if %b {
    memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  }
  return
}

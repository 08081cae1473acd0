// RUN: cotangent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(jx-gpu-vectorize-accesses))" | FileCheck %s
// RUN: cotangent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(jx-gpu-vectorize-accesses{vector-bytes=8}))" | FileCheck %s --check-prefix=B8
// RUN: cotangent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(jx-gpu-vectorize-accesses{vector-bytes=0}))" | FileCheck %s --check-prefix=OFF
// RUN: not cotangent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(jx-gpu-vectorize-accesses{vector-bytes=12}))" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: vector-bytes must be 0 or a power of two, got 12

// An elementwise loop: four lanes per thread, one 16-byte load per
// contiguous operand, the row broadcast too; the column broadcast is loaded
// once per thread; the four results go out as one store.
// CHECK-LABEL: func.func @bias_add
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.parallel (%[[I:.*]], %[[J4:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %[[C8]])
// CHECK:           %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[J:.*]] = arith.muli %[[J4]], %[[C4]] : index
// CHECK:           %[[X:.*]] = vector.load %{{.*}}[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<6x32xf32>, vector<4xf32>
// CHECK-COUNT-4:   vector.extract %[[X]][{{[0-3]}}]
// CHECK:           %[[R:.*]] = vector.load %{{.*}}[%[[J]]] {alignment = 16 : i64} : memref<32xf32>, vector<4xf32>
// CHECK:           %[[C:.*]] = memref.load %{{.*}}[%[[I]]] : memref<6xf32>
// CHECK-NOT:       memref.load
// CHECK-COUNT-4:   arith.addf
// CHECK-COUNT-4:   arith.mulf %{{.*}}, %[[C]] : f32
// CHECK:           %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:           vector.store %[[V]], %{{.*}}[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<6x32xf32>, vector<4xf32>
// CHECK-NOT:       memref.store
// CHECK:           scf.reduce
// With 8-byte accesses: two lanes.
// B8-LABEL: func.func @bias_add
// B8:         vector.load %{{.*}} {alignment = 8 : i64} : memref<6x32xf32>, vector<2xf32>
// Turned off: the loop as it was.
// OFF-LABEL: func.func @bias_add
// OFF-NOT:     vector.load
// OFF:         memref.load %{{.*}} : memref<6x32xf32>
func.func @bias_add(%a: memref<6x32xf32>, %row: memref<32xf32>, %col: memref<6xf32>,
                    %out: memref<6x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c32) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<6x32xf32>
    %r = memref.load %row[%j] : memref<32xf32>
    %c = memref.load %col[%i] : memref<6xf32>
    %y = arith.addf %x, %r : f32
    %z = arith.mulf %y, %c : f32
    memref.store %z, %out[%i, %j] : memref<6x32xf32>
    scf.reduce
  }
  return
}

// -----

// bf16 alone: eight lanes of 2 bytes.
// CHECK-LABEL: func.func @bf16_neg
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<64xbf16>, vector<8xbf16>
// CHECK-COUNT-8: arith.negf
// CHECK:         vector.store %{{.*}} {alignment = 16 : i64} : memref<64xbf16>, vector<8xbf16>
func.func @bf16_neg(%a: memref<64xbf16>, %out: memref<64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %x = memref.load %a[%i] : memref<64xbf16>
    %y = arith.negf %x : bf16
    memref.store %y, %out[%i] : memref<64xbf16>
    scf.reduce
  }
  return
}

// -----

// Left alone: an odd trip count, a dynamic layout, a loop with reductions,
// a body with a region, a load after a store, a loop inside a kernel.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK:         return
func.func @left_alone(%a: memref<7xf32>, %d: memref<?xf32, strided<[1], offset: ?>>,
                      %b: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %x = memref.load %a[%i] : memref<7xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<7xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %d[%i] : memref<?xf32, strided<[1], offset: ?>>
    memref.store %x, %d[%i] : memref<?xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  %sum = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %x = memref.load %b[%i] : memref<8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %x = memref.load %b[%i] : memref<8xf32>
      memref.store %x, %b[%i] : memref<8xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %sum, %b[%i] : memref<8xf32>
    %x = memref.load %b[%i] : memref<8xf32>
    memref.store %x, %b[%i] : memref<8xf32>
    scf.reduce
  }
  gpu.launch blocks(%bx, %by, %bz) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%t0 = %c1, %t1 = %c1, %t2 = %c1) {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %b[%i] : memref<8xf32>
      memref.store %x, %b[%i] : memref<8xf32>
      scf.reduce
    }
    gpu.terminator
  }
  return
}

// -----

// A memref.view moves the start of its buffer by a byte shift its type does
// not show: 16 bytes keeps 16-byte pieces aligned (through a cast too), 4
// does not.
// CHECK-LABEL: func.func @byte_views
// CHECK:         vector.load %{{.*}} : memref<64xf32, strided<[1]>>, vector<4xf32>
// CHECK-COUNT-4: memref.load %{{.*}} : memref<64xf32>
// CHECK:         vector.store
func.func @byte_views(%bytes: memref<1024xi8>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %at16 = memref.view %bytes[%c16][] : memref<1024xi8> to memref<64xf32>
  %cast = memref.cast %at16 : memref<64xf32> to memref<64xf32, strided<[1]>>
  %at4 = memref.view %bytes[%c4][] : memref<1024xi8> to memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %x = memref.load %cast[%i] : memref<64xf32, strided<[1]>>
    %y = memref.load %at4[%i] : memref<64xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %out[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

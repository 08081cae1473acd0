// DEFINE: %{lower} = --convert-scf-to-cf --lower-affine --convert-vector-to-llvm --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-vectorize-accesses))" -o %t.vector.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.vector.mlir
// RUN: cotangent-opt %t.vector.mlir %{lower} | %{run} > %t.vector.txt
// RUN: cotangent-opt %s %{lower} | %{run} > %t.scalar.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.vector.txt
// The printed buffers' addresses differ from run to run: not their values.
// RUN: grep -v "base@" %t.scalar.txt > %t.scalar.values
// RUN: grep -v "base@" %t.vector.txt > %t.vector.values
// RUN: diff %t.scalar.values %t.vector.values

// The elementwise loops jx-gpu-vectorize-accesses meets, run on the CPU
// with and without the pass: the widened loops write what the scalar ones
// write, element for element (their lanes run the same scalar ops). The
// buffers come from malloc (16-byte aligned), as device blocks are.

// Broadcasts along either dimension, a math op, an in-place update.
// IR-LABEL: func.func @bias_tanh
// IR-COUNT-3: vector.load
// IR-NOT:     memref.load %{{.*}}[%{{.*}}, %{{.*}}]
// IR-COUNT-2: vector.store
func.func @bias_tanh(%a: memref<6x32xf32>, %row: memref<32xf32>, %col: memref<6xf32>,
                     %out: memref<6x32xf32>, %acc: memref<6x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c32) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<6x32xf32>
    %r = memref.load %row[%j] : memref<32xf32>
    %c = memref.load %col[%i] : memref<6xf32>
    %s = memref.load %acc[%i, %j] : memref<6x32xf32>
    %y = arith.addf %x, %r : f32
    %z = arith.mulf %y, %c : f32
    %t = math.tanh %z : f32
    %u = arith.addf %s, %t : f32
    memref.store %t, %out[%i, %j] : memref<6x32xf32>
    memref.store %u, %acc[%i, %j] : memref<6x32xf32>
    scf.reduce
  }
  return
}

// A transposed operand stays scalar (four loads per thread); the others
// are vectors. The trip count 6 takes two lanes.
// IR-LABEL: func.func @transpose_add
// IR:         to (%c4, %c3)
// IR-COUNT-2: memref.load %{{.*}} : memref<6x4xf32>
// IR:         vector.load %{{.*}} : memref<4x6xf32>, vector<2xf32>
// IR:         vector.store %{{.*}} : memref<4x6xf32>, vector<2xf32>
func.func @transpose_add(%at: memref<6x4xf32>, %b: memref<4x6xf32>, %out: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c6) step (%c1, %c1) {
    %x = memref.load %at[%j, %i] : memref<6x4xf32>
    %y = memref.load %b[%i, %j] : memref<4x6xf32>
    %z = arith.subf %x, %y : f32
    memref.store %z, %out[%i, %j] : memref<4x6xf32>
    scf.reduce
  }
  return
}

// bf16 in, f32 and bf16 out: four lanes (16 bytes of f32, 8 of bf16).
// IR-LABEL: func.func @bf16_scale
// IR:         vector.load %{{.*}} {alignment = 8 : i64} : memref<4x16xbf16>, vector<4xbf16>
// IR:         vector.store %{{.*}} {alignment = 16 : i64} : memref<4x16xf32>, vector<4xf32>
// IR:         vector.store %{{.*}} {alignment = 8 : i64} : memref<4x16xbf16>, vector<4xbf16>
func.func @bf16_scale(%x: memref<4x16xbf16>, %wide: memref<4x16xf32>, %narrow: memref<4x16xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %k = arith.constant 1.5 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x16xbf16>
    %e = arith.extf %v : bf16 to f32
    %m = arith.mulf %e, %k : f32
    %n = arith.truncf %m : f32 to bf16
    memref.store %m, %wide[%i, %j] : memref<4x16xf32>
    memref.store %n, %narrow[%i, %j] : memref<4x16xbf16>
    scf.reduce
  }
  return
}

// f64: two lanes.
// IR-LABEL: func.func @axpy_f64
// IR:         to (%c5)
// IR:         vector.load %{{.*}} {alignment = 16 : i64} : memref<10xf64>, vector<2xf64>
func.func @axpy_f64(%a: f64, %x: memref<10xf64>, %y: memref<10xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.parallel (%i) = (%c0) to (%c10) step (%c1) {
    %u = memref.load %x[%i] : memref<10xf64>
    %v = memref.load %y[%i] : memref<10xf64>
    %w = math.fma %a, %u, %v : f64
    memref.store %w, %y[%i] : memref<10xf64>
    scf.reduce
  }
  return
}

// An i1 buffer holds a byte per element: its loads stay scalar.
// IR-LABEL: func.func @select_mask
// IR-COUNT-4: memref.load %{{.*}} : memref<8x8xi1>
// IR-COUNT-2: vector.load
func.func @select_mask(%mask: memref<8x8xi1>, %a: memref<8x8xf32>, %b: memref<8x8xf32>,
                       %out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %p = memref.load %mask[%i, %j] : memref<8x8xi1>
    %x = memref.load %a[%i, %j] : memref<8x8xf32>
    %y = memref.load %b[%i, %j] : memref<8x8xf32>
    %z = arith.select %p, %x, %y : f32
    memref.store %z, %out[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  return
}

// A window of a wider buffer: offset 4 and row stride 40 keep every piece
// aligned (a vector); offset 2 does not (scalar loads).
// IR-LABEL: func.func @window
// IR:         vector.load %{{.*}} : memref<6x32xf32, strided<[40, 1], offset: 4>>, vector<4xf32>
// IR-COUNT-4: memref.load %{{.*}} : memref<6x32xf32, strided<[40, 1], offset: 2>>
// IR:         vector.store
func.func @window(%wide: memref<6x40xf32>, %out: memref<6x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %aligned = memref.subview %wide[0, 4] [6, 32] [1, 1]
      : memref<6x40xf32> to memref<6x32xf32, strided<[40, 1], offset: 4>>
  %shifted = memref.subview %wide[0, 2] [6, 32] [1, 1]
      : memref<6x40xf32> to memref<6x32xf32, strided<[40, 1], offset: 2>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c32) step (%c1, %c1) {
    %x = memref.load %aligned[%i, %j] : memref<6x32xf32, strided<[40, 1], offset: 4>>
    %y = memref.load %shifted[%i, %j] : memref<6x32xf32, strided<[40, 1], offset: 2>>
    %z = arith.mulf %x, %y : f32
    memref.store %z, %out[%i, %j] : memref<6x32xf32>
    scf.reduce
  }
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}

// Element n of a buffer of any shape gets sin(n * 0.37 + seed).
func.func @fill(%m: memref<?xf32>, %seed: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = arith.constant 0.37 : f32
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %g = math.fma %f, %k, %seed : f32
    %s = math.sin %g : f32
    memref.store %s, %m[%i] : memref<?xf32>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s1 = arith.constant 1.0 : f32
  %s2 = arith.constant 2.0 : f32
  %s3 = arith.constant 3.0 : f32
  %s4 = arith.constant 4.0 : f32

  // bias_tanh
  %a = memref.alloc() : memref<192xf32>
  %row = memref.alloc() : memref<32xf32>
  %col = memref.alloc() : memref<6xf32>
  %acc = memref.alloc() : memref<192xf32>
  %out = memref.alloc() : memref<6x32xf32>
  %a1 = memref.cast %a : memref<192xf32> to memref<?xf32>
  %row1 = memref.cast %row : memref<32xf32> to memref<?xf32>
  %col1 = memref.cast %col : memref<6xf32> to memref<?xf32>
  %acc1 = memref.cast %acc : memref<192xf32> to memref<?xf32>
  call @fill(%a1, %s1) : (memref<?xf32>, f32) -> ()
  call @fill(%row1, %s2) : (memref<?xf32>, f32) -> ()
  call @fill(%col1, %s3) : (memref<?xf32>, f32) -> ()
  call @fill(%acc1, %s4) : (memref<?xf32>, f32) -> ()
  %a2 = memref.expand_shape %a [[0, 1]] output_shape [6, 32] : memref<192xf32> into memref<6x32xf32>
  %acc2 = memref.expand_shape %acc [[0, 1]] output_shape [6, 32] : memref<192xf32> into memref<6x32xf32>
  call @bias_tanh(%a2, %row, %col, %out, %acc2)
      : (memref<6x32xf32>, memref<32xf32>, memref<6xf32>, memref<6x32xf32>, memref<6x32xf32>) -> ()
  %p0 = memref.cast %out : memref<6x32xf32> to memref<*xf32>
  %p1 = memref.cast %acc2 : memref<6x32xf32> to memref<*xf32>
  call @printMemrefF32(%p0) : (memref<*xf32>) -> ()
  call @printMemrefF32(%p1) : (memref<*xf32>) -> ()

  // transpose_add
  %at = memref.alloc() : memref<24xf32>
  %b = memref.alloc() : memref<24xf32>
  %tout = memref.alloc() : memref<4x6xf32>
  %at1 = memref.cast %at : memref<24xf32> to memref<?xf32>
  %b1 = memref.cast %b : memref<24xf32> to memref<?xf32>
  call @fill(%at1, %s1) : (memref<?xf32>, f32) -> ()
  call @fill(%b1, %s2) : (memref<?xf32>, f32) -> ()
  %at2 = memref.expand_shape %at [[0, 1]] output_shape [6, 4] : memref<24xf32> into memref<6x4xf32>
  %b2 = memref.expand_shape %b [[0, 1]] output_shape [4, 6] : memref<24xf32> into memref<4x6xf32>
  call @transpose_add(%at2, %b2, %tout) : (memref<6x4xf32>, memref<4x6xf32>, memref<4x6xf32>) -> ()
  %p2 = memref.cast %tout : memref<4x6xf32> to memref<*xf32>
  call @printMemrefF32(%p2) : (memref<*xf32>) -> ()

  // bf16_scale: the bf16 result is printed widened to f32.
  %xf = memref.alloc() : memref<64xf32>
  %xf1 = memref.cast %xf : memref<64xf32> to memref<?xf32>
  call @fill(%xf1, %s3) : (memref<?xf32>, f32) -> ()
  %xb = memref.alloc() : memref<4x16xbf16>
  %wide = memref.alloc() : memref<4x16xf32>
  %narrow = memref.alloc() : memref<4x16xbf16>
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %n = affine.apply affine_map<(i, j) -> (i * 16 + j)>(%i, %j)
      %v = memref.load %xf[%n] : memref<64xf32>
      %t = arith.truncf %v : f32 to bf16
      memref.store %t, %xb[%i, %j] : memref<4x16xbf16>
    }
  }
  call @bf16_scale(%xb, %wide, %narrow) : (memref<4x16xbf16>, memref<4x16xf32>, memref<4x16xbf16>) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %n = affine.apply affine_map<(i, j) -> (i * 16 + j)>(%i, %j)
      %v = memref.load %narrow[%i, %j] : memref<4x16xbf16>
      %e = arith.extf %v : bf16 to f32
      memref.store %e, %xf[%n] : memref<64xf32>
    }
  }
  %p3 = memref.cast %wide : memref<4x16xf32> to memref<*xf32>
  %p4 = memref.cast %xf : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%p3) : (memref<*xf32>) -> ()
  call @printMemrefF32(%p4) : (memref<*xf32>) -> ()

  // axpy_f64
  %xs = memref.alloc() : memref<20xf32>
  %xs1 = memref.cast %xs : memref<20xf32> to memref<?xf32>
  call @fill(%xs1, %s4) : (memref<?xf32>, f32) -> ()
  %x64 = memref.alloc() : memref<10xf64>
  %y64 = memref.alloc() : memref<10xf64>
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %k = arith.addi %i, %c10 : index
    %u = memref.load %xs[%i] : memref<20xf32>
    %v = memref.load %xs[%k] : memref<20xf32>
    %u64 = arith.extf %u : f32 to f64
    %v64 = arith.extf %v : f32 to f64
    memref.store %u64, %x64[%i] : memref<10xf64>
    memref.store %v64, %y64[%i] : memref<10xf64>
  }
  %alpha = arith.constant -0.75 : f64
  call @axpy_f64(%alpha, %x64, %y64) : (f64, memref<10xf64>, memref<10xf64>) -> ()
  %p5 = memref.cast %y64 : memref<10xf64> to memref<*xf64>
  call @printMemrefF64(%p5) : (memref<*xf64>) -> ()

  // select_mask: the mask is a checkerboard shifted by row.
  %mask = memref.alloc() : memref<8x8xi1>
  %ma = memref.alloc() : memref<64xf32>
  %mb = memref.alloc() : memref<64xf32>
  %mout = memref.alloc() : memref<8x8xf32>
  %c8 = arith.constant 8 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %ij = arith.muli %i, %j : index
      %r = arith.remui %ij, %c3 : index
      %p = arith.cmpi eq, %r, %c0 : index
      memref.store %p, %mask[%i, %j] : memref<8x8xi1>
    }
  }
  %ma1 = memref.cast %ma : memref<64xf32> to memref<?xf32>
  %mb1 = memref.cast %mb : memref<64xf32> to memref<?xf32>
  call @fill(%ma1, %s1) : (memref<?xf32>, f32) -> ()
  call @fill(%mb1, %s2) : (memref<?xf32>, f32) -> ()
  %ma2 = memref.expand_shape %ma [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %mb2 = memref.expand_shape %mb [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  call @select_mask(%mask, %ma2, %mb2, %mout)
      : (memref<8x8xi1>, memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>) -> ()
  %p6 = memref.cast %mout : memref<8x8xf32> to memref<*xf32>
  call @printMemrefF32(%p6) : (memref<*xf32>) -> ()

  // window
  %w = memref.alloc() : memref<240xf32>
  %w1 = memref.cast %w : memref<240xf32> to memref<?xf32>
  call @fill(%w1, %s2) : (memref<?xf32>, f32) -> ()
  %w2 = memref.expand_shape %w [[0, 1]] output_shape [6, 40] : memref<240xf32> into memref<6x40xf32>
  %wout = memref.alloc() : memref<6x32xf32>
  call @window(%w2, %wout) : (memref<6x40xf32>, memref<6x32xf32>) -> ()
  %p7 = memref.cast %wout : memref<6x32xf32> to memref<*xf32>
  call @printMemrefF32(%p7) : (memref<*xf32>) -> ()
  return
}
// Eight buffers printed, the f64 one among them.
// OUT-COUNT-5: Unranked Memref base@
// OUT:        sizes = [10]
// OUT-NEXT:   [1.55577, 1.68323,
// OUT-COUNT-2: Unranked Memref base@

//===- GpuPasses.td - jx to NVVM for the GPU -------------*- tablegen -*-===//

#ifndef COTANGENT_PASSES_GPU_GPUPASSES_TD
#define COTANGENT_PASSES_GPU_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

def JxGpuTileParallelLoopsPass
    : Pass<"jx-gpu-tile-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Shape each outermost scf.parallel into a grid of fixed-size thread blocks";
  let description = [{
    Prepares the loops `convert-linalg-to-parallel-loops` makes for
    `gpu-map-parallel-loops` and `convert-parallel-loops-to-gpu`. Each
    outermost `scf.parallel` (one per fused linalg op) with at most three
    constant-trip-count dimensions first gets its dimensions reversed, so
    that the innermost (contiguous) dimension maps to `thread_x` and
    consecutive threads touch consecutive addresses. It is then tiled with
    `noMinMaxBounds` so that the inner loop, which becomes the thread block,
    has constant bounds: tile sizes are taken from the fastest dimension
    outwards until `threads-per-block` threads are used (the z dimension is
    capped at 64, the hardware limit; dimensions beyond the third stay
    sequential loops in each thread). The remainder is guarded by an
    `scf.if` inside the block. A loop whose blocks would number more than
    65535 along y or z (the hardware's limit) is first made one-dimensional:
    each thread divides its index back into the loop's.

    ```mlir
    // scf.parallel (%i, %j) = (0, 0) to (8, 32)  becomes
    scf.parallel (%bj, %bi) = (0, 0) to (32, 8) step (32, 8) {
      scf.parallel (%tj, %ti) = (0, 0) to (32, 8) step (1, 1) { ... }
    }
    ```
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"256",
           "Threads in each block (at most 1024)">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect"];
}

def JxGpuVectorizeAccessesPass
    : Pass<"jx-gpu-vectorize-accesses", "mlir::func::FuncOp"> {
  let summary = "Give each thread of an elementwise loop several neighbouring elements, "
                "read and written as one vector";
  let description = [{
    Runs after `jx-gpu-block-reductions`, before `jx-gpu-tile-parallel-loops`.
    In an outermost `scf.parallel` without reductions whose body is straight
    code (loads, stores and ops without side effects or regions, every load
    before every store), each iteration of the innermost dimension (constant
    bounds from 0 by 1) takes `L` neighbouring elements: the body is repeated
    for each lane, and each access whose last index is that induction
    variable (and whose other indices do not depend on it) becomes one
    `vector.load` or `vector.store` of `L` elements with its alignment stated,
    so that the NVPTX backend emits `ld.global.v4.f32` and the like. Memory
    is read in 16-byte pieces: `L` is 16 bytes over the widest element so
    accessed (at most 8), halved until it divides the trip count.

    An access is vectorized only where its alignment follows from its type
    (the runtime's blocks start on 16 bytes or more): a strided layout with
    a static offset and static strides that are multiples of `L` (the last
    stride 1; unit dimensions excepted), no `memref.view` on the way back to
    the buffer unless its byte shift is a constant multiple of the vector's
    bytes (a view's shift is not in its type), and an element of 8, 16, 32
    or 64 bits (`i1` buffers hold a byte per element). Other accesses are repeated
    per lane; ops that do not depend on the induction variable are not.

    ```mlir
    // scf.parallel (%i, %j) = (0, 0) to (8, 32) {
    //   %x = memref.load %a[%i, %j]; %y = memref.load %b[%j]
    //   memref.store (%x + %y), %c[%i, %j] }                      becomes
    scf.parallel (%i, %j4) = (0, 0) to (8, 8) {
      %j = arith.muli %j4, 4
      %x = vector.load %a[%i, %j] {alignment = 16} : vector<4xf32>
      %y = vector.load %b[%j] {alignment = 16} : vector<4xf32>
      // four lanes of the scalar code, on vector.extract of %x and %y
      vector.store (vector.from_elements ...), %c[%i, %j] {alignment = 16}
    }
    ```
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"16",
           "Bytes each vector access reads or writes (a power of two; 0 turns the pass off)">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::arith::ArithDialect"];
}

def JxGpuKernelizeHostCodePass
    : Pass<"jx-gpu-kernelize-host-code", "mlir::ModuleOp"> {
  let summary = "Move what host code does to buffers onto the device";
  let description = [{
    Buffers are device memory and launches are asynchronous, so the host
    must not read or write them. Runs after `convert-linalg-to-parallel-loops`
    and rewrites what is left outside `scf.parallel` loops:

    - `memref.copy` becomes a parallel loop of loads and stores (a kernel);
    - a nest of constant-bound `scf.for` loops that folds values into one
      element (a reduction over all dimensions: load, `arith` combiner,
      store at loop-invariant indices) becomes one block of up to 1024
      threads, each folding a strided share in a register from the
      combiner's identity, combined by `gpu.all_reduce`; thread 0 folds the
      total into the element. A sum of more than 16 elements per thread
      takes several such blocks, each adding its total into the element
      with `memref.atomic_rmw`: as many as fill the device once (host code
      asks the runtime for its multiprocessors,
      `cotangent_cuda_multiprocessors`, two blocks each), fewer where 16
      elements per thread run out first; the threads stride by the grid;
    - any other loop nest of loads, stores and pure ops, and any lone
      `memref.store` (with the loads and pure ops computing its operands),
      becomes a `gpu.launch` of one thread;
    - a load whose value the host needs (a branch predicate) becomes a call
      to `cotangent_cuda_read_scalar(address, bytes)`, which waits for the
      device and copies the element over.

    Stack buffers (`memref.alloca`, what `jx-gpu-host-buffers` makes) are
    host memory: loads, stores and loops on them stay host code, as does
    every private function whose calls all pass it stack buffers.

    ```mlir
    // scf.for %i = 0 to 8 { scf.for %j = 0 to 32 {
    //   %a = memref.load %out[] ; %x = memref.load %in[%i, %j]
    //   %s = arith.addf %a, %x ; memref.store %s, %out[] } }   becomes
    gpu.launch blocks(...) in (1, 1, 1) threads(%t, ...) in (256, 1, 1) {
      %share = scf.for %k = %t to 256 step 256 iter_args(%acc = 0.0) { ... }
      %sum = gpu.all_reduce add %share uniform {}
      // thread 0: %out[] = %out[] + %sum
    }
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def JxGpuFatbinPass : Pass<"jx-gpu-fatbin", "mlir::ModuleOp"> {
  let summary = "Pack the cubins of each gpu.binary into one fat binary";
  let description = [{
    Runs after `gpu-module-to-binary` on modules with one `#nvvm.target` per
    chip (`--jx-to-nvvm="chip=sm_80,sm_90"`): every `gpu.binary` with more
    than one cubin becomes one object in `fatbin` format, made by the CUDA
    toolkit's `fatbinary`. The driver picks the image of the device it runs
    on, so one host object runs on every listed architecture. Objects that
    are not cubins of NVVM targets are an error.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"/usr/local/cuda\"",
           "CUDA toolkit whose bin/fatbinary packs the cubins">
  ];
}

def JxGpuMergeKernelsPass : Pass<"jx-gpu-merge-kernels", "mlir::ModuleOp"> {
  let summary = "Compile each kernel structure once: launches of equal kernels share one module";
  let description = [{
    Runs after `gpu-kernel-outlining` (and canonicalization), before the
    kernels are compiled. Outlining makes one `gpu.module` per launch, but a
    model repeats itself (the blocks of a transformer) and the split's step
    functions launch what its forward and backward launch. Modules holding
    one kernel function whose text is the same but for the module's and
    the function's names are merged: the first of them stays, and every
    `gpu.launch_func` of another launches it instead. Each module is
    compiled once per chip and loaded at run time, so this cuts compile
    time, binary size and load time; the code run is the same.
  }];
}

def JxGpuDeviceGlobalsPass : Pass<"jx-gpu-device-globals", "mlir::ModuleOp"> {
  let summary = "Host code passes kernels device copies of constant globals";
  let description = [{
    Runs on the host's LLVM dialect after `gpu-to-llvm`. Constant tensors
    are `llvm.mlir.global` constants in host memory, which kernels cannot
    read. Every `llvm.mlir.addressof` of a constant global in a host
    function is followed by a call to
    `cotangent_cuda_device_global(host address, bytes)`, whose result (the
    address of a device copy the runtime uploads once and keeps) replaces
    it. Globals of other than array-of-scalar types are an error.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def JxGpuReloadResidualsPass
    : Pass<"jx-gpu-reload-residuals", "mlir::func::FuncOp"> {
  let summary = "Copy each offloaded residual to the device right before its first use";
  let description = [{
    Runs on jx functions before bufferization. An argument marked
    `#jx.residual<memory_kind = "pinned_host">` (a backward's residual that
    waits in pinned host memory) is replaced by a
    `bufferization.alloc_tensor() copy(%arg)` placed right before the first
    op of the entry block that uses it: the backward gets the pinned buffer
    itself, and its device copy lives from the first use to the last, so an
    offloaded residual does not occupy device memory for the whole backward.
    A residual whose one reader (through optimization barriers) is an
    elementwise op gets no copy: that op's kernel reads the pinned buffer in
    place, each element once, as the copy's kernel would, and the device
    never holds it.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def JxGpuOffloadResidualsPass
    : Pass<"jx-gpu-offload-residuals", "mlir::func::FuncOp"> {
  let summary = "Copy each offloaded residual to pinned host memory right after it is computed";
  let description = [{
    Runs on jx functions before bufferization, the forward's counterpart of
    `jx-gpu-reload-residuals`. A result marked
    `#jx.residual<memory_kind = "pinned_host">` (a forward's residual that is
    to wait in pinned host memory) is returned as
    `bufferization.alloc_tensor() copy(%value) {memory_space = "pinned_host"}`,
    placed right after the op that computes the value (at the entry for an
    argument). Its device buffer is then freed after its last use in the
    forward, not held to the forward's end, so an offloaded residual never
    adds to the forward's device peak beyond its own lifetime there.
    `jx-gpu-pinned-host-buffers` lowers the copy after bufferization.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def JxGpuPinnedHostBuffersPass
    : Pass<"jx-gpu-pinned-host-buffers", "mlir::ModuleOp"> {
  let summary = "Allocate pinned_host buffers in pinned host memory and copy them with DMA";
  let description = [{
    Runs on buffers, after the deallocation pipeline. A function that
    returns a copy of such a buffer in the default memory space (what
    bufferizing its signature asks for) and frees the buffer returns the
    buffer itself. A
    `memref.alloc` in memory space `"pinned_host"` (from
    `jx-gpu-offload-residuals`) becomes
    `gpu.alloc host_shared` (the runtime's pinned host memory, which kernels
    read through unified addressing and the device's byte count leaves out);
    a `memref.copy` into or out of such a buffer becomes `gpu.memcpy` (the
    runtime makes a copy to pinned memory on its offload stream). Then the
    memory space is dropped from every type, function signatures included:
    compiled code and the runtimes see plain memrefs. A pinned buffer the
    function does not return keeps the `memref.dealloc` the deallocation
    pipeline gave it (the runtime's free knows pinned memory).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def JxGpuHostBuffersPass
    : Pass<"jx-gpu-host-buffers", "mlir::ModuleOp"> {
  let summary = "Put the buffers only host code touches on the host's stack";
  let description = [{
    Runs on buffers, after the deallocation pipeline. Every buffer is device
    memory on the GPU, so host code that stores into one, loads from it or
    loops over it becomes kernels and reads through the runtime, each read
    waiting for the device. The deallocation pipeline's alias checks are such
    code: small buffers of base addresses and ownership flags, filled by
    stores, passed to a helper function that loops over them, read back by
    loads. A statically shaped `memref.alloc` whose every use (through
    `memref.cast`) is a `memref.load`, a `memref.store`, its
    `memref.dealloc` or an argument of a call whose callee only loads and
    stores through it becomes a `memref.alloca` at the start of its
    function (the stack holds it once, however often a loop reaches it; its
    dealloc goes). `jx-gpu-kernelize-host-code` leaves host code on such
    buffers, and the functions that only receive them, on the host; the
    memory plan and the device's byte count leave them out.
  }];
}

def JxGpuInterchangeReductionsPass
    : Pass<"jx-gpu-interchange-reductions", "mlir::func::FuncOp"> {
  let summary = "Move the kept dimensions of reductions outermost";
  let description = [{
    Runs before `convert-linalg-to-parallel-loops`. A linalg op (named ops
    are generalized first) with a reduced dimension before a kept (parallel)
    one gets its loops interchanged so that the kept dimensions come first,
    each group in its order. The parallel loops then enclose the reduction,
    which `jx-gpu-block-reductions` runs as one block per kept element,
    instead of a host loop over the reduced dimension launching one kernel
    per iteration.

    ```mlir
    // linalg.reduce ins(%x : memref<256x512xf32>) ... dimensions = [0]
    // (iterators: reduction, parallel)                          becomes
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                     affine_map<(d0, d1) -> (d0)>],
                    iterator_types = ["parallel", "reduction"]} ...
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def JxGpuParallelScattersPass
    : Pass<"jx-gpu-parallel-scatters", "mlir::ModuleOp"> {
  let summary = "Run a scatter-add's loop over its indices inside one kernel";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`, before
    `jx-gpu-kernelize-host-code`. jx.scatter_add lowers to a host `scf.for`
    over its indices whose body reads an index, clamps it and adds one
    update row into the result's row in place (an `scf.parallel` over the
    row). On the GPU that loop would read each index back to the host and
    launch a kernel per index (GPT-2's embedding gradient: 4096 launches
    and 4096 synchronizations a step). Such a loop is turned inside out:
    the `scf.parallel` over the row's elements encloses the `scf.for` over
    the indices, so one kernel runs it, each thread adding its column in the
    indices' order (the CPU's order, so results are the same, and
    deterministic, unlike atomics). Legal when every store in the loop goes
    to a row view (a subview that keeps whole dimensions at offset 0 and
    drops unit ones) at exactly the parallel loop's induction variables, so
    threads own disjoint elements, and the indices and updates it loads are
    not written in the loop. A loop whose rows are single elements (no
    `scf.parallel`) runs whole in a one-thread kernel. Loops that touch the
    host's stack buffers, or store anywhere but views made in the loop (a
    reduction into one element, which jx-gpu-kernelize-host-code runs by
    blocks), are left alone.

    ```mlir
    scf.for %k = %c0 to %c8 step %c1 {          scf.parallel (%s) = (%c0) to (%c16) {
      %i = memref.load %ids[%k] ...               scf.for %k = %c0 to %c8 step %c1 {
      %row = memref.subview %out[%i, 0] [1, 16]     %i = memref.load %ids[%k] ...
      scf.parallel (%s) = (%c0) to (%c16) {   ->    %row = memref.subview %out[%i, 0] ...
        ... memref.store %v, %row[%s]               ... memref.store %v, %row[%s]
    } }                                         } }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def JxGpuBlockReductionsPass
    : Pass<"jx-gpu-block-reductions", "mlir::func::FuncOp"> {
  let summary = "Reduce each element of a reduction that keeps dimensions with one block";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`, before
    `jx-gpu-tile-parallel-loops`. An outermost `scf.parallel` (constant
    bounds from 0 by 1) whose body is exactly a reduction nest into the
    element its induction variables index (constant-bound `scf.for` loops
    whose innermost body loads the element, combines it with one value by an
    `arith` op and stores it back) becomes a `gpu.launch` with one block per
    point of the parallel loop: the block's threads (whole warps, at most
    256) fold strided shares of the reduced iterations from the combiner's
    identity, `gpu.all_reduce` combines them, and thread 0 folds the total
    into the element. Nests of fewer than `min-reduced` iterations keep one
    thread per element.

    ```mlir
    // scf.parallel (%i) = (0) to (256) { scf.for %k = 0 to 512 {
    //   %a = memref.load %out[%i] ; %x = memref.load %in[%i, %k]
    //   memref.store (%a + %x), %out[%i] } }                  becomes
    gpu.launch blocks(%b, ...) in (256, 1, 1) threads(%t, ...) in (256, 1, 1) {
      // %i = %b; threads fold %k = %t, %t + 256; all_reduce; thread 0 stores
    }
    ```
  }];
  let options = [
    Option<"minReduced", "min-reduced", "int64_t", /*default=*/"32",
           "Fewest reduced iterations per element for a block of its own">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

#endif // COTANGENT_PASSES_GPU_GPUPASSES_TD

//===- JxCollectiveOps.td - JAX's collectives over a mesh axis -*- tablegen -*-===//
//
// The communication primitives of SPMD programs, as jax.lax has them and
// shard_map writes them: every rank of a named mesh axis runs the same
// function on its own shard, and a collective combines the ranks' operands.
// Where a result's shape depends on the axis's size (all_gather,
// psum_scatter) the op carries it, as JAX's primitives do; elsewhere the
// size is the group's at run time. The interpreter runs them on a simulated
// group of ranks (runtime/interpreter/Spmd.h).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_TD
#define COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_TD

// A collective's cost is what it communicates (its additions are not counted).
class Jx_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Jx_Op<mnemonic, traits # [Pure], ["estimateFlops", "estimateCommunicatedBytes"]>;

def Jx_PsumOp : Jx_CollectiveOp<"psum", [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "sum over the ranks of a mesh axis";
  let description = [{
    Every rank gets the sum of every rank's operand (`jax.lax.psum`). Its
    transpose is itself: each rank's operand reaches every rank's result.

    ```mlir
    %1 = jx.psum %0, axis = "data" : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand, StrAttr:$axis_name);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis_name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Jx_PmeanOp : Jx_CollectiveOp<"pmean", [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "mean over the ranks of a mesh axis";
  let description = [{
    Every rank gets the mean of every rank's operand (`jax.lax.pmean`, a
    data-parallel step's gradient average).

    ```mlir
    %1 = jx.pmean %0, axis = "data" : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jx_FloatTensor:$operand, StrAttr:$axis_name);
  let results = (outs Jx_FloatTensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis_name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Jx_AllGatherOp : Jx_CollectiveOp<"all_gather"> {
  let summary = "every rank's operand, on every rank";
  let description = [{
    `jax.lax.all_gather` over an axis of `axis_size` ranks: the operands in
    rank order, stacked along a new dimension `dimension` of size
    `axis_size`, or with `tiled`, concatenated along `dimension`. Its
    transpose is psum_scatter.

    ```mlir
    %1 = jx.all_gather %0, axis = "data"(4), dimension = 0 : tensor<3xf32> -> tensor<4x3xf32>
    %2 = jx.all_gather %0, axis = "data"(4), dimension = 0 tiled : tensor<3xf32> -> tensor<12xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, StrAttr:$axis_name, Jx_I64Attr:$axis_size,
                   Jx_I64Attr:$dimension, UnitAttr:$tiled);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis_name `(` $axis_size `)` `,` `dimension` `=` "
                       "$dimension (`tiled` $tiled^)? attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Jx_PsumScatterOp : Jx_CollectiveOp<"psum_scatter"> {
  let summary = "sum over the ranks, each rank keeping its slice";
  let description = [{
    `jax.lax.psum_scatter` over an axis of `axis_size` ranks: the sum of
    every rank's operand, of which rank r keeps index r of dimension
    `dimension` (whose size is `axis_size`; the dimension goes), or with
    `tiled`, the r-th of `axis_size` equal blocks along it. The reduce-scatter
    of ZeRO's sharded optimizer; its transpose is all_gather.

    ```mlir
    %1 = jx.psum_scatter %0, axis = "data"(4), dimension = 0 : tensor<4x3xf32> -> tensor<3xf32>
    %2 = jx.psum_scatter %0, axis = "data"(4), dimension = 0 tiled : tensor<12xf32> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand, StrAttr:$axis_name, Jx_I64Attr:$axis_size,
                   Jx_I64Attr:$dimension, UnitAttr:$tiled);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis_name `(` $axis_size `)` `,` `dimension` `=` "
                       "$dimension (`tiled` $tiled^)? attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Jx_PpermuteOp : Jx_CollectiveOp<"ppermute", [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "operands sent from rank to rank";
  let description = [{
    `jax.lax.ppermute`: `perm` lists (source, destination) rank pairs, flat;
    a rank that is a destination gets its source's operand, any other gets
    zeros. No rank is a source twice or a destination twice. Its transpose
    sends back along the reversed pairs.

    ```mlir
    %1 = jx.ppermute %0, axis = "ring", perm = [0, 1, 1, 2, 2, 0] : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, StrAttr:$axis_name, DenseI64ArrayAttr:$perm);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis_name `,` `perm` `=` $perm attr-dict `:` "
                       "type($result)";
  let hasVerifier = 1;
}

def Jx_AxisIndexOp : Jx_CollectiveOp<"axis_index"> {
  let summary = "this rank's index along a mesh axis";
  let description = [{
    `jax.lax.axis_index`: 0 to the axis's size - 1, as an i32 scalar.

    ```mlir
    %0 = jx.axis_index axis = "data" : tensor<i32>
    ```
  }];
  let arguments = (ins StrAttr:$axis_name);
  let results = (outs 0DTensorOf<[I32]>:$result);
  let assemblyFormat = "`axis` `=` $axis_name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_TD

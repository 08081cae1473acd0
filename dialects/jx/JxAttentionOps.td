//===- JxAttentionOps.td - fused scaled dot-product attention -*- tablegen -*-===//
//
// `jax.nn.dot_product_attention` as one op, so that its [batch, heads, seq,
// seq] scores never need to exist: the CPU runs it as FlashAttention-2's
// tiles (runtime/cpu/Attention.h), every other target expands it into
// dot_generals and a softmax (--jx-expand-composites). The forward also gives
// each query row's log-sum-exp, the one residual the backward needs besides
// q, k, v and the output; the backward is its own op, recomputing the
// probabilities tile by tile from it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXATTENTIONOPS_TD
#define COTANGENT_DIALECTS_JX_JXATTENTIONOPS_TD

def Jx_DotProductAttentionOp : Jx_Op<"dot_product_attention",
    [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Jx_CompositeOpInterface>],
    ["estimateFlops"]> {
  let summary = "scaled dot-product attention, fused (jax.nn.dot_product_attention)";
  let description = [{
    JAX's layout: `query` is [B, T, N, H] (batch, query positions, heads,
    head size), `key` and `value` [B, S, N, H]. Per batch and head,
    `output = softmax(scale * query key^T) value`; with `is_causal`, query `i`
    sees keys `j <= i` (JAX's `tril(ones(T, S))`). `logsumexp` is [B, N, T],
    `log sum_j exp(scale * q_i k_j)` over the keys row `i` sees, in f32 (f64
    for f64 operands): the backward's residual.

    ```mlir
    %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 0.25 causal
        : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>
    ```
  }];
  let arguments = (ins Jx_FloatTensor:$query, Jx_FloatTensor:$key, Jx_FloatTensor:$value,
                   F64Attr:$scale, UnitAttr:$is_causal);
  let results = (outs Jx_FloatTensor:$output, Jx_FloatTensor:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` `scale` `=` $scale (`causal` $is_causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value)
  }];
}

def Jx_DotProductAttentionGradOp : Jx_Op<"dot_product_attention_grad",
    [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Jx_CompositeOpInterface>],
    ["estimateFlops"]> {
  let summary = "the cotangents of dot_product_attention's query, key and value";
  let description = [{
    FlashAttention-2's backward: from the forward's operands, its `output` and
    `logsumexp`, and the output's cotangent `doutput`, the cotangents of
    query, key and value (result types those of the three). The
    probabilities are recomputed from `logsumexp`, never stored.

    ```mlir
    %dq, %dk, %dv = jx.dot_product_attention_grad %q, %k, %v, %o, %lse, %do, scale = 0.25 causal
        : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>,
          tensor<2x8x4x16xf32>, tensor<2x4x8xf32>, tensor<2x8x4x16xf32>
    ```
  }];
  let arguments = (ins Jx_FloatTensor:$query, Jx_FloatTensor:$key, Jx_FloatTensor:$value,
                   Jx_FloatTensor:$output, Jx_FloatTensor:$logsumexp,
                   Jx_FloatTensor:$doutput, F64Attr:$scale, UnitAttr:$is_causal);
  let results = (outs Jx_FloatTensor:$dquery, Jx_FloatTensor:$dkey, Jx_FloatTensor:$dvalue);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $logsumexp `,` $doutput `,` `scale` `=` $scale
    (`causal` $is_causal^)? attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($logsumexp) `,` type($doutput)
  }];
}

#endif // COTANGENT_DIALECTS_JX_JXATTENTIONOPS_TD

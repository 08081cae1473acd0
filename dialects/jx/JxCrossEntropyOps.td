//===- JxCrossEntropyOps.td - the fused softmax cross-entropy -*- tablegen -*-===//
//
// optax.softmax_cross_entropy_with_integer_labels as one op, llm.c's fused
// classifier: the forward gives each row's loss and its logsumexp (the
// backward's residual, beside the logits), the backward gives d(logits) in
// one elementwise pass, (softmax - one-hot) * dloss, never materializing
// the probabilities, the one-hot or a scatter of the label's gradient.
// Both are expanded into jx ops (--jx-expand-composites) that the lowering
// fuses into one reduction and one elementwise loop.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXCROSSENTROPYOPS_TD
#define COTANGENT_DIALECTS_JX_JXCROSSENTROPYOPS_TD

def Jx_SoftmaxCrossEntropyOp : Jx_Op<"softmax_cross_entropy",
    [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Jx_CompositeOpInterface>],
    ["estimateFlops"]> {
  let summary = "softmax cross-entropy with integer labels, fused";
  let description = [{
    For `logits` [..., C] and integer `labels` [...]: `loss = logsumexp(logits)
    - logits[label]` per row (optax's
    `softmax_cross_entropy_with_integer_labels`), and `logsumexp` itself, both
    [...] in the logits' type. A negative label counts from the end and
    labels are then clamped to [0, C) (jnp.take_along_axis as jx.take
    gathers).

    ```mlir
    %loss, %lse = jx.softmax_cross_entropy %logits, %labels : tensor<8x64x512xf32>, tensor<8x64xi32>
    ```
  }];
  let arguments = (ins Jx_FloatTensor:$logits, Jx_IntTensor:$labels);
  let results = (outs Jx_FloatTensor:$loss, Jx_FloatTensor:$logsumexp);
  let assemblyFormat = "$logits `,` $labels attr-dict `:` type($logits) `,` type($labels)";
}

def Jx_SoftmaxCrossEntropyGradOp : Jx_Op<"softmax_cross_entropy_grad",
    [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Jx_CompositeOpInterface>],
    ["estimateFlops"]> {
  let summary = "d(logits) of the fused softmax cross-entropy";
  let description = [{
    `(exp(logits - logsumexp) - onehot(label)) * dloss` per row, broadcast
    over the classes: the logits' cotangent from the forward's logits,
    logsumexp and labels and the loss's cotangent `dloss`. The result has
    the logits' type and may be written over them.

    ```mlir
    %dlogits = jx.softmax_cross_entropy_grad %logits, %lse, %labels, %dloss
        : tensor<8x64x512xf32>, tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Jx_FloatTensor:$logits, Jx_FloatTensor:$logsumexp, Jx_IntTensor:$labels,
                   Jx_FloatTensor:$dloss);
  let results = (outs Jx_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $logits `,` $logsumexp `,` $labels `,` $dloss attr-dict `:` type($logits) `,`
    type($logsumexp) `,` type($labels) `,` type($dloss)
  }];
}

#endif // COTANGENT_DIALECTS_JX_JXCROSSENTROPYOPS_TD

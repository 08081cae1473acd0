"""The benchmark models in JAX, term for term as Cotangent traces them.

Both sides use their library's functions (jax.nn.softmax and jax.nn.gelu,
cotangent::nn::softmax and nn::gelu; layer norm as Flax computes it).
The MLP of bench/MlpModel.cpp (and bench/gpu/gen-mlp.py): layers
h = tanh(h @ W) with each dot named "dot", loss = sum(h). The pre-LN
transformer of bench/TransformerModel.cpp: x is f32[seq, width] or
f32[batch, seq, width], ten parameters per block. Policies by Cotangent's
bench names: "none" (no checkpoint), "nothing_saveable" and "dots_saveable"
(a jax.checkpoint per layer or block under that policy), "offload" (the
whole MLP under save_and_offload_only_these_names([], ["dot"], device ->
pinned_host)) and "dots_on_device" (the whole MLP under
save_only_these_names("dot"): the offload's residuals kept on the device).
GPT-2 of models/gpt2 (cotangent-bench --emit-mlir DIR --gpt2 PRESET): its
arguments flat in the traced order (wte, wpe, twelve leaves per block with
each dict's keys sorted, ln_f's bias and weight, then ids and targets), the
loss optax's integer-label cross-entropy, gathers clamped as XLA's.
Shared by bench/jax_cpu.py and the GPU check's jax_step.py.
"""
import math

import jax
import jax.ad_checkpoint
import jax.numpy as jnp

cp = jax.checkpoint_policies


def offload_policy():
    return cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["dot"],
        offload_src="device", offload_dst="pinned_host")


def whole_model_policy(name):
    """The policies of one checkpoint around the whole MLP, by bench name."""
    if name == "offload":
        return offload_policy()
    if name == "dots_on_device":
        return cp.save_only_these_names("dot")
    return None


def policy_of(name):
    return {"none": None, "nothing_saveable": cp.nothing_saveable,
            "dots_saveable": cp.dots_saveable}[name]


def mlp_loss(policy):
    def layer(h, w):
        return jnp.tanh(jax.ad_checkpoint.checkpoint_name(h @ w, "dot"))

    def loss(x, *ws):
        whole = whole_model_policy(policy)
        if whole is not None:
            def body(x, *ws):
                for w in ws:
                    x = layer(x, w)
                return x
            return jnp.sum(jax.checkpoint(body, policy=whole)(x, *ws))
        step = layer if policy_of(policy) is None else jax.checkpoint(layer, policy=policy_of(policy))
        h = x
        for w in ws:
            h = step(h, w)
        return jnp.sum(h)
    return loss


def transformer_loss(policy, heads):
    def layer_norm(x, scale, shift):  # cotangent::nn::layer_norm
        centred = x - jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.mean(centred * centred, axis=-1, keepdims=True)
        return centred * jax.lax.rsqrt(variance + 1e-6) * scale + shift

    def attention(x, wq, wk, wv, wo):
        lead, (seq, width) = x.shape[:-2], x.shape[-2:]
        n = len(lead)
        dh = width // heads
        tail = lambda a, b, c: tuple(range(n)) + (n + a, n + b, n + c)
        split = lambda t: jnp.transpose(jnp.reshape(t, lead + (seq, heads, dh)), tail(1, 0, 2))
        q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
        scores = jnp.matmul(q, jnp.transpose(k, tail(0, 2, 1))) / math.sqrt(dh)
        positions = jnp.arange(seq)
        causal = positions[:, None] >= positions[None, :]
        probs = jax.nn.softmax(jnp.where(causal, scores, -1e9))
        out = jnp.transpose(jnp.matmul(probs, v), tail(1, 0, 2))
        return jnp.reshape(out, lead + (seq, width)) @ wo

    def block(h, *p):
        h = h + attention(layer_norm(h, p[0], p[1]), p[2], p[3], p[4], p[5])
        return h + jax.nn.gelu(layer_norm(h, p[6], p[7]) @ p[8], approximate=True) @ p[9]

    def loss(x, *params):
        step = block if policy_of(policy) is None else jax.checkpoint(block, policy=policy_of(policy))
        h = x
        for b in range(len(params) // 10):
            h = step(h, *params[10 * b:10 * b + 10])
        return jnp.sum(h)
    return loss


def transformer_shapes(blocks, width):
    w = width
    per_block = [(w,), (w,), (w, w), (w, w), (w, w), (w, w), (w,), (w,), (w, 4 * w), (4 * w, w)]
    return per_block * blocks


GPT2_LEAVES_PER_BLOCK = 12


def gpt2_loss(policy, head_dim=64, attention="xla", compute_dtype=None):
    """GPT-2's mean next-token loss over (*params, ids, targets), each block
    under a jax.checkpoint of the policy (none: no checkpoint); the heads
    are the width over head_dim (64 in every GPT-2 preset). attention
    "cudnn": jax.nn.dot_product_attention's fused kernel (a GPU's) instead
    of the scores materialized; compute_dtype (e.g. jnp.bfloat16): the
    parameters cast to it for the step (mixed precision: f32 master weights,
    the loss's logsumexp in f32)."""
    def layer_norm(x, bias, weight):  # eps 1e-5, GPT-2's
        centred = x - jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.mean(centred * centred, axis=-1, keepdims=True)
        return centred * jax.lax.rsqrt(variance + 1e-5) * weight + bias

    def block(x, ln1_b, ln1_w, attn_b, attn_w, proj_b, proj_w, ln2_b, ln2_w, fc_b, fc_w,
              mproj_b, mproj_w):
        b, t, c = x.shape
        heads = c // head_dim
        qkv = layer_norm(x, ln1_b, ln1_w) @ attn_w + attn_b
        if attention == "cudnn":
            q, k, v = (qkv[..., j * c:(j + 1) * c].reshape(b, t, heads, head_dim) for j in range(3))
            y = jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="cudnn")
            y = y.reshape(b, t, c)
        else:
            q, k, v = (jnp.transpose(qkv[..., j * c:(j + 1) * c].reshape(b, t, heads, head_dim),
                                     (0, 2, 1, 3)) for j in range(3))
            scores = jnp.matmul(q, jnp.transpose(k, (0, 1, 3, 2))) / math.sqrt(head_dim)
            positions = jnp.arange(t)
            causal = positions[:, None] >= positions[None, :]
            probs = jax.nn.softmax(jnp.where(causal, scores, jnp.finfo(jnp.float32).min), axis=-1)
            y = jnp.transpose(jnp.matmul(probs, v), (0, 2, 1, 3)).reshape(b, t, c)
        x = x + y @ proj_w + proj_b
        hidden = jax.nn.gelu(layer_norm(x, ln2_b, ln2_w) @ fc_w + fc_b, approximate=True)
        return x + hidden @ mproj_w + mproj_b

    def loss(*args):
        ids, targets = args[-2], args[-1]
        if compute_dtype is not None:
            args = [a.astype(compute_dtype) for a in args[:-2]] + [ids, targets]
        wte, wpe = args[0], args[1]
        blocks = (len(args) - 6) // GPT2_LEAVES_PER_BLOCK
        step = block if policy_of(policy) is None else jax.checkpoint(block, policy=policy_of(policy))
        x = jnp.take(wte, ids, axis=0, mode="clip") + wpe[:ids.shape[1]]
        for i in range(blocks):
            x = step(x, *args[2 + GPT2_LEAVES_PER_BLOCK * i:2 + GPT2_LEAVES_PER_BLOCK * (i + 1)])
        x = layer_norm(x, args[-4], args[-3])
        logits = jnp.einsum("btc,vc->btv", x, wte)
        if compute_dtype is not None:
            logits = logits.astype(jnp.float32)
        label = jnp.take_along_axis(logits, targets[..., None], axis=-1, mode="clip")[..., 0]
        return jnp.mean(jax.nn.logsumexp(logits, axis=-1) - label)
    return loss


def gpt2_shapes(layers, width, vocab, context):
    """gpt2_loss's parameter shapes, in its argument order."""
    c = width
    block = [(c,), (c,), (3 * c,), (c, 3 * c), (c,), (c, c), (c,), (c,), (4 * c,), (c, 4 * c),
             (c,), (4 * c, c)]
    return [(vocab, c), (context, c)] + block * layers + [(c,), (c,)]

"""Real models for the oracle suite (oracle.py), in JAX and in Flax, each under several policies.

- mlp: three dense layers (ReLU written as jnp.maximum), each checkpointed, squared error;
- layer_norm and attention: the programs of gen_reference_residuals.py (examples/*.mlir);
- transformer_block: pre-norm block, two-head self-attention with named q, k, v, a tanh-GELU
  MLP, residual connections; the block checkpointed;
- flax_checkpoint_mlp: a Flax MLP of three `nn.checkpoint(Block, policy=...)` layers;
- flax_remat_scan: four Flax blocks as `nn.remat_scan(Block, lengths=(2, 2), policy=...)`;
- flax_transformer_block: a Flax block (nn.LayerNorm, nn.MultiHeadDotProductAttention,
  nn.Dense, nn.gelu) under `nn.checkpoint(Block, policy=...)`.

`cases()` returns (name, function, flat arguments, variants, argument names). The functions take
flat arrays (the Flax parameters are unflattened inside), so that every variant of a model has the
same arguments; the names are the parameters' pytree paths (params.Dense_0.kernel).
"""
import os
import sys

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.ad_checkpoint import checkpoint_name

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reference_residuals as ref  # noqa: E402
from cotangent_jax import arg_names  # noqa: E402

P = jax.checkpoint_policies


def policies(names):
    quoted = tuple(names)
    return [
        ("nothing_saveable", P.nothing_saveable),
        ("dots_saveable", P.dots_saveable),
        ("dots_with_no_batch_dims_saveable", P.dots_with_no_batch_dims_saveable),
        ("save_only_these_names", P.save_only_these_names(*quoted)),
        ("save_from_both_policies", P.save_from_both_policies(P.dots_with_no_batch_dims_saveable,
                                                              P.save_only_these_names(*quoted))),
        ("offload_dot_with_no_batch_dims", P.offload_dot_with_no_batch_dims("device", "pinned_host")),
        ("everything_saveable", P.everything_saveable),
    ]


# --- pure JAX ----------------------------------------------------------------------------------

def mlp_loss(policy, checkpointed):
    def layer(w, b, h, name):
        return checkpoint_name(jnp.maximum(jnp.dot(h, w) + b, 0.0), name)

    def loss(w0, b0, w1, b1, w2, b2, x, y):
        h = x
        for i, (w, b) in enumerate(((w0, b0), (w1, b1))):
            f = jax.checkpoint(layer, policy=policy, static_argnums=(3,)) if checkpointed else layer
            h = f(w, b, h, f"h{i}")
        out = jnp.dot(h, w2) + b2
        return jnp.mean((out - y) ** 2)
    return loss


def transformer_block(x, ln1, wq, wk, wv, wo, ln2, w1, b1, w2, b2):
    seq, model = x.shape
    heads, head = 2, model // 2

    def norm(v, g):
        m = jnp.mean(v, axis=-1, keepdims=True)
        c = v - m
        return c * lax.rsqrt(jnp.mean(c * c, axis=-1, keepdims=True) + 1e-5) * g

    h = norm(x, ln1)
    q = checkpoint_name(h @ wq, "q").reshape(seq, heads, head)
    k = checkpoint_name(h @ wk, "k").reshape(seq, heads, head)
    v = checkpoint_name(h @ wv, "v").reshape(seq, heads, head)
    s = jnp.einsum("ihd,jhd->hij", q, k) / np.float32(np.sqrt(head))
    p = jax.nn.softmax(s, axis=-1)
    o = jnp.einsum("hij,jhd->ihd", p, v).reshape(seq, model)
    x = x + o @ wo
    h = norm(x, ln2)
    h = jax.nn.gelu(h @ w1 + b1, approximate=True)
    x = x + h @ w2 + b2
    return jnp.mean(x * x)


# --- Flax --------------------------------------------------------------------------------------

class MLPBlock(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.features)(x)
        h = checkpoint_name(jax.nn.silu(h), "hidden")
        return nn.Dense(self.features)(h) + x


class CheckpointMLP(nn.Module):
    block: type

    @nn.compact
    def __call__(self, x):
        for _ in range(3):
            x = self.block(8)(x)
        return x


class ScanBlock(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = checkpoint_name(jnp.sin(nn.Dense(8)(x)), "hidden")
        return x + nn.Dense(8, use_bias=False)(h)


class ScanStack(nn.Module):
    policy: object = None

    @nn.compact
    def __call__(self, x):
        return nn.remat_scan(ScanBlock, lengths=(2, 2), policy=self.policy)()(x)


class TransformerBlock(nn.Module):
    heads: int = 2

    @nn.compact
    def __call__(self, x):
        h = nn.LayerNorm()(x)
        h = nn.MultiHeadDotProductAttention(num_heads=self.heads, deterministic=True)(h, h)
        x = x + h
        h = nn.LayerNorm()(x)
        h = checkpoint_name(nn.gelu(nn.Dense(4 * x.shape[-1])(h)), "mlp_hidden")
        return x + nn.Dense(x.shape[-1])(h)


def flax_case(name, make, x, variants_of, seed):
    """A Flax model as flat arguments (parameter leaves..., x); each variant rebuilds the module.

    The variants' parameter trees may name the checkpointed modules differently; their leaves
    come in the same order with the same shapes, and every variant gets the first one's values.
    """
    key = jax.random.PRNGKey(seed)
    params = make(variants_of[0][1]).init(key, x)["params"]
    leaves, _ = jax.tree_util.tree_flatten(params)
    names = arg_names(lambda params, x: None, (params, x))

    def loss_of(mod):
        tree = jax.tree_util.tree_structure(jax.eval_shape(mod.init, key, x)["params"])

        def loss(*flat):
            p = jax.tree_util.tree_unflatten(tree, flat[:-1])
            return jnp.mean(mod.apply({"params": p}, flat[-1]) ** 2)
        return loss
    variants = [(label, loss_of(make(pol))) for label, pol in variants_of]
    args = [np.asarray(a, np.float32) for a in leaves] + [np.asarray(x, np.float32)]
    return (name, variants[0][1], args, variants, names)


def cases(seed=3):
    rng = np.random.default_rng(seed)

    def arr(*shape, scale=0.5):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    out = []

    # mlp: 6 -> 8 -> 8 -> 4
    args = [arr(6, 8), arr(8), arr(8, 8), arr(8), arr(8, 4), arr(4), arr(5, 6, scale=1.0), arr(5, 4, scale=1.0)]
    names = ["w0", "b0", "w1", "b1", "w2", "b2", "x", "y"]
    variants = [("no_remat", mlp_loss(None, False))] + [(l, mlp_loss(p, True)) for l, p in policies(("h0",))]
    out.append(("mlp", variants[0][1], args, variants, names))

    for prog in ("layer_norm", "attention"):
        spec = ref.PROGRAMS[prog]
        fn = spec["fn"]
        args = [arr(*s, scale=1.0) for s in spec["args"]]
        variants = [("no_remat", fn)] + [(l, jax.checkpoint(fn, policy=p)) for l, p in policies(spec["names"])]
        out.append((prog, fn, args, variants, list(fn.__code__.co_varnames[:fn.__code__.co_argcount])))

    # transformer block: 4 tokens of width 8, two heads, MLP width 16
    args = [arr(4, 8, scale=1.0), 1.0 + arr(8, scale=0.1), arr(8, 8), arr(8, 8), arr(8, 8), arr(8, 8),
            1.0 + arr(8, scale=0.1), arr(8, 16), arr(16, scale=0.1), arr(16, 8), arr(8, scale=0.1)]
    names = ["x", "ln1", "wq", "wk", "wv", "wo", "ln2", "w1", "b1", "w2", "b2"]
    variants = [("no_remat", transformer_block)] + [(l, jax.checkpoint(transformer_block, policy=p))
                                                    for l, p in policies(("q", "k", "v"))]
    out.append(("transformer_block", transformer_block, args, variants, names))

    flax_policies = [("no_remat", None)] + policies(("hidden",))
    out.append(flax_case(
        "flax_checkpoint_mlp",
        lambda pol: CheckpointMLP(MLPBlock if pol is None else nn.checkpoint(MLPBlock, policy=pol)),
        arr(5, 8, scale=1.0), flax_policies, 0))
    out.append(flax_case(
        "flax_remat_scan",
        lambda pol: ScanStack(policy=pol), arr(3, 8, scale=1.0), policies(("hidden",)), 1))
    out.append(flax_transformer_case(arr(2, 4, 8, scale=1.0)))
    return out


def flax_transformer_case(x=None, only=None):
    """The Flax transformer block's case (the policies in `only`, if given)."""
    if x is None:
        x = (np.random.default_rng(5).standard_normal((2, 4, 8))).astype(np.float32)
    variants = [("no_remat", None)] + policies(("mlp_hidden",))
    if only:
        variants = [v for v in variants if v[0] in only]
    return flax_case(
        "flax_transformer_block",
        lambda pol: (TransformerBlock() if pol is None else nn.checkpoint(TransformerBlock, policy=pol)()),
        x, variants, 2)

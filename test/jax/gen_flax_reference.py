#!/usr/bin/env python3
"""Writes what Flax initializes and computes for the layers tracer/Layers.h mirrors.

Flax is Cotangent's oracle, not its dependency: run this in the venv that
scripts/jax-venv.sh makes; its output, test/jax/reference/flax.json, is
committed, and the default suite's FlaxParityTest (test/unit/api) compares
Cotangent's nn:: layers with it without Python.

Cases:
  mlp       the seed exercise (nn.checkpoint around Dense -> relu -> Dense):
            nn.checkpoint(MLP)(features).init(PRNGKey(seed), x), then apply
  dense     nn.Dense(features, use_bias) on a batch
  layernorm nn.LayerNorm() with non-trivial scale and bias
  embed     nn.Embed(num_embeddings, features) on integer ids
  attention nn.MultiHeadDotProductAttention(num_heads) on [batch, seq, width],
            with and without nn.make_causal_mask
  dropout   nn.Dropout(rate, broadcast_dims), not deterministic, rngs={'dropout': key}
  remat_scan  nn.remat_scan(Block, lengths) around tanh(Dense(x)), 1 to 3 nesting levels
  sequential  nn.Sequential([Dense, relu, LayerNorm, Dense]) inside a @compact module ("inline"
            names: Dense_0, ...) and at top level ("attribute" names: layers_0, ...)

Every float32 array is stored as its bit patterns ("bits") and decimals
("values"), with its shape.

  gen_flax_reference.py [--out FILE]     write the reference (default: beside this script)
  gen_flax_reference.py --check FILE     regenerate and compare with FILE; exit 1 on a difference
"""
import sys

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

import reference_file


class MLP(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.features)(x)
        x = nn.relu(x)
        x = nn.Dense(self.features)(x)
        return x


class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        return jnp.tanh(nn.Dense(self.features)(x))


class RematScanModel(nn.Module):
    lengths: tuple

    @nn.compact
    def __call__(self, x):
        return nn.remat_scan(Block, lengths=self.lengths)(x.shape[-1])(x)


def sequential_layers():
    return [nn.Dense(5), nn.relu, nn.LayerNorm(), nn.Dense(3)]


class InlineSequential(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Sequential(sequential_layers())(x)


def array(x):
    a = np.asarray(x, dtype=np.float32)
    return {"shape": list(a.shape), "bits": a.reshape(-1).view(np.uint32).astype(np.int64).tolist(),
            "values": a.reshape(-1).astype(float).tolist()}


def tree(params):
    """{'Dense_0': {'kernel': array, ...}, ...} with every leaf as array()."""
    return jax.tree_util.tree_map(array, flax.core.unfreeze(params))


def inputs(seed, shape):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape).astype(np.float32)


def cases():
    out = []
    for seed in range(8):
        for d, f in [(6, 4), (3, 8), (16, 5)]:
            x = inputs(100 + seed, (d,))
            model = nn.checkpoint(MLP)(features=f)
            params = model.init(jax.random.PRNGKey(seed), x)
            out.append({"kind": "mlp", "seed": seed, "features": f, "x": array(x),
                        "params": tree(params["params"]), "output": array(model.apply(params, x))})
    for seed, (batch, d, f, bias) in enumerate([(2, 5, 3, True), (4, 8, 8, False), (1, 3, 16, True)]):
        x = inputs(200 + seed, (batch, d))
        layer = nn.Dense(f, use_bias=bias)
        params = layer.init(jax.random.PRNGKey(seed + 10), x)
        out.append({"kind": "dense", "seed": seed + 10, "features": f, "use_bias": bias,
                    "x": array(x), "params": tree(params["params"]),
                    "output": array(layer.apply(params, x))})
    for seed, (batch, d) in enumerate([(3, 7), (2, 16)]):
        x = inputs(300 + seed, (batch, d)) * 3.0 + 0.5
        layer = nn.LayerNorm()
        params = {"params": {"scale": jnp.asarray(inputs(310 + seed, (d,))),
                             "bias": jnp.asarray(inputs(320 + seed, (d,)))}}
        out.append({"kind": "layernorm", "x": array(x), "params": tree(params["params"]),
                    "output": array(layer.apply(params, x))})
    for seed, (n, f, ids) in enumerate([(10, 4, [[1, 3, 9], [0, 0, 2]]), (32, 8, [5, 31, 7, 7])]):
        layer = nn.Embed(num_embeddings=n, features=f)
        ids = jnp.asarray(ids, dtype=jnp.int32)
        params = layer.init(jax.random.PRNGKey(seed + 20), ids)
        out.append({"kind": "embed", "seed": seed + 20, "num_embeddings": n, "features": f,
                    "ids": np.asarray(ids).reshape(-1).tolist(), "ids_shape": list(ids.shape),
                    "params": tree(params["params"]), "output": array(layer.apply(params, ids))})
    for seed, (batch, seq, width, heads, causal) in enumerate([(2, 5, 8, 2, True), (1, 4, 12, 3, False)]):
        x = inputs(400 + seed, (batch, seq, width))
        layer = nn.MultiHeadDotProductAttention(num_heads=heads)
        mask = nn.make_causal_mask(jnp.zeros((batch, seq))) if causal else None
        params = layer.init(jax.random.PRNGKey(seed + 30), x, mask=mask)
        out.append({"kind": "attention", "seed": seed + 30, "num_heads": heads, "causal": causal,
                    "x": array(x), "params": tree(params["params"]),
                    "output": array(layer.apply(params, x, mask=mask))})
    for seed, (shape, rate, broadcast) in enumerate([((4, 6), 0.5, ()), ((2, 3, 5), 0.1, (1,)),
                                                     ((8,), 0.9, ())]):
        x = inputs(500 + seed, shape)
        layer = nn.Dropout(rate=rate, broadcast_dims=broadcast)
        y = layer.apply({}, x, deterministic=False, rngs={"dropout": jax.random.PRNGKey(seed + 40)})
        out.append({"kind": "dropout", "seed": seed + 40, "rate": rate,
                    "broadcast_dims": list(broadcast), "x": array(x), "params": {},
                    "output": array(y)})
    for seed, lengths in enumerate([(3,), (2, 3), (2, 2, 2)] * 2):
        x = inputs(600 + seed, (2, 4))
        model = RematScanModel(lengths=lengths)
        params = model.init(jax.random.PRNGKey(seed + 50), x)
        out.append({"kind": "remat_scan", "seed": seed + 50, "lengths": list(lengths), "x": array(x),
                    "params": tree(params["params"]), "output": array(model.apply(params, x))})
    for seed, naming in enumerate(["inline", "attribute"] * 2):
        x = inputs(700 + seed, (3, 6))
        model = InlineSequential() if naming == "inline" else nn.Sequential(sequential_layers())
        params = model.init(jax.random.PRNGKey(seed + 60), x)
        out.append({"kind": "sequential", "seed": seed + 60, "naming": naming, "x": array(x),
                    "params": tree(params["params"]), "output": array(model.apply(params, x))})
    return out


def document():
    return {"generator": "test/jax/gen_flax_reference.py", "jax": jax.__version__,
            "flax": flax.__version__, "cases": cases()}


if __name__ == "__main__":
    sys.exit(reference_file.main(document, "flax.json", f"Flax {flax.__version__}",
                                 __doc__.splitlines()[0]))

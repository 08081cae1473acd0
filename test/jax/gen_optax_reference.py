#!/usr/bin/env python3
"""Writes what optax computes for Cotangent's optimizers (tracer/optim/).

JAX is Cotangent's oracle, not its dependency: run this in the venv that
scripts/jax-venv.sh makes; its output, test/jax/reference/optax.json, is
committed, and the default suite's OptimTest (test/unit/optim) checks that
optax's values lie within the bounds the interpreter derives for the same
steps traced with tracer/optim, without Python.

Each optimizer case: parameters {"b": f32[3], "w": f32[2,3]}, four steps of
given gradients, the parameters after each step and the final state, its
leaves named as tracer/optim names them ("1/0/mu['w']": chain member 1,
its member 0, field mu, parameter ['w']). Each schedule case: its values at
a list of counts. Floats are stored as float32 bit patterns. Each
trajectory: 30 steps of a small training problem (a tanh MLP: every step's
parameters and state; the transformer block of examples/, in Flax: every
loss and the final parameters).

  gen_optax_reference.py [--out FILE]     write the reference
  gen_optax_reference.py --check FILE     regenerate and compare with FILE
"""
import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

import reference_file

STEPS = 4


def bits(x):
    a = np.asarray(x, dtype=np.float32)
    return {"shape": list(a.shape), "bits": a.reshape(-1).view(np.uint32).astype(np.int64).tolist()}


def leaf(x):
    a = np.asarray(x)
    if a.dtype == np.int32:
        return {"shape": list(a.shape), "ints": a.reshape(-1).astype(np.int64).tolist()}
    return bits(a)


def name_of(path):
    out = ""
    for k in path:
        if isinstance(k, jax.tree_util.SequenceKey):
            out += f"{k.idx}/"
        elif isinstance(k, jax.tree_util.GetAttrKey):
            out += k.name
        elif isinstance(k, jax.tree_util.DictKey):
            out += f"['{k.key}']"
        else:
            raise ValueError(f"unexpected key {k!r}")
    return out


def tree_doc(tree):
    leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
    return {name_of(p): leaf(v) for p, v in leaves}


def warmup_cosine():
    return optax.warmup_cosine_decay_schedule(0.0, 0.1, 2, 6, end_value=0.01)


OPTIMIZERS = {
    "sgd": lambda: optax.sgd(0.1),
    "sgd_momentum": lambda: optax.sgd(0.1, momentum=0.9),
    "sgd_nesterov": lambda: optax.sgd(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: optax.adam(0.01),
    "adamw_masked": lambda: optax.adamw(0.01, b1=0.8, b2=0.99, eps=1e-6, weight_decay=0.1,
                                        mask=lambda p: {"b": False, "w": True}),
    "adamw_warmup_cosine": lambda: optax.adamw(warmup_cosine(), weight_decay=0.05),
    "clip_then_adamw": lambda: optax.chain(optax.clip_by_global_norm(1.0),
                                           optax.adamw(0.01, weight_decay=0.1)),
}

SCHEDULES = {
    "constant_schedule": (lambda: optax.constant_schedule(0.25), [0, 1, 100]),
    "linear_schedule": (lambda: optax.linear_schedule(1.0, 0.1, 10, transition_begin=3),
                        [0, 3, 4, 8, 13, 14, 50]),
    "cosine_decay_schedule": (lambda: optax.cosine_decay_schedule(0.5, 20, alpha=0.1, exponent=2.0),
                              [0, 1, 7, 10, 19, 20, 25]),
    "warmup_cosine_decay_schedule": (lambda: optax.warmup_cosine_decay_schedule(
        0.0, 1e-3, 10, 100, end_value=1e-5), [0, 1, 5, 9, 10, 11, 50, 99, 100, 200]),
}


def optimizer_case(name, make):
    rng = np.random.default_rng(len(name) * 7919)
    params = {"b": rng.normal(size=3).astype(np.float32),
              "w": rng.normal(size=(2, 3)).astype(np.float32)}
    # Gradients of growing size: the clipping case clips the later ones.
    grads = [{k: (0.3 * (s + 1) * rng.normal(size=v.shape)).astype(np.float32)
              for k, v in params.items()} for s in range(STEPS)]
    tx = make()
    state = tx.init(params)
    p = params
    after = []
    for g in grads:
        updates, state = tx.update(g, state, p)
        p = optax.apply_updates(p, updates)
        after.append(tree_doc(p))
    return {"optimizer": name, "params": tree_doc(params), "grads": [tree_doc(g) for g in grads],
            "after": after, "state": tree_doc(state)}


def schedule_case(name, make, counts):
    fn = make()
    values = [fn(jnp.asarray(c, jnp.int32)) for c in counts]
    return {"schedule": name, "counts": counts, "values": bits(np.stack(values))}


def loss_cases():
    rng = np.random.default_rng(46)
    logits = (3 * rng.normal(size=(4, 7))).astype(np.float32)
    labels = np.array([0, 6, 3, 3], dtype=np.int32)
    dist = rng.dirichlet(np.ones(7), size=4).astype(np.float32)
    targets = rng.normal(size=(4, 7)).astype(np.float32)
    return [
        {"loss": "softmax_cross_entropy_with_integer_labels", "logits": bits(logits),
         "labels": leaf(labels),
         "value": bits(optax.softmax_cross_entropy_with_integer_labels(logits, labels))},
        {"loss": "softmax_cross_entropy", "logits": bits(logits), "labels": bits(dist),
         "value": bits(optax.softmax_cross_entropy(logits, dist))},
        {"loss": "l2_loss", "logits": bits(logits), "labels": bits(targets),
         "value": bits(optax.l2_loss(logits, targets))},
    ]


TRAJECTORY_STEPS = 30


def mlp_loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    d = jnp.tanh(h @ p["w2"] + p["b2"]) - y
    return jnp.mean(d * d)


TRAJECTORIES = {
    # optax's recipe for a transformer: clipping, AdamW without decay on
    # biases, a warmup-cosine learning rate.
    "mlp_adamw": lambda: optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 0.05, 5, 30), weight_decay=0.01,
                    mask=lambda p: {k: k.startswith("w") for k in p})),
    "mlp_sgd_nesterov": lambda: optax.sgd(0.3, momentum=0.9, nesterov=True),
}


def train(loss_fn, tx, params, x, y, each_step=lambda p, state: None):
    """TRAJECTORY_STEPS steps of tx on loss_fn from params: the losses and the last parameters;
    each_step sees the parameters and state after every step."""
    state = tx.init(params)
    p = params
    losses = []
    for _ in range(TRAJECTORY_STEPS):
        loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
        updates, state = tx.update(grads, state, p)
        p = optax.apply_updates(p, updates)
        losses.append(loss)
        each_step(p, state)
    return bits(np.asarray(losses, np.float32)), p


def trajectory_case(name, make):
    rng = np.random.default_rng(len(name) * 31)
    params = {"b1": np.zeros(16, np.float32), "b2": np.zeros(4, np.float32),
              "w1": (rng.normal(size=(8, 16)) / np.sqrt(8)).astype(np.float32),
              "w2": (rng.normal(size=(16, 4)) / 4).astype(np.float32)}
    x = rng.normal(size=(32, 8)).astype(np.float32)
    y = np.tanh(rng.normal(size=(32, 4))).astype(np.float32)
    tx = make()
    steps = [{"params": tree_doc(params), "state": tree_doc(tx.init(params))}]
    losses, _ = train(mlp_loss, tx, params, x, y, lambda p, state: steps.append(
        {"params": tree_doc(p), "state": tree_doc(state)}))
    return {"trajectory": name, "x": bits(x), "y": bits(y), "losses": losses, "steps": steps}


# The pre-LN transformer block of examples/transformer_training.cpp, in Flax:
# the same modules, names and sizes (batch 2, seq 8, width 16, 2 heads, MLP 32).
BLOCK_SHAPE = (2, 8, 16)


class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        mask = nn.make_causal_mask(jnp.ones(x.shape[:-1]))
        h = nn.LayerNorm()(x)
        x = x + nn.MultiHeadDotProductAttention(num_heads=2, deterministic=True)(h, h, mask=mask)
        h = nn.gelu(nn.Dense(32)(nn.LayerNorm()(x)))
        return x + nn.Dense(x.shape[-1])(h)


def block_loss(p, x, y):
    d = Block().apply({"params": p}, x) - y
    return jnp.mean(d * d)


def kernels_only(params):
    """Weight decay on kernels only: not on biases or LayerNorm scales."""
    return jax.tree_util.tree_map_with_path(lambda path, _: path[-1].key == "kernel", params)


BLOCK_TRAJECTORIES = {
    "block_adamw": lambda: optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-2, 5, 30), weight_decay=0.01,
                    mask=kernels_only)),
    "block_sgd_nesterov": lambda: optax.sgd(0.05, momentum=0.9, nesterov=True),
}


def block_trajectory_case(name, make):
    """30 steps of the block from Flax's initialization: every loss and the final parameters
    (our compiled and interpreted steps run the whole trajectory from the first parameters)."""
    rng = np.random.default_rng(len(name) * 17)
    x = rng.normal(size=BLOCK_SHAPE).astype(np.float32)
    y = np.tanh(rng.normal(size=BLOCK_SHAPE)).astype(np.float32)
    params = Block().init(jax.random.PRNGKey(0), x)["params"]
    params = jax.tree_util.tree_map(lambda a: np.asarray(a, np.float32), flax.core.unfreeze(params))
    losses, final = train(block_loss, make(), params, x, y)
    return {"block_trajectory": name, "x": bits(x), "y": bits(y), "losses": losses,
            "params": tree_doc(params), "final": tree_doc(final)}


def document():
    cases = [optimizer_case(n, m) for n, m in OPTIMIZERS.items()]
    cases += [schedule_case(n, m, c) for n, (m, c) in SCHEDULES.items()]
    cases += loss_cases()
    cases += [trajectory_case(n, m) for n, m in TRAJECTORIES.items()]
    cases += [block_trajectory_case(n, m) for n, m in BLOCK_TRAJECTORIES.items()]
    return {"jax": jax.__version__, "optax": optax.__version__, "cases": cases}


if __name__ == "__main__":
    raise SystemExit(reference_file.main(document, "optax.json", "optax",
                                         "Writes optax's optimizer steps and schedules."))

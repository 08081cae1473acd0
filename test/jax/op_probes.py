"""Small programs, one feature each, for the oracle suite (oracle.py).

The random programs avoid the ops whose VJP rules save other values than
JAX's, and the structures where JAX's checkpoint and Cotangent's disagree by
design or by a bug; here each appears alone, so that oracle_differences.json
can say exactly what differs and cite the paragraph that explains it (or, for
a bug, mark it so: the suite then counts it as a known bug, apart, and fails).

Every probe takes float arguments in [-1, 1) (or in [0.5, 1.5) where a
domain needs it) and returns a scalar; each runs without a checkpoint and
under four policies on the whole function.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.ad_checkpoint import checkpoint_name

P = jax.checkpoint_policies

VARIANTS = (
    ("no_remat", None),
    ("nothing_saveable", P.nothing_saveable),
    ("dots_saveable", P.dots_saveable),
    ("save_only_these_names", P.save_only_these_names("a")),
    ("everything_saveable", P.everything_saveable),
)


def _scan_named(x, xs):
    def body(c, t):
        v = checkpoint_name(jnp.sin(c * t), "a")
        return jnp.sin(v), jnp.cos(c)
    c, ys = lax.scan(body, x, xs)
    return jnp.sum(c) + jnp.sum(ys)


def _scan_dot(x, xs, w):
    def body(c, t):
        return jnp.sin(jnp.dot(w, c) + t), None
    return jnp.sum(jnp.sin(lax.scan(body, x, xs)[0]))


def _scan_plain(x, xs):
    def body(c, t):
        return jnp.sin(c * t), jnp.cos(c)
    c, ys = lax.scan(body, x, xs)
    return jnp.sum(c) + jnp.sum(ys)


def _cond_named(x, y):
    def yes(a, b):
        return jnp.sum(jnp.sin(checkpoint_name(jnp.sin(a) * b, "a")))
    def no(a, b):
        return jnp.sum(a * a)
    return lax.cond(jnp.sum(y) > 0, yes, no, x, y)


def _cond_dot(x, w):
    def yes(a, m):
        return jnp.sum(jnp.sin(jnp.dot(m, a)))
    def no(a, m):
        return jnp.sum(jnp.cos(a))
    return lax.cond(jnp.sum(x) > -10.0, yes, no, x, w)


def _nested(x):
    inner = jax.checkpoint(lambda a: jnp.sin(jnp.sin(a)), policy=P.nothing_saveable)
    return jnp.sum(jnp.sin(inner(x)))


def _custom_vjp():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def fwd(x):
        return jnp.sin(x), jnp.cos(x)

    def bwd(c, g):
        return (g * c,)
    f.defvjp(fwd, bwd)
    return f


_sin_custom_vjp = _custom_vjp()

# name -> (function, argument shapes, domain)
PROBES = {
    # VJP rules that save other values than JAX's
    "tanh": (lambda x: jnp.sum(jnp.sin(jnp.tanh(x))), [(3, 4)], "sym"),
    "tanh_used": (lambda x, y: jnp.sum(jnp.tanh(x) * y), [(3, 4)] * 2, "sym"),
    "abs": (lambda x: jnp.sum(jnp.sin(jnp.abs(x))), [(3, 4)], "sym"),
    "div": (lambda x, y: jnp.sum(jnp.sin(x / y)), [(3, 4)] * 2, "pos"),
    "div_by_constant": (lambda x: jnp.sum(jnp.sin(x / 3.0)), [(3, 4)], "sym"),
    "reduce_max": (lambda x: jnp.sum(jnp.sin(jnp.max(x, axis=1))), [(3, 4)], "sym"),
    "reduce_min": (lambda x: jnp.sum(jnp.sin(jnp.min(x, axis=0))), [(3, 4)], "sym"),
    "reduce_prod": (lambda x: jnp.sum(jnp.sin(jnp.prod(x, axis=1))), [(3, 4)], "pos"),
    "sign_times": (lambda x: jnp.sum(jnp.sign(x) * x), [(3, 4)], "sym"),
    "floor_times": (lambda x: jnp.sum(jnp.floor(3.0 * x) * x), [(3, 4)], "sym"),
    "softmax": (lambda x, y: jnp.sum(jax.nn.softmax(x, axis=-1) * y), [(3, 4)] * 2, "sym"),
    "relu_custom_jvp": (lambda x, y: jnp.sum(jax.nn.relu(x) * y), [(3, 4)] * 2, "sym"),
    "custom_vjp": (lambda x: jnp.sum(jnp.sin(_sin_custom_vjp(x))), [(3, 4)], "sym"),
    # structures
    "scan_named": (_scan_named, [(4,), (3, 4)], "sym"),
    "scan_dot": (_scan_dot, [(4,), (3, 4), (4, 4)], "sym"),
    "scan_plain": (_scan_plain, [(4,), (3, 4)], "sym"),
    "cond_named": (_cond_named, [(3, 4)] * 2, "sym"),
    "cond_dot": (_cond_dot, [(4,), (4, 4)], "sym"),
    "nested_checkpoint": (_nested, [(4,)], "sym"),
    # primitives written as a short decomposition, and the rest of the vocabulary
    "square": (lambda x: jnp.sum(jnp.sin(jnp.square(x))), [(3, 4)], "sym"),
    "exp2": (lambda x: jnp.sum(jnp.sin(jnp.exp2(x))), [(3, 4)], "sym"),
    "clamp": (lambda x: jnp.sum(jnp.sin(lax.clamp(np.float32(-0.5), x, np.float32(0.5)))), [(3, 4)], "sym"),
    "logsumexp": (lambda x: jnp.sum(jnp.sin(jax.nn.logsumexp(x, axis=1))), [(3, 4)], "sym"),
    "split": (lambda x: jnp.sum(jnp.sin(jnp.split(x, 2, axis=1)[0]) * jnp.split(x, 2, axis=1)[1]), [(3, 4)], "sym"),
    "stack": (lambda x: jnp.sum(jnp.sin(jnp.stack([x, 2.0 * x], axis=1))), [(3, 4)], "sym"),
    "argmax_iota": (lambda x: jnp.sum(jnp.sin(x) * (jnp.argmax(x, axis=1)[:, None] == jnp.arange(4))),
                    [(3, 4)], "sym"),
    "cumsum_reverse": (lambda x: jnp.sum(jnp.sin(lax.cumsum(x, axis=1, reverse=True))), [(3, 4)], "sym"),
    "pad_interior": (lambda x: jnp.sum(jnp.sin(lax.pad(x, np.float32(0.0), ((1, 0, 1), (0, 2, 0))))), [(3, 4)], "sym"),
    "dynamic_update_slice": (lambda x, y: jnp.sum(jnp.sin(lax.dynamic_update_slice(x, jnp.sin(y[:1]), (1, 0)))),
                             [(3, 4)] * 2, "sym"),
    "dynamic_slice_traced": (lambda x: jnp.sum(jnp.sin(lax.dynamic_slice_in_dim(
        x, jnp.argmax(x[:, 0]).astype(jnp.int32), 2, axis=0))), [(4, 3)], "sym"),
    "rem_pow_atan2": (lambda x, y: jnp.sum(lax.rem(x, y) + x ** y + jnp.arctan2(x, y)), [(3, 4)] * 2, "pos"),
    "select_n_int": (lambda x: jnp.sum(lax.select_n(jnp.argmax(x, axis=1).astype(jnp.int32)[:, None] % 3
                                                    + jnp.zeros((3, 4), jnp.int32), x, jnp.sin(x), jnp.cos(x))),
                     [(3, 4)], "sym"),
    "float16_round_trip": (lambda x: jnp.sum(jnp.sin(x.astype(jnp.float16)).astype(jnp.float32) * x), [(3, 4)],
                           "sym"),
    "bfloat16_round_trip": (lambda x: jnp.sum(jnp.sin(x.astype(jnp.bfloat16)).astype(jnp.float32) * x),
                            [(3, 4)], "sym"),
    "batched_dot": (lambda x, y: jnp.sum(jnp.sin(lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))))),
                    [(2, 3, 4), (2, 4, 5)], "sym"),
    "jit_inside": (lambda x: jnp.sum(jax.jit(lambda a: jnp.sin(a) * a)(x)), [(3, 4)], "sym"),
    "fori_loop": (lambda x: jnp.sum(lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 0.9, x)), [(3, 4)], "sym"),
    "where_transpose": (lambda x: jnp.sum(jnp.where(x.T > 0, jnp.sin(x.T), x.T ** 2)), [(3, 4)], "sym"),
}


def cases(seed=7):
    rng = np.random.default_rng(seed)
    out = []
    for name, (fn, shapes, domain) in PROBES.items():
        lo, hi = (0.5, 1.5) if domain == "pos" else (-1.0, 1.0)
        args = [rng.uniform(lo, hi, s).astype(np.float32) for s in shapes]
        variants = [(label, fn if pol is None else jax.checkpoint(fn, policy=pol)) for label, pol in VARIANTS]
        out.append((f"probe_{name}", fn, args, variants))
    return out

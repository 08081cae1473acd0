"""Random JAX programs for the oracle suite (oracle.py), written as Python source.

Each program is a function of a few float arguments that returns a scalar
loss. It is built from a seeded generator as source text, so a failure can be
shown (and re-run) as the program itself. The vocabulary:

- elementwise: sin, cos, tan, exp, log1p, expm1, sqrt, rsqrt, logistic,
  square, integer powers, neg, add, sub, mul, maximum, minimum, pow, atan2,
  where (select_n on a comparison), stop_gradient, division by a constant;
- dots: matrix products with weight arguments, batched products (einsum with a
  batch dimension), vector products;
- reductions: sum and mean over an axis, cumsum;
- views: reshape, transpose, [None] / squeeze, slices with strides,
  concatenate, pad, broadcast_to, dynamic_slice at a constant index, a
  float64 round trip (convert_element_type);
- names (checkpoint_name, from a fixed set), nested jax.checkpoint blocks
  (nested twice at most), lax.scan over a stacked argument with a carry,
  lax.cond on a data-dependent predicate.

The nested checkpoints' policies are a global list INNER of the program:
without an outer checkpoint they are random (each decides alone, in JAX as in
Cotangent); under an outer checkpoint with policy P, oracle.py compiles the
program with every inner policy P too, and a checkpoint nested in another
always shares its policy, because the two systems nest differently by design
(JAX lets the outermost policy decide inside inner checkpoints, Cotangent
intersects them; op_probes.py shows it). A scan body may hold a dot with a
weight it closes over, a name, and be checkpointed itself; cond branches hold
no names and no dots (see op_probes.py for why).

Domains are kept safe so that float32 gradients are well conditioned:
arguments lie in [-1, 1), logs and roots see 1 + v*v, exponentials see sin(v),
divisions are by constants only. Ops whose VJP rule saves something other
than JAX's (tanh, abs, division by a variable, max/min/prod reductions, sign)
are compared one by one in op_probes.py instead, where each difference is
listed.
"""
import random

NAMES = ("a", "b", "c", "d")

# Policies a nested checkpoint may get; the outer variants are chosen in oracle.py.
INNER_POLICIES = (
    "None",
    "P.nothing_saveable",
    "P.everything_saveable",
    "P.dots_saveable",
    "P.dots_with_no_batch_dims_saveable",
    "P.save_only_these_names('a', 'b')",
    "P.save_any_names_but_these('c')",
    "P.save_from_both_policies(P.dots_saveable, P.save_only_these_names('c'))",
)


class _Val:
    def __init__(self, name, shape):
        self.name, self.shape = name, tuple(shape)


class _Gen:
    def __init__(self, seed, dtype):
        self.r = random.Random(seed)
        self.dtype = dtype
        self.args = []          # (name, shape)
        self.lines = []
        self.counter = 0
        self.names_used = set()
        self.has = set()        # features present: dot, bdot, scan, cond, remat, name, view, reduce
        self.indent = 1
        self.inner = []         # the policies of the nested checkpoints, as source text
        self.remat_stack = []   # indices into inner of the checkpoints being written

    # -- helpers -------------------------------------------------------------------------------
    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, text):
        self.lines.append("    " * self.indent + text)

    def new_arg(self, shape, prefix="x"):
        name = f"{prefix}{len(self.args)}"
        self.args.append((name, tuple(shape)))
        return _Val(name, shape)

    def assign(self, expr, shape):
        name = self.fresh()
        self.emit(f"{name} = {expr}")
        return _Val(name, shape)

    def dim(self):
        return self.r.choice((2, 3, 4, 5))

    # -- ops -----------------------------------------------------------------------------------
    def unary(self, v):
        r = self.r
        n = v.name
        op = r.choice([
            f"jnp.sin({n})", f"jnp.cos({n})", f"jnp.tan(0.5 * jnp.sin({n}))", f"jnp.exp(jnp.sin({n}))",
            f"jnp.log1p({n} * {n})", f"jnp.expm1(jnp.sin({n}))", f"jnp.sqrt(1.0 + {n} * {n})",
            f"lax.rsqrt(1.0 + {n} * {n})", f"jax.nn.sigmoid({n})", f"jnp.square({n})", f"{n} ** 3",
            f"-{n}", f"jnp.log(2.0 + jnp.cos({n}))", f"{n} / 3.0", f"jnp.sin({n}) * 0.5 + {n}",
            f"lax.stop_gradient(jnp.cos({n})) * {n}", f"jnp.maximum({n}, 0.0)", f"jnp.minimum({n}, 0.3)",
            f"(1.5 + jnp.sin({n})) ** 1.5",
        ])
        return self.assign(op, v.shape)

    def binary(self, a, b):
        r = self.r
        x, y = a.name, b.name
        op = r.choice([
            f"{x} + {y}", f"{x} - {y}", f"{x} * {y}", f"jnp.maximum({x}, {y})", f"jnp.minimum({x}, {y})",
            f"jnp.where({x} > {y}, {x}, {y} * 2.0)", f"jnp.arctan2({x}, 1.5 + {y} * {y})",
            f"(1.5 + jnp.sin({x})) ** jnp.cos({y})", f"jnp.sin({x}) * jnp.cos({y})",
        ])
        return self.assign(op, a.shape)

    def dot(self, v):
        r = self.r
        self.has.add("dot")
        if len(v.shape) == 3 and r.random() < 0.5:
            # batched: [b, i, j] x [b, j, k] -> [b, i, k]
            b, i, j = v.shape
            k = self.dim()
            w = self.new_arg((b, j, k), "w")
            self.has.add("bdot")
            return self.assign(f"jnp.einsum('bij,bjk->bik', {v.name}, {w.name})", (b, i, k))
        if len(v.shape) == 2 and r.random() < 0.3:
            # batched over the rows against itself transformed: [i, j] x [i, j] -> [i, j, j]
            self.has.add("bdot")
            u = self.unary(v)
            return self.assign(f"jnp.einsum('ij,ik->ijk', {v.name}, {u.name})", v.shape + (v.shape[1],))
        k = self.dim()
        w = self.new_arg((v.shape[-1], k), "w")
        return self.assign(f"jnp.dot({v.name}, {w.name})", v.shape[:-1] + (k,))

    def reduce(self, v):
        r = self.r
        self.has.add("reduce")
        if not v.shape:
            return self.unary(v)
        ax = r.randrange(len(v.shape))
        kind = r.choice(["sum", "mean", "mean_keep", "cumsum"])
        if kind == "sum":
            return self.assign(f"jnp.sum({v.name}, axis={ax})", v.shape[:ax] + v.shape[ax + 1:])
        if kind == "mean":
            return self.assign(f"jnp.mean({v.name}, axis={ax})", v.shape[:ax] + v.shape[ax + 1:])
        if kind == "mean_keep":
            m = self.assign(f"jnp.mean({v.name}, axis={ax}, keepdims=True)",
                            v.shape[:ax] + (1,) + v.shape[ax + 1:])
            return self.assign(f"{v.name} - {m.name}", v.shape)
        return self.assign(f"jnp.cumsum({v.name}, axis={ax})", v.shape)

    def view(self, v):
        r = self.r
        self.has.add("view")
        s = v.shape
        n = v.name
        choices = ["reshape", "none_axis", "concat", "pad", "broadcast", "f64"]
        if len(s) >= 2:
            choices += ["transpose", "transpose"]
        if s and s[0] >= 2:
            choices += ["slice", "dynamic_slice", "index"]
        if s and s[-1] >= 3:
            choices += ["stride"]
        kind = r.choice(choices)
        if kind == "reshape":
            size = 1
            for d in s:
                size *= d
            if len(s) >= 2 and r.random() < 0.5:
                return self.assign(f"{n}.reshape({size})", (size,))
            if size % 2 == 0 and size > 2:
                return self.assign(f"{n}.reshape(2, {size // 2})", (2, size // 2))
            return self.assign(f"{n}.reshape({size}, 1)", (size, 1))
        if kind == "none_axis":
            e = self.assign(f"{n}[None]", (1,) + s)
            f = self.unary(e)
            return self.assign(f"{f.name}[0]", s)
        if kind == "transpose":
            perm = list(range(len(s)))
            r.shuffle(perm)
            if perm == sorted(perm):
                perm = perm[::-1]
            return self.assign(f"jnp.transpose({n}, {tuple(perm)})", tuple(s[p] for p in perm))
        if kind == "slice":
            return self.assign(f"{n}[1:]", (s[0] - 1,) + s[1:])
        if kind == "index":
            return self.assign(f"{n}[{r.randrange(s[0])}]", s[1:])
        if kind == "dynamic_slice":
            starts = tuple([1] + [0] * (len(s) - 1))
            sizes = (s[0] - 1,) + s[1:]
            return self.assign(f"lax.dynamic_slice({n}, {starts}, {sizes})", sizes)
        if kind == "stride":
            k = len(range(0, s[-1], 2))
            return self.assign(f"{n}[..., ::2]", s[:-1] + (k,))
        if kind == "concat":
            u = self.unary(v)
            ax = r.randrange(len(s)) if s else None
            if ax is None:
                return self.assign(f"jnp.stack([{n}, {u.name}])", (2,))
            return self.assign(f"jnp.concatenate([{n}, {u.name}], axis={ax})",
                               s[:ax] + (2 * s[ax],) + s[ax + 1:])
        if kind == "pad":
            if not s:
                return self.unary(v)
            return self.assign(f"jnp.pad({n}, 1)", tuple(d + 2 for d in s))
        if kind == "broadcast":
            k = self.dim()
            return self.assign(f"jnp.broadcast_to({n}, {(k,) + s})", (k,) + s)
        # a float64 round trip
        return self.assign(f"jnp.sin({n}.astype(jnp.float64)).astype({n}.dtype)", s)

    def name(self, v):
        nm = self.r.choice(NAMES)
        self.names_used.add(nm)
        self.has.add("name")
        return self.assign(f"checkpoint_name({v.name}, '{nm}')", v.shape)

    def remat(self, pool, depth):
        """A nested checkpoint over a few ops of one or two values of the pool."""
        r = self.r
        self.has.add("remat")
        ins = r.sample(pool, min(len(pool), r.choice((1, 2))))
        fname = self.fresh("blk")
        # A checkpoint nested in another gets its policy: JAX lets the outer policy decide inside
        # (see the module's docstring), so only then do the two systems mean the same thing.
        if self.remat_stack:
            index = self.remat_stack[-1]
        else:
            self.inner.append(r.choice(INNER_POLICIES))
            index = len(self.inner) - 1
        params = [f"p{i}" for i in range(len(ins))]
        self.emit(f"def {fname}({', '.join(params)}):")
        self.indent += 1
        self.remat_stack.append(index)
        inner = [_Val(p, v.shape) for p, v in zip(params, ins)]
        out = self.block(inner, r.randint(2, 5), depth + 1)
        self.emit(f"return {out.name}")
        self.remat_stack.pop()
        self.indent -= 1
        return self.assign(f"jax.checkpoint({fname}, policy=INNER[{index}])"
                           f"({', '.join(v.name for v in ins)})", out.shape)

    def scan(self, v):
        """lax.scan over a new stacked argument xs [L, *s] with carry of v's shape."""
        r = self.r
        self.has.add("scan")
        s = v.shape
        length = r.choice((2, 3, 4))
        xs = self.new_arg((length,) + s, "xs")
        fname = self.fresh("body")
        self.emit(f"def {fname}(c, t):")
        self.indent += 1
        c, t = _Val("c", s), _Val("t", s)
        a = self.binary(c, t)
        if s and r.random() < 0.5:
            # A layer in the loop: a dot with a weight the body closes over (a scan const),
            # perhaps named, as a scanned stack of blocks has.
            w = self.new_arg((s[-1], s[-1]), "w")
            self.has.add("dot")
            a = self.assign(f"jnp.dot({a.name}, {w.name}) * 0.5", s)
            if r.random() < 0.5:
                a = self.name(a)
        # The carry stays bounded with a bounded derivative, so that float32 gradients through
        # the loop stay well conditioned.
        b = self.assign(f"jnp.sin({self.unary(a).name}) * 0.8", s)
        y = self.unary(c)
        self.emit(f"return {b.name}, {y.name}")
        self.indent -= 1
        rev = ", reverse=True" if r.random() < 0.25 else ""
        carry, ys = self.fresh(), self.fresh()
        body = fname
        if r.random() < 0.4:
            # A checkpointed body (jax.checkpoint inside the loop, as nn.remat_scan writes it).
            self.has.add("remat")
            self.inner.append(r.choice(INNER_POLICIES))
            body = f"jax.checkpoint({fname}, policy=INNER[{len(self.inner) - 1}])"
        self.emit(f"{carry}, {ys} = lax.scan({body}, {v.name}, {xs.name}{rev})")
        out = self.assign(f"{carry} + jnp.sum({ys}, axis=0)", s)
        return out

    def cond(self, a, b):
        r = self.r
        self.has.add("cond")
        s = a.shape
        f1, f2 = self.fresh("br"), self.fresh("br")
        for fname in (f1, f2):
            self.emit(f"def {fname}(p, q):")
            self.indent += 1
            p, q = _Val("p", s), _Val("q", s)
            o = self.binary(p, q)
            o = self.unary(o)
            self.emit(f"return {o.name}")
            self.indent -= 1
        pred = r.choice([f"jnp.sum({a.name}) > 0", f"jnp.sum({b.name}) < 0.5", f"jnp.mean({a.name} * {b.name}) > 0"])
        return self.assign(f"lax.cond({pred}, {f1}, {f2}, {a.name}, {b.name})", s)

    # -- blocks --------------------------------------------------------------------------------
    def block(self, pool, n_ops, depth):
        pool = list(pool)
        r = self.r
        last = pool[-1]
        for _ in range(n_ops):
            v = r.choice(pool[-3:]) if r.random() < 0.7 else r.choice(pool)
            same = [u for u in pool if u.shape == v.shape and u is not v]
            k = r.random()
            if k < 0.25:
                out = self.unary(v)
            elif k < 0.40 and same:
                out = self.binary(v, r.choice(same))
            elif k < 0.52 and v.shape:
                out = self.dot(v)
            elif k < 0.62:
                out = self.reduce(v)
            elif k < 0.74:
                out = self.view(v)
            elif k < 0.82:
                out = self.name(v)
            elif k < 0.88 and depth < 2:
                out = self.remat(pool, depth)
            elif k < 0.94 and depth == 0:
                out = self.scan(v)
            elif depth == 0 and same:
                out = self.cond(v, r.choice(same))
            else:
                out = self.unary(v)
            pool.append(out)
            last = out
        return last


def make_program(seed, dtype="float32"):
    """(source text, function name, [(arg name, shape)], features, names used)."""
    g = _Gen(seed, dtype)
    r = g.r
    rank = r.choice((1, 2, 2, 3))
    shape = tuple(g.dim() for _ in range(rank))
    x = g.new_arg(shape, "x")
    pool = [x]
    if r.random() < 0.6:
        pool.append(g.new_arg(shape, "x"))
    n_ops = r.randint(4, 10)
    out = g.block(pool, n_ops, 0)
    # A loss of positive terms (no cancellation: its float32 value is well conditioned).
    g.emit(f"return jnp.sum(jnp.sin({out.name}) ** 2) + 0.5 * jnp.sum({out.name} * {out.name})")
    fname = f"prog{seed}"
    header = f"def {fname}({', '.join(a for a, _ in g.args)}):"
    src = header + "\n" + "\n".join(g.lines) + "\n"
    return {"source": src, "name": fname, "args": list(g.args), "features": sorted(g.has),
            "names": sorted(g.names_used), "dtype": dtype, "inner": list(g.inner)}


PRELUDE = """import jax
import jax.numpy as jnp
from jax import lax
from jax.ad_checkpoint import checkpoint_name
P = jax.checkpoint_policies
"""


def compile_program(prog, inner=None):
    """The program's function, compiled from its source (file name `<progN>` in tracebacks).

    The nested checkpoints get the program's own random policies, or all the policy `inner`.
    """
    env = {}
    exec(compile(PRELUDE, "<prelude>", "exec"), env)
    if inner is None:
        env["INNER"] = [eval(p, env) for p in prog["inner"]]
    else:
        env["INNER"] = [inner] * len(prog["inner"])
    exec(compile(prog["source"], f"<{prog['name']}>", "exec"), env)
    return env[prog["name"]]


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        p = make_program(int(s))
        print(p["source"], p["args"], p["features"])

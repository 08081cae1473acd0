#!/usr/bin/env python3
"""Unit tests of python/cotangent_jax: what it refuses (every unsupported primitive, policy and
dtype gives a clear error, located, and no IR), how it names policies and arguments, literals,
while loops, gathers, a whole optax step, the helpers and the command line.

  test_cotangent_jax.py BIN_DIR [unittest options]

Needs JAX and Flax (the `jax` ctest label runs it in the venv of scripts/jax-venv.sh) and the
tools in BIN_DIR.
"""
import inspect
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PACKAGE = os.path.join(ROOT, "python", "cotangent_jax")
sys.path.insert(0, os.path.join(PACKAGE, "src"))
sys.path.insert(0, HERE)
if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
    os.environ["COTANGENT_BIN"] = os.path.abspath(sys.argv.pop(1))

# Two CPU devices for the shard_map tests' mesh (before JAX starts).
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.ad_checkpoint import checkpoint_name  # noqa: E402

import cotangent_jax as cj  # noqa: E402
from cotangent_jax import tools  # noqa: E402

import export_library  # noqa: E402  (a stand-in library: JAX records no user line inside it)

P = jax.checkpoint_policies
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def _optax(test):
    """optax (Flax's dependency, so in the venv); the test is skipped without it."""
    try:
        import optax
    except ImportError:  # pragma: no cover
        test.skipTest("optax is not installed")
    return optax


def opt_accepts(text):
    """cotangent-opt parses and verifies the module, and splits it."""
    tools.split_module(text)


def _fsdp_body(w, x):
    """Each rank all-gathers its weight shard, and the ranks' losses are summed."""
    wf = lax.all_gather(w, "data", axis=0, tiled=True)
    return lax.psum(jnp.sum(jnp.tanh(x @ wf.T)), "data")


class ShardMap(unittest.TestCase):
    """A shard_map'd function is exported as what each rank runs: its body on one shard, with
    jx's collectives; the interpreter's simulated ranks give JAX's value; remat policies drop
    the all-gathered weights (the FSDP idiom)."""

    def setUp(self):
        if len(jax.devices()) < 2:  # pragma: no cover
            self.skipTest("fewer than 2 JAX devices")
        from jax.sharding import NamedSharding, PartitionSpec
        self.mesh = jax.make_mesh((2,), ("data",))
        self.shard = lambda a: jax.device_put(a, NamedSharding(self.mesh, PartitionSpec("data")))
        self.spec = PartitionSpec("data"), PartitionSpec()

    def step(self, body):
        return jax.jit(jax.shard_map(body, mesh=self.mesh, in_specs=(self.spec[0], self.spec[0]),
                                     out_specs=self.spec[1]))

    def test_exported_per_rank_and_run_on_simulated_ranks(self):
        w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
        x = np.linspace(0.5, -0.5, 3, dtype=np.float32).reshape(1, 3)
        # Both ranks hold the same shards: cotangent-interpret gives each rank the same --arg.
        step = self.step(_fsdp_body)
        wg, xg = self.shard(np.concatenate([w, w])), self.shard(np.concatenate([x, x]))
        text = cj.to_jx(step, wg, xg, name="step")
        self.assertIn("tensor<2x3xf32>", text.split("\n")[1])  # one shard's shapes
        self.assertIn('jx.all_gather %0, axis = "data"(2), dimension = 0 tiled', text)
        self.assertIn('jx.psum', text)
        ranks = tools.interpret(text, "step", [w, x], ranks=("data", 2))
        want = float(step(wg, xg))
        for rank in ranks:
            self.assertAlmostEqual(float(rank[0]), want, delta=1e-5 * (1 + abs(want)))

    def test_fsdp_policy_drops_the_gathered_weights(self):
        w, x = self.shard(np.ones((4, 3), np.float32)), self.shard(np.ones((2, 3), np.float32))
        kept = tools.saved_residuals_of_module(cj.to_jx(self.step(_fsdp_body), w, x, name="step"))
        dropped = tools.saved_residuals_of_module(cj.to_jx(self.step(jax.checkpoint(
            _fsdp_body, policy=P.nothing_saveable)), w, x, name="step"))
        types = lambda report: [r["type"] for r in report["step"]["residuals"]]  # noqa: E731
        # The whole gathered weight (transposed for the matmul) on every rank, or only its shard.
        self.assertIn("f32[3,4]", types(kept))
        self.assertFalse({"f32[3,4]", "f32[4,3]"} & set(types(dropped)))
        self.assertIn("f32[2,3]", types(dropped))


    def test_residuals_equal_jaxs_per_rank(self):
        """Cotangent's residuals of the exported per-rank body against JAX's saved_residuals of
        the shard_map'd function (global types, a sharded dimension written n@data: divided by
        the 2 ranks here), for a data-parallel step (weights replicated, pmean of the loss) and
        the FSDP step with and without nothing_saveable. One difference, a residual JAX keeps and
        Cotangent does not (docs/distributed.md): JAX's tanh JVP, (g + g y)(1 - y), keeps 1 - y
        beside y (one more f32[1,4]); Cotangent's tanh rule recomputes 1 - y^2 from y."""
        import re
        from jax._src.ad_checkpoint import saved_residuals
        from jax.sharding import NamedSharding, PartitionSpec

        def dp_body(w, x):
            return lax.pmean(jnp.sum(jnp.tanh(x @ w.T)), "data")

        def per_rank(aval):
            return re.sub(r"(\d+)@data", lambda m: str(int(m.group(1)) // 2),
                          aval.str_short(short_dtypes=True).lstrip("~"))

        cases = [("data parallel", dp_body, PartitionSpec(), ["f32[1,4]"]),
                 ("FSDP", _fsdp_body, PartitionSpec("data"), ["f32[1,4]"]),
                 ("FSDP, nothing_saveable", jax.checkpoint(_fsdp_body, policy=P.nothing_saveable),
                  PartitionSpec("data"), [])]
        for name, body, w_spec, jax_only in cases:
            with self.subTest(name):
                f = jax.jit(jax.shard_map(body, mesh=self.mesh, in_specs=(w_spec, self.spec[0]),
                                          out_specs=self.spec[1]))
                w = jax.device_put(np.ones((4, 3), np.float32), NamedSharding(self.mesh, w_spec))
                x = self.shard(np.ones((2, 3), np.float32))
                theirs = sorted(per_rank(aval) for aval, _ in saved_residuals(f, w, x))
                report = tools.saved_residuals_of_module(cj.to_jx(f, w, x, name="step"))
                ours = sorted(r["type"] for r in report["step"]["residuals"])
                for t in jax_only:
                    theirs.remove(t)
                self.assertEqual(ours, theirs)


class Refusals(unittest.TestCase):
    def test_every_unsupported_primitive_is_listed(self):
        def f(x):
            return jnp.sum(jnp.sort(x, axis=1) + lax.erf_inv(x) + jnp.cbrt(x))
        with self.assertRaises(cj.UnsupportedPrimitiveError) as cm:
            cj.to_jx(f, X)
        e = cm.exception
        self.assertEqual(set(e.primitives), {"sort", "erf_inv", "cbrt"})
        msg = str(e)
        self.assertIn("3 unsupported JAX primitives", msg)
        for p in ("sort", "erf_inv", "cbrt"):
            self.assertIn(f"  {p}  (first at ", msg)
        self.assertIn("test_cotangent_jax.py", msg)  # where the user wrote it
        self.assertIn("docs/jax.md", msg)

    def test_unsupported_primitive_inside_control_flow(self):
        def f(x):
            return lax.scan(lambda c, t: (c + jnp.sort(t), None), x[0], x)[0].sum()
        with self.assertRaises(cj.UnsupportedPrimitiveError) as cm:
            cj.to_jx(f, X)
        self.assertEqual(set(cm.exception.primitives), {"sort"})

    def test_refused_gather_in_a_library_names_the_call(self):
        # Inside export_library's jitted functions JAX records no user line (as inside a jitted
        # jnp function): the error names the nearest line that has one, the helper's call.
        starts = np.array([[0, 1], [1, 2]], np.int32)

        def helper(x, s):
            return export_library.window_sums(x, s)  # the line the error names
        line = helper.__code__.co_firstlineno + 1

        def f(x, s):
            return jnp.sum(helper(x, s))
        with self.assertRaises(cj.UnsupportedTypeError) as cm:
            cj.to_jx(f, X, starts)
        msg = str(cm.exception)
        self.assertIn(f"gather at {__file__}:{line}:", msg)
        self.assertIn(".helper)", msg)
        self.assertIn("window sizes (2, 2)", msg)

    def test_refused_library_function_names_the_export_call(self):
        # The library function itself exported: the line that called to_jx.
        starts = np.array([[0, 1]], np.int32)
        line = inspect.currentframe().f_lineno + 2
        with self.assertRaises(cj.UnsupportedTypeError) as cm:
            cj.to_jx(export_library.windows, X, starts)
        self.assertIn(f"gather at {__file__}:{line}:", str(cm.exception))
        line = inspect.currentframe().f_lineno + 2
        with self.assertRaises(cj.UnsupportedPrimitiveError) as cm:
            cj.to_jx(jnp.sort, X)  # a jitted jnp function: no frame of its own but export.py's
        self.assertEqual(set(cm.exception.primitives), {"sort"})
        self.assertIn(f"(first at {__file__}:{line}:", str(cm.exception))
        self.assertNotIn("export.py", str(cm.exception))

    def test_partial_window_gather_is_refused(self):
        # lax.dynamic_slice under vmap: windows of 2 rows, a gather jx.take cannot express.
        def f(x, i):
            return jnp.sum(jax.vmap(lambda r, j: lax.dynamic_slice_in_dim(r, j, 2))(x, i))
        line = f.__code__.co_firstlineno + 1
        with self.assertRaises(cj.UnsupportedTypeError) as cm:
            cj.to_jx(f, X, np.array([0, 2, 1], np.int32))
        msg = str(cm.exception)
        self.assertIn("jx.take and jx.scatter_add express gathers and scatters", msg)
        self.assertIn("window sizes (1, 2)", msg)
        self.assertIn(f"gather at {__file__}:{line}:", msg)

    def test_custom_policy_is_named(self):
        def my_policy(prim, *args, **params):
            return prim.name == "sin"
        f = jax.checkpoint(lambda x: jnp.sum(jnp.sin(x)), policy=my_policy)
        with self.assertRaises(cj.UnsupportedPolicyError) as cm:
            cj.to_jx(f, X)
        self.assertIn("my_policy", str(cm.exception))
        self.assertIn("custom checkpoint policy", str(cm.exception))

    def test_custom_policy_inside_both_is_named(self):
        pol = P.save_from_both_policies(P.dots_saveable, lambda *a, **k: False)
        with self.assertRaises(cj.UnsupportedPolicyError) as cm:
            cj.to_jx(jax.checkpoint(lambda x: jnp.sum(jnp.sin(x)), policy=pol), X)
        self.assertIn("<lambda>", str(cm.exception))

    def test_jax_save_anything_except_these_names_is_refused(self):
        f = jax.checkpoint(lambda x: jnp.sum(jnp.sin(x)), policy=P.save_anything_except_these_names("a"))
        with self.assertRaises(cj.UnsupportedPolicyError) as cm:
            cj.to_jx(f, X)
        self.assertIn("cotangent_jax.policies.save_anything_except_these_names", str(cm.exception))

    def test_unsupported_dtypes(self):
        for dtype in (np.uint8, np.int8, np.complex64):
            with self.subTest(dtype=dtype):
                with self.assertRaises(cj.UnsupportedTypeError) as cm:
                    cj.to_jx(lambda x: x * 2, np.ones(3, dtype))
                self.assertIn(np.dtype(dtype).name, str(cm.exception))

    def test_unsupported_parameter(self):
        f = lambda x: jnp.sum(lax.exp(x, accuracy=lax.Tolerance(atol=1e-3)))  # noqa: E731
        with self.assertRaises(cj.UnsupportedTypeError) as cm:
            cj.to_jx(f, X)
        self.assertIn("accuracy", str(cm.exception))

    def test_cli_reports_refusal(self):
        with tempfile.TemporaryDirectory() as tmp:
            mod = os.path.join(tmp, "bad.py")
            with open(mod, "w") as f:
                f.write("import jax.numpy as jnp\ndef loss(x):\n    return jnp.sum(jnp.sort(x))\n")
            proc = subprocess.run([sys.executable, "-m", "cotangent_jax", f"{mod}:loss", "--shapes", "f32[3,4]"],
                                  capture_output=True, text=True, env=_env())
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn("unsupported JAX primitive", proc.stderr)
            self.assertIn("sort", proc.stderr)
            self.assertEqual(proc.stdout, "")


class Policies(unittest.TestCase):
    CASES = [
        (None, "nothing_saveable"),
        (P.nothing_saveable, "nothing_saveable"),
        (P.everything_saveable, "everything_saveable"),
        (P.dots_saveable, "dots_saveable"),
        (P.checkpoint_dots, "dots_saveable"),
        (P.dots_with_no_batch_dims_saveable, "dots_with_no_batch_dims_saveable"),
        (P.checkpoint_dots_with_no_batch_dims, "dots_with_no_batch_dims_saveable"),
        (P.save_only_these_names("b", "a"), 'save_only_these_names("a", "b")'),
        (P.save_any_names_but_these("a"), 'save_any_names_but_these("a")'),
        (cj.policies.save_anything_except_these_names("a"), 'save_anything_except_these_names("a")'),
        (P.save_and_offload_only_these_names(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["b"],
                                             offload_src="device", offload_dst="pinned_host"),
         'save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host")'),
        (P.offload_dot_with_no_batch_dims("device", "pinned_host"),
         'offload_dot_with_no_batch_dims("device", "pinned_host")'),
        (P.save_from_both_policies(P.dots_saveable, P.save_from_both_policies(
            P.save_only_these_names("a"), P.offload_dot_with_no_batch_dims("device", "pinned_host"))),
         'save_from_both_policies(dots_saveable, save_from_both_policies(save_only_these_names("a"), '
         'offload_dot_with_no_batch_dims("device", "pinned_host")))'),
    ]

    def test_names(self):
        m = cj.Module(locations=False)
        for i, (pol, text) in enumerate(self.CASES):
            with self.subTest(policy=text):
                self.assertEqual(cj.policies.policy_text(pol), f"#jx.policy<{text}>")

                def f(x, w):
                    return jnp.sum(jnp.sin(checkpoint_name(x @ w, "a")))
                m.add(jax.checkpoint(f) if pol is None else jax.checkpoint(f, policy=pol),
                      X, X.T, name=f"f{i}")
                self.assertIn(f"policy = #jx.policy<{text}>", m.functions[-1])
        opt_accepts(m.text())

    def test_save_anything_except_these_names_in_jax(self):
        from jax._src.ad_checkpoint import saved_residuals

        def f(x):
            a = checkpoint_name(jnp.sin(x), "a")
            b = checkpoint_name(jnp.sin(a), "b")
            return jnp.sum(a * b)
        g = jax.checkpoint(f, policy=cj.policies.save_anything_except_these_names("a"))
        named = [s for _, s in saved_residuals(g, X) if s.startswith("named")]
        self.assertTrue(any("'b'" in s for s in named), named)
        self.assertFalse(any("'a'" in s for s in named), named)

    def test_flax_checkpoint_policy(self):
        import flax.linen as nn

        class Block(nn.Module):
            @nn.compact
            def __call__(self, x):
                return jnp.sin(nn.Dense(4)(x))
        m = nn.checkpoint(Block, policy=P.dots_with_no_batch_dims_saveable)()
        params = m.init(jax.random.PRNGKey(0), X)["params"]
        text = cj.to_jx(lambda params, x: jnp.sum(m.apply({"params": params}, x)), params, X)
        self.assertIn("#jx.policy<dots_with_no_batch_dims_saveable>", text)
        self.assertIn('jx.arg_name = "params.Dense_0.kernel"', text)
        opt_accepts(text)


class Export(unittest.TestCase):
    def test_argument_names_from_pytree_paths(self):
        params = {"Dense_0": {"kernel": np.ones((4, 2), np.float32), "bias": np.zeros(2, np.float32)}}
        xs = [X, X]
        names = cj.arg_names(lambda params, xs, *rest: None, (params, xs, X, X))
        self.assertEqual(names, ["params.Dense_0.bias", "params.Dense_0.kernel", "xs[0]", "xs[1]",
                                 "rest[0]", "rest[1]"])
        text = cj.to_jx(lambda params, xs: jnp.sum(xs[0] @ params["Dense_0"]["kernel"]), params, xs)
        self.assertIn('{jx.arg_name = "params.Dense_0.kernel"}', text)

    def test_literals_and_constants(self):
        big = np.array([1e-30, -0.0, 3.5e38, 1e-5], np.float32)

        def f(x):
            y = x[0] * jnp.asarray(big) + jnp.float32(1e-5) - jnp.asarray([np.inf, 1.0, 2.0, 3.0], jnp.float32)
            return jnp.where(jnp.isfinite(y), y, 7.0), jnp.arange(4) * 3, x > 0.25
        text = cj.to_jx(f, X)
        self.assertIn("0x7F800000", text)  # inf as MLIR spells it
        ours = tools.interpret(text, "f", [X])
        want = f(X)
        self.assertEqual(len(ours), 3)
        for a, b in zip(ours, want):
            np.testing.assert_array_equal(a, np.asarray(b))

    def test_float64(self):
        jax.config.update("jax_enable_x64", True)
        try:
            x = np.linspace(0.1, 1, 6).reshape(2, 3)
            f = lambda x: jnp.sum(jnp.exp(jnp.sin(x) / 7.0) ** 3)  # noqa: E731
            value, grads = cj.grad(f, x)
            v2, g2 = jax.value_and_grad(f)(x)
            np.testing.assert_allclose(value, v2, rtol=1e-14)
            np.testing.assert_allclose(grads[0], g2, rtol=1e-13)
            self.assertEqual(grads[0].dtype, np.float64)
        finally:
            jax.config.update("jax_enable_x64", False)

    def test_while_loop_runs(self):
        # A fori_loop with a traced bound is a while loop: exported, run, not differentiated.
        def f(x, n):
            return lax.fori_loop(0, n, lambda i, c: jnp.sin(c) * 2.0, x)
        n = np.int32(3)
        text = cj.to_jx(f, X, n)
        self.assertIn("jx.while", text)
        ours = tools.interpret(text, "f", [X, n])
        np.testing.assert_allclose(ours[0], f(X, n), rtol=1e-6)
        with self.assertRaises(cj.ToolError) as cm:
            tools.split_module(text)
        self.assertIn("while", str(cm.exception))

    def test_cond_switch_and_scan_run(self):
        def f(x, i):
            y = lax.switch(i, [jnp.sin, jnp.cos, lambda v: v * v], x)
            c, ys = lax.scan(lambda c, t: (c * 0.5 + t, c), y[0], y, reverse=True)
            return jnp.sum(c) + jnp.sum(ys)
        for i in (0, 1, 2, 7):
            with self.subTest(index=i):
                ours = tools.interpret(cj.to_jx(f, X, np.int32(i)), "f", [X, np.int32(i)])
                np.testing.assert_allclose(ours[0], f(X, np.int32(i)), rtol=1e-6)

    def test_no_locations(self):
        text = cj.to_jx(lambda x: jnp.sum(jnp.sin(x)), X, locations=False)
        self.assertNotIn("loc(", text)

    def test_duplicate_function_name(self):
        m = cj.Module()
        m.add(lambda x: x, X, name="f")
        with self.assertRaises(cj.ExportError):
            m.add(lambda x: x, X, name="f")


class OptaxStep(unittest.TestCase):
    """A whole training step, JAX's value_and_grad and an optax update inside: its outputs (new
    parameters, optimizer state, loss) by Cotangent's interpreter and compiled equal JAX's."""

    @staticmethod
    def loss_fn(params, x, y):
        import optax
        h = jax.nn.relu(x @ params["w1"] + params["b1"])
        logits = h @ params["w2"] + params["b2"]
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, y))

    def setUp(self):
        _optax(self)

    def check(self, tx):
        import optax
        rs = np.random.RandomState(0)
        params = {"w1": rs.randn(4, 8).astype(np.float32) * 0.5, "b1": np.zeros(8, np.float32),
                  "w2": rs.randn(8, 3).astype(np.float32) * 0.5, "b2": np.full(3, 0.1, np.float32)}
        x = rs.randn(6, 4).astype(np.float32)
        y = np.array([0, 2, 1, 1, 0, 2], np.int32)

        def step(params, opt_state, x, y):
            loss, g = jax.value_and_grad(self.loss_fn)(params, x, y)
            updates, opt_state = tx.update(g, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss
        state = tx.init(params)
        for _ in range(2):  # moments and count not at their initial values
            params, state, _ = jax.jit(step)(params, state, x, y)
        text = cj.to_jx(step, params, state, x, y)
        self.assertIn("jx.pow", text)  # the bias corrections b ** count, count an int32
        args = [np.asarray(v) for v in jax.tree_util.tree_leaves((params, state, x, y))]
        want = [np.asarray(v) for v in jax.tree_util.tree_leaves(jax.jit(step)(params, state, x, y))]
        compiled, _ = tools.run_compiled(text, "step", args)
        for name, ours in (("interpreted", tools.interpret(text, "step", args)), ("compiled", compiled["results"])):
            with self.subTest(name):
                self.assertEqual(len(ours), len(want))
                for o, w in zip(ours, want):
                    self.assertEqual((o.shape, o.dtype), (w.shape, w.dtype))
                    np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)

    def test_adamw(self):
        import optax
        self.check(optax.adamw(1e-3, weight_decay=0.01))

    def test_clipped_adamw(self):
        import optax
        self.check(optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3, weight_decay=0.01)))


class Helpers(unittest.TestCase):
    @staticmethod
    def loss(w, x):
        return jnp.sum(jnp.sin(checkpoint_name(x @ w, "h")) ** 2)

    def test_saved_residuals(self):
        f = jax.checkpoint(self.loss, policy=P.save_only_these_names("h"))
        res = cj.saved_residuals(f, X.T, X)
        self.assertEqual([t for t, _ in res], ["f32[4,3]", "f32[3,4]", "f32[3,3]"])
        self.assertEqual(res[0][1], "from the argument w")
        self.assertTrue(res[2][1].startswith("named 'h' from "), res[2][1])

    def test_print_saved_residuals(self):
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            cj.print_saved_residuals(self.loss, X.T, X)
        lines = buf.getvalue().splitlines()
        self.assertEqual(lines[0], "f32[4,3] from the argument w")
        self.assertRegex(lines[-1], r"^total: \d+ residuals, \d+ bytes$")

    def test_fwd_bwd(self):
        text = cj.fwd_bwd(self.loss, X.T, X)
        self.assertIn("forward @loss_fwd", text)
        self.assertIn("backward @loss_bwd", text)

    def test_grad_interpreted_and_compiled(self):
        want_v, want_g = jax.value_and_grad(self.loss, argnums=(0, 1))(X.T, X)
        for compiled in (False, True):
            with self.subTest(compiled=compiled):
                value, grads = cj.grad(self.loss, X.T, X, compiled=compiled)
                np.testing.assert_allclose(value, want_v, rtol=1e-5)
                for a, b in zip(grads, want_g):
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    def test_exact_gelu_grad(self):
        # jax.nn.gelu(approximate=False) is erfc; erf alongside it.
        def loss(w, x):
            h = x @ w
            return jnp.sum(jax.nn.gelu(h, approximate=False) + lax.erf(h))
        want_v, want_g = jax.value_and_grad(loss, argnums=(0, 1))(X.T, X)
        for compiled in (False, True):
            with self.subTest(compiled=compiled):
                value, grads = cj.grad(loss, X.T, X, compiled=compiled)
                np.testing.assert_allclose(value, want_v, rtol=1e-5)
                for a, b in zip(grads, want_g):
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    def test_take_gathers(self):
        # Out-of-range ids (8 and -9; -1 is the last row): jnp.take's default mode fills their rows
        # with NaN, mode="clip" clamps them, .at[].add drops their updates. x[ids] and take along
        # axis 1 stay in range. The gradients are scatter-adds and takes (none for dropped rows).
        table = np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4)
        ids = np.array([[1, 8, -1], [1, -9, 0]], np.int32)
        cols = np.array([3, 0, 3], np.int32)

        def loss(t, w):
            a = jnp.take(t, ids, axis=0)
            a = jnp.where(jnp.isnan(a), 3.0, a)
            b = jnp.take(t, ids, axis=0, mode="clip")
            c = t[ids % 6]
            d = jnp.take(t, cols, axis=1)
            e = t.at[ids].add(w)  # rows 8 and -9 dropped, -1 the last
            return (jnp.sum(jnp.sin(a) * w) + jnp.sum(b * b) + jnp.sum(jnp.cos(c)) + jnp.sum(d ** 3)
                    + jnp.sum(jnp.sin(e)))
        w = np.linspace(0.5, 1.5, 24, dtype=np.float32).reshape(2, 3, 4)
        want_v, want_g = jax.value_and_grad(loss, argnums=(0, 1))(table, w)
        for compiled in (False, True):
            with self.subTest(compiled=compiled):
                value, grads = cj.grad(loss, table, w, compiled=compiled)
                np.testing.assert_allclose(value, want_v, rtol=1e-5)
                for a, b in zip(grads, want_g):
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    def _same_grad(self, loss, *args, rtol=1e-5, atol=1e-6):
        """Cotangent's value and gradients of `loss` (interpreted and compiled) equal JAX's, for
        its float arguments."""
        floats = [i for i, a in enumerate(args) if np.issubdtype(np.asarray(a).dtype, np.floating)]
        want_v, want_g = jax.value_and_grad(loss, argnums=tuple(floats))(*args)
        for compiled in (False, True):
            with self.subTest(compiled=compiled):
                value, grads = cj.grad(loss, *args, compiled=compiled)
                np.testing.assert_allclose(value, want_v, rtol=rtol, atol=atol)
                for i, b in zip(floats, want_g):
                    np.testing.assert_allclose(grads[i], b, rtol=rtol, atol=atol)

    def test_cross_entropy_with_integer_labels(self):
        # jnp.take_along_axis(logits, labels[..., None], axis=-1): in JAX 0.10 a gather with
        # operand_batching_dims (0, 1); exported as a jx.take of the flattened logits.
        optax = _optax(self)
        logits = np.random.RandomState(0).randn(2, 5, 7).astype(np.float32)
        labels = np.array([[0, 6, 3, 2, 1], [5, 5, 4, 0, 6]], np.int32)

        def loss(logits, labels):
            return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, labels))
        text = cj.to_jx(loss, logits, labels)
        self.assertIn("jx.take", text)
        np.testing.assert_allclose(tools.interpret(text, "loss", [logits, labels])[0], loss(logits, labels),
                                   rtol=1e-6)
        self._same_grad(loss, logits, labels)

    def test_advanced_indexing_gathers(self):
        # x[jnp.arange(n), ids] (two collapsed, indexed dims), x[i, j], x[ids, :, jds] (the
        # indexed dims apart: the rest moved behind), take_along_axis along a middle axis,
        # x[i] under vmap (a batching dim, the row taken whole), and their scatter-adds.
        rs = np.random.RandomState(1)
        x = rs.randn(4, 6).astype(np.float32)
        a = rs.randn(4, 5, 6).astype(np.float32)
        ids = np.array([5, 0, -1, 2], np.int32)
        jds = np.array([1, 3, 0, -2, 2], np.int32)
        along = rs.randint(0, 5, (4, 3, 6)).astype(np.int32)

        def picked(x, ids):
            return x[jnp.arange(4), ids]
        np.testing.assert_array_equal(tools.interpret(cj.to_jx(picked, x, ids), "picked", [x, ids])[0],
                                      picked(x, ids))
        self._same_grad(lambda x, ids: jnp.sum(jnp.sin(picked(x, ids)) * jnp.arange(1.0, 5.0)), x, ids)

        def loss(a, x, i):
            t = [a[i, 2, 3], a[jds % 4, :, jds], jnp.take_along_axis(a, along, axis=1),
                 jax.vmap(lambda m, k: m[k])(a, ids % 5), a.at[jds % 4, 1, jds].add(x[0, :5]),
                 x.at[jnp.arange(4), ids].add(a[:, 0, 0])]
            return sum(jnp.sum(jnp.sin(v) * (k + 1.0)) for k, v in enumerate(t))
        self._same_grad(loss, a, x, np.int32(3))

    def test_gathers_out_of_range(self):
        # Out-of-range indices: the default (fill) gives NaN or the fill value, clip clamps, and
        # scatter-adds drop their updates; per dimension, as XLA's gather clamps each index.
        a = np.linspace(-1, 1, 120, dtype=np.float32).reshape(4, 5, 6)
        bad = np.array([1, 9, -7, 2, 0], np.int32)

        def f(a):
            return (a.at[bad % 4, :, bad].get(mode="fill", fill_value=2.5),
                    a.at[bad % 4, :, bad].get(mode="clip"),
                    jnp.take_along_axis(a, jnp.broadcast_to(bad[None, :, None], (4, 5, 1)), axis=2),
                    a.at[bad % 4, 1, bad].add(jnp.arange(5.0)))
        ours = tools.interpret(cj.to_jx(f, a), "f", [a])
        for o, w in zip(ours, jax.jit(f)(a)):
            np.testing.assert_array_equal(o, np.asarray(w))
        self._same_grad(lambda a: sum(jnp.sum(jnp.nan_to_num(jnp.sin(v), nan=0.5)) for v in f(a)), a)

    def test_pow_with_an_integer_exponent(self):
        # lax.pow(float, int): the exponent converted to the base's dtype, as JAX lowers it.
        x = np.array([-1.5, -0.5, 0.7, 2.0, -3.0, 1.1], np.float32)
        n = np.array([2, 3, -1, 0, -2, 5], np.int32)

        def f(x, n):
            return jnp.sum(x ** n + 0.5 ** n * x)
        text = cj.to_jx(f, x, n)
        self.assertIn("jx.convert_element_type", text)
        np.testing.assert_allclose(tools.interpret(text, "f", [x, n])[0], f(x, n), rtol=1e-6)
        self._same_grad(f, x, n)

    def test_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            mod = os.path.join(tmp, "model.py")
            with open(mod, "w") as f:
                f.write(textwrap.dedent("""\
                    import jax, jax.numpy as jnp
                    import numpy as np
                    def loss(params, x):
                        return jnp.sum(jnp.tanh(x @ params["w"]))
                    def flat_loss(w, x):
                        return loss({"w": w}, x)
                    def example():
                        return ({"w": np.ones((4, 2), np.float32)}, np.ones((3, 4), np.float32))
                    """))
            run = lambda *a: subprocess.run([sys.executable, "-m", "cotangent_jax"] + list(a),  # noqa: E731
                                            capture_output=True, text=True, env=_env(), cwd=tmp)
            p = run("model:flat_loss", "--shapes", "f32[4,2]", "f32[3,4]", "-o", "out.mlir")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(tmp, "out.mlir")) as f:
                self.assertIn("func.func @flat_loss(", f.read())
            p = run("model.py:loss", "--example", "model:example", "--report")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("from the argument params.w", p.stdout)
            self.assertIn("total: ", p.stdout)
            p = run("model:loss", "--example", "model:example", "--grad")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("d/dparams.w:", p.stdout)

    def test_pip_installs_the_package(self):
        # Offline with the venv's setuptools when it can build a wheel; else pip's usual isolated
        # build, which fetches setuptools from the package index.
        # A copy is built, so that the checkout gets no build/ or *.egg-info.
        import shutil
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
            target = os.path.join(tmp, "target")
            base = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
                    "--target", target]
            p = subprocess.run(base + ["--no-index", "--no-build-isolation", src], capture_output=True, text=True)
            if p.returncode != 0:
                p = subprocess.run(base + [src], capture_output=True, text=True)
            if p.returncode != 0 and any(w in p.stderr + p.stdout for w in
                                         ("NewConnectionError", "No matching distribution", "Could not find")):
                self.skipTest("cannot build the package: no wheel support offline and no package index")
            self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
            self.assertTrue(os.path.isfile(os.path.join(target, "cotangent_jax", "export.py")))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(PACKAGE, "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Unit tests of python/cotangent_jax: what it refuses (every unsupported primitive, policy and
dtype gives a clear error and no IR), how it names policies and arguments, literals, while loops,
the helpers and the command line.

  test_cotangent_jax.py BIN_DIR [unittest options]

Needs JAX and Flax (the `jax` ctest label runs it in the venv of scripts/jax-venv.sh) and the
tools in BIN_DIR.
"""
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
if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
    os.environ["COTANGENT_BIN"] = os.path.abspath(sys.argv.pop(1))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.ad_checkpoint import checkpoint_name  # noqa: E402

import cotangent_jax as cj  # noqa: E402
from cotangent_jax import tools  # noqa: E402

P = jax.checkpoint_policies
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def opt_accepts(text):
    """cotangent-opt parses and verifies the module, and splits it."""
    tools.split_module(text)


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

    def test_general_gather_is_refused(self):
        def f(x, i):
            return jnp.sum(x[i, i])  # two index arrays: a point gather, not one axis' slices
        with self.assertRaises(cj.UnsupportedTypeError) as cm:
            cj.to_jx(f, X, np.array([0, 2], np.int32))
        self.assertIn("jx.take and jx.scatter_add express gathers and scatters of whole slices along one axis",
                      str(cm.exception))

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

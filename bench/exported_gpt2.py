#!/usr/bin/env python3
"""GPT-2 exported from JAX through cotangent_jax, compiled by Cotangent, against jax.jit.

What a JAX user who brings a model gets: the nanoGPT-style GPT-2 of
test/jax/gpt2_jax.py (plain jax.numpy: materialized causal attention,
optax's logsumexp - take_along_axis loss) at the issue's tiny and mid sizes,
exported by cotangent_jax.to_jx, run as one value-and-grad step by
`cotangent-run --vjp --split` (which raises the attention and the loss into
the fused composites, --jx-raise-composites; also timed without it), and
the same function under jax.jit(jax.value_and_grad(...)) in this process, on
the same arguments. Rounds alternate the three so that they see the machine
alike; each figure is the median over the rounds of each round's median.

    build/jax-venv/bin/python bench/exported_gpt2.py [--rounds 3] [--repeat 20] [--sizes tiny,mid]

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for both sides (as
cotangent-bench does), and said so.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    if var in os.environ:
        print(f"exported_gpt2: unsetting {var} (was {os.environ.pop(var)!r}) for this run",
              file=sys.stderr)
sys.path.insert(0, os.path.join(ROOT, "test", "jax"))
sys.path.insert(0, os.path.join(ROOT, "python", "cotangent_jax", "src"))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_platforms", "cpu")
import cotangent_jax  # noqa: E402
from gpt2_jax import gpt2_loss  # noqa: E402

# The rows: layers, heads, width, vocabulary, sequence, batch.
SIZES = {
    "tiny": (2, 4, 128, 512, 64, 8),
    "mid": (4, 8, 256, 2048, 128, 4),
    "124M": (12, 12, 768, 50257, 128, 2),
}


def parameters(layers, width, vocab, seq, rng):
    """Hugging Face-named parameters, GPT-2's initialization scale."""
    shapes = {"wte.weight": (vocab, width), "wpe.weight": (seq, width),
              "ln_f.weight": (width,), "ln_f.bias": (width,)}
    for i in range(layers):
        for ln in ("ln_1", "ln_2"):
            shapes[f"h.{i}.{ln}.weight"] = (width,)
            shapes[f"h.{i}.{ln}.bias"] = (width,)
        for name, shape in (("attn.c_attn", (width, 3 * width)), ("attn.c_proj", (width, width)),
                            ("mlp.c_fc", (width, 4 * width)), ("mlp.c_proj", (4 * width, width))):
            shapes[f"h.{i}.{name}.weight"] = shape
            shapes[f"h.{i}.{name}.bias"] = (shape[1],)
    return {k: (rng.standard_normal(s) * 0.02).astype(np.float32) for k, s in shapes.items()}


def median_ms(text):
    m = re.search(r"time: [0-9.]+ ms min, ([0-9.]+) ms median", text)
    if not m:
        raise RuntimeError("cotangent-run printed no time:\n" + text[-2000:])
    return float(m.group(1))


def peak_bytes(text):
    m = re.search(r"^peak bytes: ([0-9]+)", text, re.M)
    return int(m.group(1)) if m else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--sizes", default="tiny,mid")
    parser.add_argument("--cotangent-run", default=os.path.join(ROOT, "build", "bin", "cotangent-run"))
    args = parser.parse_args()
    unknown = [s for s in args.sizes.split(",") if s not in SIZES]
    if unknown:
        parser.error(f"--sizes: unknown {', '.join(unknown)}; expected some of {', '.join(SIZES)}")
    if args.rounds < 1 or args.repeat < 1:
        parser.error("--rounds and --repeat must be at least 1")
    rng = np.random.default_rng(0)
    print(f"JAX {jax.__version__}, {os.cpu_count()} cores; value-and-grad step, medians of "
          f"{args.rounds} rounds x {args.repeat} runs")
    print(f"{'size':>5} {'batch x seq':>11} | {'raised ms':>9} {'unraised ms':>11} {'JAX ms':>8} | "
          f"{'raised x':>8} {'unraised x':>10} | {'raised MiB':>10} {'unraised MiB':>12}")
    for size in args.sizes.split(","):
        layers, heads, width, vocab, seq, batch = SIZES[size]
        params = parameters(layers, width, vocab, seq, rng)
        ids = rng.integers(0, vocab, (batch, seq), dtype=np.int32)
        targets = rng.integers(0, vocab, (batch, seq), dtype=np.int32)

        def loss(p, i, t):
            return gpt2_loss(p, i, t, layers, heads)

        with tempfile.TemporaryDirectory() as tmp:
            module = os.path.join(tmp, "gpt2.mlir")
            with open(module, "w") as f:
                f.write(cotangent_jax.to_jx(loss, params, ids, targets, name="loss"))
            # Arguments in the exported function's order, by the names it gives
            # them (jx.arg_name: "p.<key>", "i", "t": the loss's parameters).
            with open(module) as f:
                signature = re.search(r"func\.func @loss\((.*?)\) ->", f.read(), re.S).group(1)
            names = re.findall(r'jx\.arg_name = "([^"]+)"', signature)
            values = {"i": ids, "t": targets, **{"p." + k: v for k, v in params.items()}}
            inputs = []
            for n, name in enumerate(names):
                path = os.path.join(tmp, f"a{n:03d}.npy")
                np.save(path, values[name])
                inputs += ["--input", path]
            run = [args.cotangent_run, module, "--fn", "loss", "--vjp", "--split", "--values", "1",
                   "--warmup", "3", "--repeat", str(args.repeat), *inputs]
            step = jax.jit(jax.value_and_grad(loss))
            jp = jax.tree_util.tree_map(jnp.asarray, params)
            ji, jt = jnp.asarray(ids), jnp.asarray(targets)
            jax.block_until_ready(step(jp, ji, jt))
            raised, unraised, jaxs = [], [], []
            peaks = {}
            for _ in range(args.rounds):
                for key, extra, out in (("raised", [], raised),
                                        ("unraised", ["--raise-composites=false"], unraised)):
                    text = subprocess.run(run + extra, check=True, capture_output=True,
                                          text=True).stdout
                    out.append(median_ms(text))
                    peaks[key] = peak_bytes(text)
                for _ in range(3):
                    jax.block_until_ready(step(jp, ji, jt))
                times = []
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    jax.block_until_ready(step(jp, ji, jt))
                    times.append((time.perf_counter() - start) * 1e3)
                jaxs.append(statistics.median(times))
        r, u, j = (statistics.median(x) for x in (raised, unraised, jaxs))
        print(f"{size:>5} {f'{batch} x {seq}':>11} | {r:9.2f} {u:11.2f} {j:8.2f} | {r / j:8.2f} "
              f"{u / j:10.2f} | {peaks['raised'] / 2**20:10.1f} {peaks['unraised'] / 2**20:12.1f}",
              flush=True)


if __name__ == "__main__":
    main()

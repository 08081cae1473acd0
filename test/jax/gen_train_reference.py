#!/usr/bin/env python3
"""Writes the JAX + optax loss curve of cotangent-train's built-in run.

The run: GPT-2 tiny (models/gpt2) on the bytes of Debian's
/usr/share/common-licenses/GPL-3 (base-files: on every Debian machine),
batch 8 x 64, 200 steps of optax.chain(clip_by_global_norm(1.0),
adamw(warmup_cosine_decay_schedule(0, 1e-3, 10, 200, 1e-4), b1 0.9, b2 0.95,
eps 1e-8, weight_decay 0.1, no decay on biases and LayerNorms)), seed 0.
It starts from cotangent-train's own initialization (its step-0 checkpoint,
read with Python's safetensors), draws the same batches (data/Batches.cpp's
splitmix64 windows over the head of the tokens, the last 10% held out) and
runs the same model in jax.numpy at float32 "highest" precision. Run it in
the venv of scripts/jax-venv.sh after building; the output,
test/jax/reference/train-tiny.json, is committed and read by ctest's
train-reference-curve without Python.

  gen_train_reference.py --train build/bin/cotangent-train [--out FILE]
"""
import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np
import optax
from safetensors.numpy import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_jax import gpt2_loss  # noqa: E402

jax.config.update("jax_default_matmul_precision", "highest")

TEXT = "/usr/share/common-licenses/GPL-3"
RUN = {"preset": "tiny", "n_layer": 2, "n_head": 4, "n_embd": 128, "batch": 8, "seq": 64,
       "steps": 200, "lr": 1e-3, "warmup": 10, "weight_decay": 0.1, "clip": 1.0, "seed": 0}
M64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def batches(tokens, batch, seq, seed, steps):
    """data/Batches.cpp: the head of the tokens (10% held out), window starts by splitmix64."""
    tail = max(math.ceil(len(tokens) * 0.1), seq + 1)
    head = tokens[:len(tokens) - tail]
    windows = len(head) - seq
    for step in range(steps):
        starts = [splitmix64(seed ^ splitmix64(step * batch + r)) % windows for r in range(batch)]
        rows = np.stack([head[s:s + seq + 1] for s in starts]).astype(np.int32)
        yield rows[:, :-1], rows[:, 1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", required=True, help="the cotangent-train binary")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "reference", "train-tiny.json"))
    a = parser.parse_args()
    raw = open(TEXT, "rb").read()
    tokens = np.frombuffer(raw, np.uint8).astype(np.int32)
    r = RUN
    with tempfile.TemporaryDirectory() as tmp:
        shard = os.path.join(tmp, "text.bin")
        subprocess.run([a.train, "prepare", TEXT, shard], check=True, stdout=subprocess.DEVNULL)
        # One step with checkpoints: step-00000000 is the initialization.
        subprocess.run([a.train, "--data", shard, "--steps", "1", "--batch", str(r["batch"]),
                        "--seq", str(r["seq"]), "--seed", str(r["seed"]), "--checkpoint-dir", tmp,
                        "--peak-tflops", "1"], check=True, stdout=subprocess.DEVNULL)
        init = load_file(os.path.join(tmp, "step-00000000.safetensors"))
    params = {k: jnp.asarray(v) for k, v in init.items() if not k.startswith("opt_state/")}
    decayed = {k: not (k.endswith(".bias") or ".ln_" in k or k.startswith("ln_")) for k in params}
    tx = optax.chain(
        optax.clip_by_global_norm(r["clip"]),
        optax.adamw(optax.warmup_cosine_decay_schedule(0.0, r["lr"], r["warmup"], r["steps"], r["lr"] * 0.1),
                    b1=0.9, b2=0.95, eps=1e-8, weight_decay=r["weight_decay"], mask=decayed))
    state = tx.init(params)

    @jax.jit
    def step(params, state, ids, targets):
        loss, grads = jax.value_and_grad(gpt2_loss)(params, ids, targets, r["n_layer"], r["n_head"])
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    losses = []
    for ids, targets in batches(tokens, r["batch"], r["seq"], r["seed"], r["steps"]):
        params, state, loss = step(params, state, ids, targets)
        losses.append(float(loss))
    doc = {"jax": jax.__version__, "optax": optax.__version__, "text": TEXT,
           "text_sha256": hashlib.sha256(raw).hexdigest(), "run": RUN, "losses": losses}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {a.out}: loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

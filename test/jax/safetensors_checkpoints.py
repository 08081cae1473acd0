#!/usr/bin/env python3
"""cotangent-train's checkpoints in Python's safetensors, both ways.

1. A checkpoint cotangent-train writes reads with `safetensors.numpy.load_file`: every parameter
   under Hugging Face's GPT-2 name with its shape, the optimizer state under opt_state/, the
   step and data position in the metadata.
2. A GPT-2 checkpoint in Hugging Face's naming, written by `safetensors.numpy.save_file` (as
   `model.safetensors` holds them: some with a `transformer.` prefix, the attention mask buffers
   `h.N.attn.bias` beside them), is what `cotangent-train --init-from` starts from: its step 0
   checkpoint holds exactly those weights. A file with one weight of the wrong shape is refused
   naming that tensor.

  safetensors_checkpoints.py BIN_DIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

TINY = {"n_layer": 2, "n_embd": 128, "vocab": 512, "context": 64}


def hf_shapes():
    c = TINY["n_embd"]
    shapes = {"wte.weight": (TINY["vocab"], c), "wpe.weight": (TINY["context"], c),
              "ln_f.weight": (c,), "ln_f.bias": (c,)}
    for i in range(TINY["n_layer"]):
        b = f"h.{i}."
        shapes.update({b + "ln_1.weight": (c,), b + "ln_1.bias": (c,),
                       b + "attn.c_attn.weight": (c, 3 * c), b + "attn.c_attn.bias": (3 * c,),
                       b + "attn.c_proj.weight": (c, c), b + "attn.c_proj.bias": (c,),
                       b + "ln_2.weight": (c,), b + "ln_2.bias": (c,),
                       b + "mlp.c_fc.weight": (c, 4 * c), b + "mlp.c_fc.bias": (4 * c,),
                       b + "mlp.c_proj.weight": (4 * c, c), b + "mlp.c_proj.bias": (c,)})
    return shapes


def main():
    train = os.path.join(sys.argv[1], "cotangent-train")
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "text.txt")
        with open(text, "w") as f:
            f.write("Cotangent trains GPT-2 on any text, byte by byte. " * 40)
        data = os.path.join(tmp, "text.bin")
        subprocess.run([train, "prepare", text, data], check=True, stdout=subprocess.DEVNULL)
        common = ["--data", data, "--batch", "2", "--seq", "16", "--peak-tflops", "1"]

        # 1. Ours, read by Python.
        ckpt = os.path.join(tmp, "ckpt")
        subprocess.run([train, *common, "--steps", "3", "--checkpoint-dir", ckpt],
                       check=True, stdout=subprocess.DEVNULL)
        path = os.path.join(ckpt, "step-00000003.safetensors")
        tensors = load_file(path)
        for name, shape in hf_shapes().items():
            assert tensors[name].shape == shape and tensors[name].dtype == np.float32, name
        assert any(k.startswith("opt_state/") and k.endswith("mu['wte']['weight']") for k in tensors)
        with safe_open(path, "np") as f:
            meta = f.metadata()
        assert meta["step"] == "3" and meta["data_position"] == "3" and meta["preset"] == "tiny", meta
        print(f"read {path}: {len(tensors)} tensors, step {meta['step']}")

        # 2. Hugging Face's naming, into --init-from.
        rng = np.random.default_rng(7)
        hf = {("transformer." if i % 2 else "") + name: rng.standard_normal(shape).astype(np.float32)
              for i, (name, shape) in enumerate(sorted(hf_shapes().items()))}
        for i in range(TINY["n_layer"]):
            hf[f"h.{i}.attn.bias"] = np.tril(np.ones((1, 1, 64, 64), np.float32))
        hf_path = os.path.join(tmp, "model.safetensors")
        save_file(hf, hf_path, metadata={"format": "pt"})
        start = os.path.join(tmp, "start")
        subprocess.run([train, *common, "--steps", "1", "--init-from", hf_path,
                        "--checkpoint-dir", start], check=True, stdout=subprocess.DEVNULL)
        loaded = load_file(os.path.join(start, "step-00000000.safetensors"))
        for name in hf_shapes():
            given = hf.get(name, hf.get("transformer." + name))
            assert np.array_equal(loaded[name], given), name
        print(f"--init-from {hf_path}: step 0 holds its {len(hf_shapes())} weights bit for bit")

        wrong = dict(hf)
        wrong["h.1.mlp.c_fc.weight"] = np.zeros((4, 4), np.float32)
        wrong_path = os.path.join(tmp, "wrong.safetensors")
        save_file(wrong, wrong_path)
        r = subprocess.run([train, *common, "--steps", "1", "--init-from", wrong_path],
                           capture_output=True, text=True)
        assert r.returncode == 1, r
        assert "tensor 'h.1.mlp.c_fc.weight' is F32[4,4], the run needs f32[128,512]" in r.stderr, r.stderr
        print("a weight of the wrong shape is refused by name")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The benchmark MLP (bench/MlpModel.cpp) as jx IR, for the GPU check.

Layers h = tanh(h @ W_l) with each dot named "dot" (jx.checkpoint_name),
loss = sum(h). Policies: none; nothing_saveable or dots_saveable around each
layer (jax.checkpoint per layer); offload: the whole model under
save_and_offload_only_these_names([], ["dot"], "device", "pinned_host"), so
every layer's dot waits in pinned host memory; dots_on_device: the whole model
under save_only_these_names("dot"), the same residuals held on the device
(what the offload's device peak is measured against).

    gen-mlp.py --layers 8 --width 1024 --batch 256 --policy dots_saveable > mlp.mlir
"""
import argparse

POLICIES = {
    "nothing_saveable": "nothing_saveable",
    "dots_saveable": "dots_saveable",
    "offload": 'save_and_offload_only_these_names([], ["dot"], "device", "pinned_host")',
    "dots_on_device": 'save_only_these_names("dot")',
}
WHOLE_MODEL = ("offload", "dots_on_device")  # one checkpoint around every layer


def layer(out, h, w, i, indent):
    t = out.t
    out.line(f"%d{i} = jx.dot_general {h}, {w}, contracting_dims = [1] x [0], "
             f"batch_dims = [] x [] : {t('h')}, {t('w')} -> {t('h')}", indent)
    out.line(f'%n{i} = jx.checkpoint_name %d{i}, "dot" : {t("h")}', indent)
    out.line(f"%h{i + 1} = jx.tanh %n{i} : {t('h')}", indent)
    return f"%h{i + 1}"


class Writer:
    def __init__(self, batch, width):
        self.types = {"h": f"tensor<{batch}x{width}xf32>", "w": f"tensor<{width}x{width}xf32>"}
        self.lines = []

    def t(self, kind):
        return self.types[kind]

    def line(self, text, indent=1):
        self.lines.append("  " * indent + text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--policy", choices=["none", *POLICIES], default="none")
    a = parser.parse_args()
    out = Writer(a.batch, a.width)
    h_t, w_t = out.t("h"), out.t("w")
    ws = [f"%w{i}" for i in range(a.layers)]
    args = ", ".join([f"%x: {h_t}"] + [f"{w}: {w_t}" for w in ws])
    out.lines.append(f"// {a.layers} layers of tanh(h @ W), width {a.width}, batch {a.batch}, "
                     f"policy {a.policy} (bench/gpu/gen-mlp.py)")
    out.lines.append(f"func.func @mlp({args}) -> tensor<f32> {{")
    h = "%x"
    if a.policy in WHOLE_MODEL:
        types = ", ".join([h_t] + [w_t] * a.layers)
        out.line(f"%out = jx.remat(%x, {', '.join(ws)}) : ({types}) -> {h_t}")
        out.line(f"    policy = #jx.policy<{POLICIES[a.policy]}> {{")
        inner = ", ".join([f"%a: {h_t}"] + [f"%b{i}: {w_t}" for i in range(a.layers)])
        out.line(f"^bb0({inner}):")
        h = "%a"
        for i in range(a.layers):
            h = layer(out, h, f"%b{i}", i, 2)
        out.line(f"jx.yield {h} : {h_t}", 2)
        out.line("}")
        h = "%out"
    else:
        for i in range(a.layers):
            if a.policy == "none":
                h = layer(out, h, ws[i], i, 1)
                continue
            out.line(f"%r{i} = jx.remat({h}, {ws[i]}) : ({h_t}, {w_t}) -> {h_t}")
            out.line(f"    policy = #jx.policy<{POLICIES[a.policy]}> {{")
            out.line(f"^bb0(%a{i}: {h_t}, %b{i}: {w_t}):")
            y = layer(out, f"%a{i}", f"%b{i}", i, 2)
            out.line(f"jx.yield {y} : {h_t}", 2)
            out.line("}")
            h = f"%r{i}"
    out.line(f"%loss = jx.reduce_sum {h}, axes = [0, 1] : {h_t} -> tensor<f32>")
    out.line("return %loss : tensor<f32>")
    out.lines.append("}")
    print("\n".join(out.lines))


if __name__ == "__main__":
    main()

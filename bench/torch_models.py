"""GPT-2 in PyTorch: the program of gpt2_loss in bench/jax_models.py.

Written as a PyTorch user would write it, with PyTorch's fused CPU
building blocks (F.scaled_dot_product_attention, F.layer_norm, F.gelu,
F.cross_entropy), so that torch.compile's partitioner sees the graph it
sees in practice. The parameters are the nn.Parameters of one module, in
gpt2_shapes' order and shapes (weights [in, out], as Cotangent and the JAX
side lay them out); the logits reuse wte (tied). Shared by
bench/torch_cpu.py.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# models/gpt2/Config.cpp's presets: layers, heads, width, vocab, context.
PRESETS = {
    "tiny": dict(layers=2, heads=4, width=128, vocab=512, context=64),
    "124M": dict(layers=12, heads=12, width=768, vocab=50257, context=1024),
    "350M": dict(layers=24, heads=16, width=1024, vocab=50257, context=1024),
    "774M": dict(layers=36, heads=20, width=1280, vocab=50257, context=1024),
    "1558M": dict(layers=48, heads=25, width=1600, vocab=50257, context=1024),
}

EPS = 1e-5  # GPT-2's layer norm epsilon


def config_of(row):
    """The sizes of a bench row: its preset's, or its own fields (heads
    default to width / 64, GPT-2's head size)."""
    if row.get("preset"):
        config = dict(PRESETS[row["preset"]])
    else:
        config = {k: int(row[k]) for k in ("layers", "width", "vocab", "context")}
        config["heads"] = int(row.get("heads") or config["width"] // 64)
    if config["width"] % config["heads"]:
        raise ValueError(f"{config['heads']} heads do not divide width {config['width']}")
    return config


def _uniform(shape, generator):
    # uniform(-0.05, 0.05), as jax_cpu.py draws GPT-2's parameters.
    return nn.Parameter(torch.rand(shape, generator=generator) * 0.1 - 0.05)


class Block(nn.Module):
    def __init__(self, c, heads, generator):
        super().__init__()
        self.heads = heads
        # Registration order is gpt2_shapes' per-block order.
        for name, shape in [("ln1_b", (c,)), ("ln1_w", (c,)), ("attn_b", (3 * c,)),
                            ("attn_w", (c, 3 * c)), ("proj_b", (c,)), ("proj_w", (c, c)),
                            ("ln2_b", (c,)), ("ln2_w", (c,)), ("fc_b", (4 * c,)),
                            ("fc_w", (c, 4 * c)), ("mproj_b", (c,)), ("mproj_w", (4 * c, c))]:
            setattr(self, name, _uniform(shape, generator))

    def forward(self, x):
        b, t, c = x.shape
        h = F.layer_norm(x, (c,), self.ln1_w, self.ln1_b, EPS)
        # F.linear takes [out, in]; the transposed view lets it fuse the
        # bias into one addmm without copying the [in, out] weight.
        q, k, v = F.linear(h, self.attn_w.t(), self.attn_b).split(c, dim=-1)
        q, k, v = (u.view(b, t, self.heads, c // self.heads).transpose(1, 2) for u in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).reshape(b, t, c)
        x = x + F.linear(y, self.proj_w.t(), self.proj_b)
        h = F.layer_norm(x, (c,), self.ln2_w, self.ln2_b, EPS)
        h = F.gelu(F.linear(h, self.fc_w.t(), self.fc_b), approximate="tanh")
        return x + F.linear(h, self.mproj_w.t(), self.mproj_b)


class GPT2(nn.Module):
    """forward(ids, targets) -> the mean next-token cross-entropy."""

    def __init__(self, layers, heads, width, vocab, context, generator=None):
        super().__init__()
        self.wte = _uniform((vocab, width), generator)
        self.wpe = _uniform((context, width), generator)
        self.blocks = nn.ModuleList(Block(width, heads, generator) for _ in range(layers))
        # A child module, not parameters of this one: parameters() yields a
        # module's own before its children's, and the final norm comes last.
        self.ln_f = nn.Module()
        self.ln_f.bias = _uniform((width,), generator)
        self.ln_f.weight = _uniform((width,), generator)

    def forward(self, ids, targets):
        t = ids.shape[1]
        x = F.embedding(ids, self.wte) + self.wpe[:t]
        for block in self.blocks:
            x = block(x)
        x = F.layer_norm(x, (x.shape[-1],), self.ln_f.weight, self.ln_f.bias, EPS)
        logits = F.linear(x, self.wte)  # tied: x @ wte^T
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def gpt2_arguments(config, batch, seq, seed=2):
    """The model (parameters uniform(-0.05, 0.05)) and int64 ids and
    targets [batch, seq], random in the vocabulary."""
    if seq > config["context"]:
        raise ValueError(f"seq {seq} exceeds the context {config['context']}")
    g = torch.Generator().manual_seed(seed)
    model = GPT2(config["layers"], config["heads"], config["width"], config["vocab"],
                 config["context"], generator=g)
    ids, targets = (torch.randint(0, config["vocab"], (batch, seq), generator=g)
                    for _ in range(2))
    return model, ids, targets

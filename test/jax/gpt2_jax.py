"""GPT-2 of models/gpt2 in plain jax.numpy, on a dict of Hugging Face-named parameters: the
reference the generators of test/jax/ (gen_gpt2_reference.py, gen_train_reference.py) share."""
import math

import jax
import jax.numpy as jnp
import optax


def gpt2_loss(p, ids, targets, n_layer, n_head, matmul_dtype=None):
    """The mean next-token cross-entropy (optax's integer-label loss) of models/gpt2. With
    matmul_dtype (jnp.bfloat16) every matmul's operands are cast to it and the product back to
    float32, as models/gpt2's ModelOptions::matmul_dtype does."""
    def mm(a, b, spec=None):
        if matmul_dtype is not None:
            a, b = a.astype(matmul_dtype), b.astype(matmul_dtype)
        out = jnp.einsum(spec, a, b) if spec else a @ b
        return out.astype(jnp.float32)

    def ln(x, n):
        c = x - x.mean(-1, keepdims=True)
        return c * jax.lax.rsqrt((c * c).mean(-1, keepdims=True) + 1e-5) * p[n + ".weight"] + p[n + ".bias"]

    def lin(x, n):
        return mm(x, p[n + ".weight"]) + p[n + ".bias"]

    b, t = ids.shape
    c = p["wte.weight"].shape[1]
    d = c // n_head
    x = p["wte.weight"][ids] + p["wpe.weight"][:t]
    for i in range(n_layer):
        qkv = lin(ln(x, f"h.{i}.ln_1"), f"h.{i}.attn.c_attn")
        q, k, v = (jnp.transpose(qkv[..., j * c:(j + 1) * c].reshape(b, t, n_head, d), (0, 2, 1, 3))
                   for j in range(3))
        s = mm(q, k, "bhqd,bhkd->bhqk") / math.sqrt(d)
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, jnp.finfo(jnp.float32).min)
        y = mm(jax.nn.softmax(s, axis=-1), v, "bhqk,bhkd->bqhd").reshape(b, t, c)
        x = x + lin(y, f"h.{i}.attn.c_proj")
        x = x + lin(jax.nn.gelu(lin(ln(x, f"h.{i}.ln_2"), f"h.{i}.mlp.c_fc"), approximate=True),
                    f"h.{i}.mlp.c_proj")
    logits = mm(ln(x, "ln_f"), p["wte.weight"].T)
    return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, targets))

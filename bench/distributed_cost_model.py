#!/usr/bin/env python3
"""On paper: GPT-2 124M and 1558M trained data-parallel on 8, 64 and 512 H100s.

    python3 bench/distributed_cost_model.py

Prints markdown tables (docs/distributed.md, "On paper: many GPUs"): the compute rates the model
starts from, step time and memory per GPU for plain data parallelism (DP: one all-reduce of the
gradients) and ZeRO-1 (reduce-scatter of the gradients, AdamW on 1/p of the parameters, all-gather
of the updated parameters), and up to how many GPUs the backward hides the gradient reduction.
Nothing here is measured on many GPUs: compute comes from one measured single-device step, or
from llm.c's published step, and communication from the alpha-beta cost of NCCL's ring and tree.
Python's standard library only; the output is deterministic.
"""

import math

# --- The models (docs/training.md, "The model"; models/gpt2) -------------------------------------
# Parameters include wte (tied to the logits), wpe, 12 d^2 + 13 d per block and ln_f.
MODELS = {
    "124M": dict(layers=12, heads=12, width=768, params=124_439_808),
    "1558M": dict(layers=48, heads=25, width=1600, params=1_557_611_200),
}
VOCAB = 50_257
VOCAB_PADDED = 50_304  # llm.c pads wte's rows to a multiple of 128 (its logits buffer)
SEQ = 1024

# FLOPs per token of a training step: 6 N (forward 2, backward 4 per parameter: Kaplan et al. 2020,
# "Scaling Laws for Neural Language Models", section 2.1) plus attention's 12 L T d (QK^T and AV,
# forward and backward, no causal discount: PaLM's appendix B). docs/training.md counts the same.
# (llm.c's gpt2_estimate_mfu in train_gpt2.cu counts 6 L T d since 2024-06-05, i.e. a causal half.)

# --- Compute: achieved FLOP/s, from a measured step -----------------------------------------------
H100_BF16_DENSE = 989e12  # FLOP/s, H100 SXM bf16 dense (llm.c's llmc/mfu.h computes 988.8)
H100_HBM = 3.35e12  # bytes/s, H100 SXM HBM3
HBM_ACHIEVED = 0.8  # assumed fraction of HBM bandwidth a fused AdamW kernel reaches
ADAMW_BYTES = 28  # per parameter: read p, g, m, v (f32: 16) + write p, m, v (12); bf16+master: 28 too

# Ours: docs/gpu.md, "GPT-2 124M on an H200", policy none, TF32: Cotangent's loss-and-gradient step
# of GPT-2 124M on 4 x 1024 tokens, median of 20, on an H200 (the H100's GH100 chip and peaks, more
# HBM bandwidth); no optimizer in it. JAX's row ("JAX default") is the same program under XLA.
OURS_STEP = dict(model="124M", tokens=4 * 1024, seconds=54.6e-3)
# The same table's device peaks (arguments excluded, gradients included), to check the activations:
# 6,411,517,956 bytes without checkpoints, 2,512 MiB under nothing_saveable per block.
OURS_PEAK = {"none": 6_411_517_956, "nothing_saveable per block": 2512 * 2**20}
JAX_STEP = dict(model="124M", tokens=4 * 1024, seconds=34.8e-3)
# llm.c (github.com/karpathy/llm.c, scripts/run_gpt2_1558M.sh): GPT-2 1558M in bf16 on 8x H100 80GB
# SXM, 1,048,576 tokens a step (16 x 1024 per GPU, 8 accumulation steps, ZeRO-1) at 2.80 s a step;
# the whole step, communication and AdamW included. Its rate is taken as the compute rate.
LLMC_1558M = dict(model="1558M", tokens=1_048_576, seconds=2.80, gpus=8)
# scripts/run_gpt2_124M.sh: GPT-2 124M on 8x A100 80GB SXM, 524,288 tokens a step, ~300 ms.
LLMC_124M_A100 = dict(model="124M", tokens=524_288, seconds=0.300, gpus=8)
A100_BF16_DENSE = 312e12

# --- Communication: NCCL on H100 SXM nodes of 8 GPUs ---------------------------------------------
GPUS_PER_NODE = 8
# Ring bus bandwidth inside a node: NVLink 4 is 450 GB/s per direction per GPU; NCCL reaches about
# 370 GB/s busbw with its protocol overhead (NCCL's maintainer, github.com/NVIDIA/nccl-tests/issues/212;
# NVLink SHARP all-reduce peaks near 480, not assumed here).
NVLINK_BUSBW = 370e9
# Across nodes: one 400 Gb/s NDR NIC per GPU, 46-48 GB/s each in nccl-tests
# (github.com/NVIDIA/nccl-tests/issues/290). NCCL runs one ring per NIC, so a ring that spans nodes
# crosses them on 8 NICs at once: busbw = min(NVLink, 8 x NIC) (8x HDR 200 Gb/s DGX A100 nodes
# measure 192 GB/s: github.com/NVIDIA/nccl/issues/1576).
NIC_BW = 46e9
INTER_BUSBW = min(NVLINK_BUSBW, GPUS_PER_NODE * NIC_BW)
# Latency (NCCL's own tuning model, src/graph/tuning.cc, Simple protocol, in seconds): a base per
# call, then per ring step 3.4 us over NVLink and 14 us over the network; a tree pays 4.0 us per
# NVLink hop and 14 us per level of its log2(nodes) levels, each way. NCCL's tree all-reduce
# reaches 0.92 of the ring's bandwidth (same file).
BASE_LAT = 8.4e-6
RING_STEP_NVLINK, RING_STEP_NET = 3.4e-6, 14e-6
TREE_HOP_NVLINK, TREE_LEVEL_NET = 4.0e-6, 14e-6
TREE_BW_FACTOR = 0.92

# --- The runs -------------------------------------------------------------------------------------
GLOBAL_BATCH = {"124M": 524_288, "1558M": 1_048_576}  # tokens a step, llm.c's (fixed as p grows)
GPU_COUNTS = (8, 64, 512)
MEMORY_BUDGET = 72 * 2**30  # bytes per GPU for states + activations (H100 80GB: 79.6 GiB usable)


def flops_per_token(m):
    return 6 * m["params"] + 12 * m["layers"] * SEQ * m["width"]


def block_params(m):
    d = m["width"]
    return 12 * d * d + 13 * d


def check_params():
    for m in MODELS.values():
        d = m["width"]
        assert VOCAB * d + SEQ * d + m["layers"] * block_params(m) + 2 * d == m["params"]


def rate(step):
    """Achieved FLOP/s per GPU of a measured step."""
    return flops_per_token(MODELS[step["model"]]) * step["tokens"] / step["seconds"] / step.get("gpus", 1)


# Two numerics: (name, FLOP/s, gradient bytes, state bytes DP, state bytes ZeRO-1 as (kept, /p),
# activations per token and layer, activations of the loss per token, remat keeps per token and layer)
def numerics():
    return [
        dict(name="f32 (ours)", rate=rate(OURS_STEP), grad=4, dp_state=16, zero=(8, 8),
             # f32 activations, attention scores kept (as our step does), no dropout:
             # Korthikanti et al. 2022's 34 s b h + 5 a s^2 b (16-bit, dropout masks included)
             # without the masks and dropout outputs is 32 h + 2 a s bytes a token; twice in f32.
             act=lambda m: 2 * (32 * m["width"] + 2 * m["heads"] * SEQ),
             loss=2 * VOCAB * 4,  # f32 logits and their gradient, both alive at the loss
             keep=lambda m: 4 * m["width"]),
        dict(name="bf16 (llm.c's rate)", rate=rate(LLMC_1558M), grad=2, dp_state=16, zero=(4, 12),
             # bf16 params and grads, f32 AdamW m, v and master weights; flash attention (cuDNN in
             # llm.c) keeps no scores: 32 h bytes a token and layer.
             act=lambda m: 32 * m["width"],
             loss=2 * VOCAB_PADDED,  # one bf16 logits buffer, its gradient written in place
             keep=lambda m: 2 * m["width"]),
    ]


def nodes(p):
    return max(1, p // GPUS_PER_NODE)


def ring_time(nbytes, p, steps_per_rank):
    """steps_per_rank: 2 for an all-reduce, 1 for a reduce-scatter or an all-gather."""
    if p == 1:
        return 0.0
    n = nodes(p)
    bw = NVLINK_BUSBW if n == 1 else INTER_BUSBW
    net_steps = steps_per_rank * (n - 1)
    lat = BASE_LAT + (steps_per_rank * (p - 1) - net_steps) * RING_STEP_NVLINK + net_steps * RING_STEP_NET
    return lat + steps_per_rank * (p - 1) / p * nbytes / bw


def tree_allreduce_time(nbytes, p):
    n = nodes(p)
    bw = TREE_BW_FACTOR * (NVLINK_BUSBW if n == 1 else INTER_BUSBW)
    lat = BASE_LAT + 2 * ((min(p, GPUS_PER_NODE) - 1) * TREE_HOP_NVLINK + math.log2(n) * TREE_LEVEL_NET)
    return lat + 2 * (p - 1) / p * nbytes / bw


def allreduce_time(nbytes, p):
    """NCCL picks the faster of ring and tree; reduce-scatter and all-gather have the ring only."""
    return min(ring_time(nbytes, p, 2), tree_allreduce_time(nbytes, p)) if p > 1 else 0.0


def buckets(m, grad_bytes):
    """Gradient buckets in the order the backward finishes them (llm.c's: one per block, from the
    last; then wte + wpe + ln_f, whose gradient is complete only after the embedding's backward)."""
    rest = m["params"] - m["layers"] * block_params(m)
    return [block_params(m) * grad_bytes] * m["layers"] + [rest * grad_bytes]


def overlap(m, t_tok, tokens, grad_bytes, cost):
    """Exposed communication after the last micro-step's backward. The backward is 2/3 of a
    token's FLOPs; it runs the loss and head first, then the blocks from the last; each bucket is
    reduced on a second stream in order as soon as it is complete. Returns (backward seconds,
    communication seconds, exposed seconds, the least exposure possible: the last block's bucket
    and the final one, both complete only as the backward ends)."""
    head_flops = 6 * (m["params"] - m["layers"] * block_params(m))
    block_flops = 6 * block_params(m) + 12 * SEQ * m["width"]
    scale = t_tok / flops_per_token(m) * tokens * 2 / 3
    t, comm_end, total = head_flops * scale, 0.0, 0.0
    sizes = buckets(m, grad_bytes)
    for b in sizes[:-1]:
        t += block_flops * scale
        c = cost(b)
        comm_end = max(comm_end, t) + c
        total += c
    last = cost(sizes[-1])
    total += last
    end = max(comm_end, t) + last
    return t, total, end - t, cost(sizes[-2]) + last


def opt_time(nparams):
    return ADAMW_BYTES * nparams / (H100_HBM * HBM_ACHIEVED)


def micro_batch(m, nx, tokens_per_gpu, state_bytes, remat=False):
    """The largest power-of-two number of sequences (up to the GPU's share) that fits."""
    best = 0
    seqs = 1
    while seqs * SEQ <= tokens_per_gpu:
        if state_bytes + seqs * SEQ * act_per_token(m, nx, remat) <= MEMORY_BUDGET:
            best = seqs
        seqs *= 2
    return best


def act_per_token(m, nx, remat):
    if remat:  # block inputs kept, one block's activations alive while it is recomputed
        return m["layers"] * nx["keep"](m) + nx["act"](m) + nx["loss"]
    return m["layers"] * nx["act"](m) + nx["loss"]


def gb(x):
    return f"{x / 1e9:.1f}"


def ms(x):
    return f"{x * 1e3:.3g}" if x < 1 else f"{x * 1e3:,.0f}"


def tokens_per_s(x):
    return f"{x / 1e3:.0f}k" if x < 1e6 else f"{x / 1e6:.2f}M"


def step(name, nx, p):
    m, g = MODELS[name], GLOBAL_BATCH[name]
    t_tok = flops_per_token(m) / nx["rate"]
    per_gpu = g // p
    seqs = micro_batch(m, nx, per_gpu, nx["dp_state"] * m["params"])
    if seqs == 0:
        raise SystemExit(f"{name}, {nx['name']}: not one sequence fits in the memory budget")
    micro = seqs * SEQ
    compute = per_gpu * t_tok
    bwd, comm, exposed, tail = overlap(m, t_tok, micro, nx["grad"], lambda b: allreduce_time(b, p))
    dp = compute + exposed + opt_time(m["params"])
    # ZeRO-1: reduce-scatter overlapped like the all-reduce; AdamW on N/p; then the all-gather of
    # the updated parameters (as many bytes as the gradients), not overlapped (llm.c overlaps it with
    # the rest of AdamW only).
    _, _, rs_exposed, _ = overlap(m, t_tok, micro, nx["grad"], lambda b: ring_time(b, p, 1))
    ag = sum(ring_time(b, p, 1) for b in buckets(m, nx["grad"]))
    z1 = compute + rs_exposed + opt_time(m["params"] / p) + ag
    single = g * t_tok + opt_time(m["params"])
    return dict(name=name, g=g, per_gpu=per_gpu, seqs=seqs, accum=per_gpu // micro, compute=compute,
                bwd=bwd, comm=comm, exposed=exposed, tail=tail, dp=dp, z1=z1,
                eff_dp=single / (p * dp), eff_z1=single / (p * z1))


def main():
    check_params()
    nxs = numerics()

    print("Compute rates (FLOPs a token: 6 N + 12 L T d)")
    print()
    print("| source | model | tokens a step | step | TFLOP/s per GPU | of bf16 dense peak |")
    print("|---|---|---|---|---|---|")
    rows = [("Cotangent, TF32, 1 H200 (measured, loss + grad)", OURS_STEP, H100_BF16_DENSE),
            ("JAX/XLA, default precision, 1 H200 (measured, loss + grad)", JAX_STEP, H100_BF16_DENSE),
            ("llm.c, bf16, 8 H100 (published, whole step)", LLMC_1558M, H100_BF16_DENSE),
            ("llm.c, bf16, 8 A100 (published, whole step)", LLMC_124M_A100, A100_BF16_DENSE)]
    for label, s, peak in rows:
        r = rate(s)
        print(f"| {label} | {s['model']} | {s['tokens']:,} | {ms(s['seconds'])} ms | {r / 1e12:.1f} | "
              f"{100 * r / peak:.1f}% |")
    print()

    print("Step time, fixed global batch (124M: 524,288 tokens; 1558M: 1,048,576), per-GPU micro-batch")
    print("the largest that fits without remat; times in ms")
    print()
    print("| model | numerics | GPUs | micro-batch x accum. | compute | last backward | all-reduce | "
          "exposed | DP step | tokens/s | DP eff. | ZeRO-1 step | ZeRO-1 eff. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in MODELS:
        for nx in nxs:
            for p in GPU_COUNTS:
                s = step(name, nx, p)
                print(f"| {name} | {nx['name']} | {p} | {s['seqs']} x {s['accum']} | {ms(s['compute'])} | "
                      f"{ms(s['bwd'])} | {ms(s['comm'])} | {ms(s['exposed'])} | {ms(s['dp'])} | "
                      f"{tokens_per_s(s['g'] / s['dp'])} | {100 * s['eff_dp']:.0f}% | {ms(s['z1'])} | "
                      f"{100 * s['eff_z1']:.0f}% |")
    print()

    print("Where overlap stops hiding the all-reduce: p doubling from 8 while every GPU has a sequence;")
    print("'hidden' when every block's bucket but the last is reduced before the backward ends (the last")
    print("block's and wte's buckets are complete only then, so they are always exposed)")
    print()
    print("| model | numerics | hidden up to p | exposed there | not hidden from p | exposed there | "
          "of that step |")
    print("|---|---|---|---|---|---|---|")
    for name in MODELS:
        for nx in nxs:
            hidden, first, p = None, None, 8
            while p * SEQ <= GLOBAL_BATCH[name]:
                s = step(name, nx, p)
                if s["exposed"] <= s["tail"] * (1 + 1e-9):
                    hidden = (p, s) if first is None else hidden
                elif first is None:
                    first = (p, s)
                p *= 2
            cells = [f"{hidden[0]} | {ms(hidden[1]['exposed'])}" if hidden else "- | -"]
            if first:
                fp, fs = first
                cells.append(f"{fp} | {ms(fs['exposed'])} | {100 * fs['exposed'] / fs['dp']:.0f}%")
            else:
                cells.append("- | - | -")
            print(f"| {name} | {nx['name']} | {' | '.join(cells)} |")
    print()

    print("Memory per GPU in GB: states (weights, gradients, AdamW), activations of one 1024-token")
    print(f"sequence, and how many sequences fit in a {MEMORY_BUDGET / 2**30:.0f} GiB budget")
    print()
    print("| model | numerics | DP states | ZeRO-1 states p=8 / 64 / 512 | activations a sequence | "
          "same, per-block remat | fit: DP | DP + remat | ZeRO-1 at 64 + remat |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in MODELS.items():
        for nx in nxs:
            n = m["params"]
            dp_state = nx["dp_state"] * n
            z = [nx["zero"][0] * n + nx["zero"][1] * n / p for p in GPU_COUNTS]
            big = 1 << 20
            fit = micro_batch(m, nx, big * SEQ, dp_state)
            fit_r = micro_batch(m, nx, big * SEQ, dp_state, remat=True)
            fit_z = micro_batch(m, nx, big * SEQ, z[1], remat=True)
            print(f"| {name} | {nx['name']} | {gb(dp_state)} | {' / '.join(gb(x) for x in z)} | "
                  f"{gb(SEQ * act_per_token(m, nx, False))} | {gb(SEQ * act_per_token(m, nx, True))} | "
                  f"{fit} | {fit_r} | {fit_z} |")

    print()
    print("Check of the activation formulas against the H200's measured peaks (docs/gpu.md): GPT-2 124M,")
    print("f32, 4 x 1024 tokens, gradients + activations (the model adds what is alive at different times)")
    print()
    print("| policy | modeled GB | measured GB |")
    print("|---|---|---|")
    m, nx = MODELS["124M"], nxs[0]
    for policy, remat in (("none", False), ("nothing_saveable per block", True)):
        model = nx["grad"] * m["params"] + OURS_STEP["tokens"] * act_per_token(m, nx, remat)
        print(f"| {policy} | {model / 1e9:.2f} | {OURS_PEAK[policy] / 1e9:.2f} |")


if __name__ == "__main__":
    main()

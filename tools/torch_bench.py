#!/usr/bin/env python3
"""The same workloads as `bench`, in PyTorch on the same GPU, for side-by-side figures.

Conv net: eager fp32 (TF32 off, cuDNN autotuning on) and eager fp16 with channels_last; SSA: eager fp32 and
eager bf16 (the model's weights and activations in bfloat16, as the engine's bf16 mode stores them), and how far
PyTorch's own bf16 outputs land from its fp32 ones (the yardstick for the engine's bf16 `compare` figures).
Timing: CUDA events around each forward pass after warm-up, median of many runs, inputs rotated among three
random (seeded) sets so the cache does not flatter. Compute only (inputs already on the device).

    /opt/torch/.venv/bin/python3 tools/torch_bench.py --out-dir results   # the GPU machine's PyTorch [--batches-convnet 1,16,...] [--batches-ssa ...]

Writes torch_convnet.json and torch_ssa.json in bench's JSON form (so `bench --replot` draws them beside the
engine's lines) and prints one line per point.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from export import load_model  # noqa: E402  (the trained weights, as the exporter loads them)

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "weights")


def time_forward(model, inputs, warmup, iterations):
    """Median / p90 milliseconds of model(x) over rotated inputs, timed with CUDA events."""
    with torch.inference_mode():
        for i in range(warmup):
            model(inputs[i % len(inputs)])
        torch.cuda.synchronize()
        times = []
        for i in range(iterations):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(inputs[i % len(inputs)])
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def iterations_for(batch, per_sample_us):
    """Enough runs for a stable median without spending more than ~2 s per point."""
    est_ms = max(batch * per_sample_us / 1000.0, 0.02)
    return max(10, min(200, int(2000 / est_ms)))


def run(name, variant, model, shape, batches, dtype, channels_last, per_sample_us):
    rows = []
    gen = torch.Generator(device="cuda").manual_seed(1234)
    for b in batches:
        try:
            inputs = []
            for _ in range(3):
                x = torch.rand((b, *shape), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
                if channels_last:
                    x = x.contiguous(memory_format=torch.channels_last)
                inputs.append(x)
            iters = iterations_for(b, per_sample_us)
            p50, p90 = time_forward(model, inputs, warmup=5, iterations=iters)
            rows.append({"model": name, "path": f"torch-{variant}", "batch": b, "status": "ok",
                         "compute_only": {"runs": iters, "p50_ms": p50, "p90_ms": p90,
                                          "throughput_samples_per_s": b / (p50 / 1000.0)},
                         "throughput_samples_per_s": b / (p50 / 1000.0)})
            print(f"{name:8s} torch-{variant:22s} batch {b:6d}: {p50:9.3f} ms  {b / (p50 / 1000.0):12.0f} samples/s",
                  flush=True)
        except torch.cuda.OutOfMemoryError as e:
            rows.append({"model": name, "path": f"torch-{variant}", "batch": b, "status": "skipped",
                         "reason": f"out of memory: {e}"})
        finally:
            torch.cuda.empty_cache()
    return rows


def bf16_deviation(model, batch, seeds):
    """Per output, the largest |bf16 - fp32| and the share of values outside atol = rtol = 0.02 (compare's bf16
    default), PyTorch against itself on uniform [0, 1) inputs like `compare`'s random ones."""
    import copy
    low = copy.deepcopy(model).to(torch.bfloat16)
    with torch.inference_mode():
        for seed in seeds:
            gen = torch.Generator(device="cuda").manual_seed(seed)
            x = torch.rand((batch, 320), generator=gen, device="cuda")
            ref, got = model(x), low(x.to(torch.bfloat16))
            for name, a, b in zip(("recon", "latent"), ref, got):
                diff = (b.float() - a).abs()
                bad = (diff > 0.02 + 0.02 * a.abs()).float().mean().item() * 100
                need = (diff - 0.02 * a.abs()).max().item()
                print(f"ssa      torch bf16 vs fp32 seed {seed} batch {batch} {name:6s}: max abs {diff.max().item():.3e}, "
                      f"outside atol=rtol=0.02 {bad:.3f}%, smallest passing atol (rtol 0.02) {max(need, 0):.3e}",
                      flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--batches-convnet", default="1,16,128,1000,10000,50000")
    ap.add_argument("--batches-ssa", default="1,32,512,4096,65536")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_bench.py: no CUDA device")
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    conv_b = [int(v) for v in args.batches_convnet.split(",")]
    ssa_b = [int(v) for v in args.batches_ssa.split(",")]
    rows = []
    conv = load_model("convnet", WEIGHTS).cuda().eval()
    rows += run("convnet", "eager-fp32", conv, (1, 86, 86), conv_b, torch.float32, False, 2.0)
    conv16 = load_model("convnet", WEIGHTS).cuda().eval().half().to(memory_format=torch.channels_last)
    rows += run("convnet", "eager-fp16-channels_last", conv16, (1, 86, 86), conv_b, torch.float16, True, 1.0)
    ssa = load_model("ssa", WEIGHTS).cuda().eval()
    rows += run("ssa", "eager-fp32", ssa, (320,), ssa_b, torch.float32, False, 1.0)
    ssa16 = load_model("ssa", WEIGHTS).cuda().eval().to(torch.bfloat16)
    rows += run("ssa", "eager-bf16", ssa16, (320,), ssa_b, torch.bfloat16, False, 1.0)
    bf16_deviation(ssa, 64, (7, 8))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in ("convnet", "ssa"):
        info = {"tool": "torch_bench", "name": name, "model": f"weights/{name}.pt", "precision": "fp32",
                "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                "cudnn": torch.backends.cudnn.version(), "time": time.strftime("%Y-%m-%d %H:%M:%S"),
                "results": [r for r in rows if r["model"] == name]}
        path = os.path.join(args.out_dir, f"torch_{name}.json")
        with open(path, "w") as f:
            json.dump(info, f, indent=1)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

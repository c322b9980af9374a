"""The SSA under torch.compile (mode max-autotune, bf16): the best PyTorch peer of the whole-model step, timed
the way torch_bench.py times eager PyTorch (CUDA events, median, 3 rotated random inputs), in the same GPU call
as the engine's bench.

    /opt/torch/.venv/bin/python3 tools/torch_compile_ssa.py --batches 32,512,4096 --out torch_compile_ssa.json

It runs on the GPU machine's Python with PyTorch (as tools/torch_bench.py does), not the project's tooling.
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import WEIGHTS, iterations_for, load_model, time_forward  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", default="32,512,4096")
    ap.add_argument("--mode", default="max-autotune")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    model = load_model("ssa", WEIGHTS).cuda().eval().to(torch.bfloat16)
    compiled = torch.compile(model, mode=args.mode, dynamic=False)
    gen = torch.Generator(device="cuda").manual_seed(1234)
    rows = []
    for b in [int(v) for v in args.batches.split(",")]:
        inputs = [torch.rand((b, 320), generator=gen, device="cuda").to(torch.bfloat16) for _ in range(3)]
        start = time.time()
        with torch.inference_mode():
            compiled(inputs[0])
        compile_s = time.time() - start
        p50, p90 = time_forward(compiled, inputs, warmup=10, iterations=iterations_for(b, 1.0))
        rows.append({"model": "ssa", "path": f"torch-compile-{args.mode}-bf16", "batch": b, "p50_ms": p50,
                     "p90_ms": p90, "compile_s": compile_s})
        print(f"ssa torch.compile {args.mode} bf16 batch {b:6d}: {p50:9.4f} ms (compile {compile_s:.0f} s)",
              flush=True)
    with open(args.out, "w") as f:
        json.dump({"tool": "torch_compile_ssa", "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                   "results": rows}, f, indent=1)


if __name__ == "__main__":
    main()

"""onnxruntime (CPU execution provider) on the engine's models, timed like `bench --paths cpu` (median of runs
over 3 rotated random input sets, after warm-up), for the side-by-side comparison of tools/ort_compare.sh.
onnxruntime is a measurement tool here, never a dependency of the engine.

    python ort_bench.py --model weights/convnet.onnx --batch 1000 --threads 2 --ms 3000
"""
import argparse
import json
import statistics
import time

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--ms", type=float, default=3000.0, help="timed duration (at least 5 runs)")
    args = ap.parse_args()
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    session = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    decl = session.get_inputs()[0]
    shape = [args.batch] + [d for d in decl.shape[1:]]
    rng = np.random.default_rng(0)
    inputs = [rng.random(shape, dtype=np.float32) for _ in range(3)]
    for i in range(3):
        session.run(None, {decl.name: inputs[i % 3]})
    times = []
    end = time.perf_counter() + args.ms / 1000.0
    while time.perf_counter() < end or len(times) < 5:
        x = inputs[len(times) % 3]
        t0 = time.perf_counter()
        session.run(None, {decl.name: x})
        times.append((time.perf_counter() - t0) * 1000.0)
    print(json.dumps({"tool": "onnxruntime", "version": ort.__version__, "model": args.model, "batch": args.batch,
                      "threads": args.threads, "runs": len(times), "p50_ms": statistics.median(times),
                      "min_ms": min(times)}))


if __name__ == "__main__":
    main()

"""python -m inferengine.infer: the infer tool's main job from Python, on the same library.

    python -m inferengine.infer --config configs/convnet.yaml \\
        --input /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz \\
        --labels /usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz --output out/probs.npy --top-k 3

Reads the input (IDX, .npy or raw), runs it in batches through a Pipeline (batches in flight), prints the same
report as the C++ tool (accuracy with --labels, MSE with --target) and writes the outputs and a top-k CSV. Exit
codes are the tools': 1 a check failed, 2 usage, 3 bad input, 4 device, 6 NaN or Inf in an output.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import inferengine as ie


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m inferengine.infer", description=__doc__.split("\n")[0])
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--config", help="model config (YAML): model, pre-processing, class names")
    model.add_argument("--model", help="any single-input ONNX model")
    p.add_argument("--form", default="legacy", choices=["legacy", "dynamo"], help="with --config: which export")
    p.add_argument("--input", "-i", required=True, help="input file (.npy, IDX(.gz), raw with --shape/--dtype)")
    p.add_argument("--shape", help="shape of a raw input: 2x3x4")
    p.add_argument("--dtype", help="dtype of a raw input: float32")
    p.add_argument("--output", "-o", help="output .npy/.csv (single-output models) or folder")
    p.add_argument("--labels", help="labels file: print the accuracy of the first output's argmax")
    p.add_argument("--min-accuracy", type=float, help="exit 1 when the accuracy is below this")
    p.add_argument("--target", help="target file: print the MSE of the first output against it")
    p.add_argument("--top-k", type=int, default=0, help="write the k best classes per sample as CSV beside --output")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda", "cuda-reference"])
    p.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"])
    p.add_argument("--batch-size", "-b", type=int, default=0, help="samples per batch (default: the config's)")
    p.add_argument("--threads", type=int, default=0, help="CPU worker threads (0: all cores)")
    p.add_argument("--devices", help="GPUs to serve on: all, or 0,1 (batches dealt to them in turn)")
    p.add_argument("--json", action="store_true", help="print a JSON report as the last line")
    a = p.parse_args(argv)
    if a.batch_size < 0 or a.top_k < 0 or a.threads < 0:
        p.error("--batch-size, --top-k and --threads take numbers >= 0")
    if a.top_k and not a.output:
        p.error("--top-k needs --output (the top-k CSV goes beside it)")
    if a.min_accuracy is not None and not a.labels:
        p.error("--min-accuracy needs --labels")
    return a


def read_input(a):
    shape = [int(d) for d in a.shape.replace(",", "x").split("x")] if a.shape else None
    return ie.read_tensor(a.input, shape=shape, dtype=a.dtype)


def load_engine(a, x):
    """The engine for this input: with a config, raw data (the config's raw dtype) runs its pre-processing."""
    kw = dict(backend=a.backend, precision=a.precision, threads=a.threads, devices=a.devices)
    if not a.config:
        return ie.Engine.load(a.model, **kw)
    engine = ie.Engine.load(a.config, form=a.form, **kw)
    if engine.inputs[0].dtype != x.dtype.name:
        engine = ie.Engine.load(a.config, form=a.form, preprocess=False, **kw)
    return engine


def run_batches(engine, x, batch_size):
    """Outputs of every batch, joined along the first dimension, and the seconds the runs took. The batches go
    through a Pipeline (the next one uploads while the previous one computes; on several devices, dealt in turn);
    planning, tuning and first-run costs are paid in prepare(), as setup, as in the C++ tool."""
    name = engine.inputs[0].name
    starts = range(0, len(x), batch_size)
    pipe = engine.pipeline()
    shapes = [x[:batch_size]] + ([x[starts[-1]:]] if len(x) % batch_size else [])
    pipe.prepare([{name: s} for s in shapes])
    t0 = time.perf_counter()
    parts = pipe.run({name: x[b:b + batch_size]} for b in starts)
    seconds = time.perf_counter() - t0
    outputs = {o.name: np.concatenate([p[o.name] for p in parts]) for o in engine.outputs}
    return outputs, len(parts), seconds


def output_paths(output, names):
    if output.lower().endswith((".npy", ".csv")):
        if len(names) != 1:
            raise ie.UsageError(f"the model has {len(names)} outputs: --output must be a folder")
        return [output]
    return [os.path.join(output, n + ".npy") for n in names]


def top_k_path(output):
    root, ext = os.path.splitext(output)
    return os.path.join(output, "top_k.csv") if not ext else root + "_top_k.csv"


def write_top_k(path, probs, k, class_names):
    if k > probs.shape[-1]:
        raise ie.UsageError(f"--top-k {k} is more than the {probs.shape[-1]} classes")
    best = np.argsort(-probs, axis=1, kind="stable")[:, :k]
    lines = ["sample," + ",".join(f"class_{r},score_{r}" for r in range(1, k + 1))]
    for i, row in enumerate(best):
        cells = [f"{class_names[c] if c < len(class_names) else c},{probs[i, c]:.6g}" for c in row]
        lines.append(f"{i}," + ",".join(cells))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def main(argv=None):
    a = parse_args(argv)
    x = read_input(a)
    engine = load_engine(a, x)
    batch = a.batch_size or engine.batch_size or len(x)
    outputs, batches, seconds = run_batches(engine, x, batch)
    names = [o.name for o in engine.outputs]
    for n in names:
        if outputs[n].dtype.kind == "f" and not np.isfinite(outputs[n]).all():
            raise ie.NonFiniteError(f"output '{n}' holds NaN or Inf values; nothing was written")
    report = {"backend": engine.backend, "precision": a.precision, "model": a.config or a.model,
              "batch_size": min(batch, len(x)), "samples": len(x), "batches": batches, "seconds": seconds,
              "samples_per_s": len(x) / seconds if seconds > 0 else 0.0}
    threads = f" (threads {a.threads or os.cpu_count()})" if engine.backend == "cpu" else ""
    print(f"model: {report['model']}")
    print(f"backend: {engine.backend}{threads}, precision {a.precision}")
    print(f"samples: {len(x)} in {batches} batch{'es' if batches > 1 else ''} of up to {report['batch_size']}")
    print(f"throughput: {report['samples_per_s']:.1f} samples/s ({seconds:.3f} s)")
    first = outputs[names[0]]
    code = 0
    if a.labels:
        labels = ie.read_tensor(a.labels).astype(np.int64).reshape(-1)
        if labels.shape[0] != len(x):
            raise ie.BadInputError(f"--labels {a.labels} holds {labels.shape[0]} labels for {len(x)} samples")
        report["accuracy"] = float((first.argmax(axis=1) == labels).mean())
        print(f"accuracy: {report['accuracy']:.4g}")
        if a.min_accuracy is not None and report["accuracy"] < a.min_accuracy:
            print(f"infer: accuracy {report['accuracy']:.4g} is below --min-accuracy {a.min_accuracy}", file=sys.stderr)
            code = 1
    if a.target:
        target = ie.read_tensor(a.target)
        report["mse"] = float(np.mean((first.astype(np.float64) - target.reshape(first.shape)) ** 2))
        print(f"mse: {report['mse']:.4e}")
    if a.output:
        paths = output_paths(a.output, names)
        for n, path in zip(names, paths):
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            ie.write_tensor(path, outputs[n])
            print(f"wrote {n} [{','.join(map(str, outputs[n].shape))}] -> {path}")
        report["outputs"] = [{"name": n, "file": p, "shape": list(outputs[n].shape)} for n, p in zip(names, paths)]
        if a.top_k:
            path = top_k_path(a.output)
            write_top_k(path, first, a.top_k, engine.class_names)
            print(f"wrote top-{a.top_k} classes -> {path}")
    if a.json:
        print(json.dumps(report))
    return code


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ie.Error as e:
        print(f"infer: error: {e}", file=sys.stderr)
        sys.exit(e.exit_code)

"""Exports the trained ConvNet and SSA to ONNX in both of PyTorch's exporter forms, checks every file with
onnxruntime against PyTorch, and prints each file's node-type counts.

Writes, into --weights-dir (default weights/):
    convnet.onnx                               legacy TorchScript exporter (dynamo=False), opset 17, one file
    convnet_dynamo.onnx + convnet_dynamo.onnx.data   dynamo exporter, opset 20, weights as external data
    ssa.onnx, ssa_dynamo.onnx + ssa_dynamo.onnx.data  the same for the SSA
Inputs and outputs: convnet  x [batch, 1, 86, 86] -> probs [batch, 10]
                    ssa      x [batch, 320] -> recon [batch, 320], latent [batch, 32]
The batch dimension is dynamic (named "batch") in every file.

    python3 models/export.py                     # both models, from weights/convnet.pt and weights/ssa.pt
    python3 models/export.py --models ssa --weights-dir /tmp/w
    python3 models/export.py --random-weights --weights-dir /tmp/w     # untrained, seeded: no .pt needed
Exit status: 0 when every export and check passed, 1 otherwise (the messages say which and why).
"""
import argparse
import collections
import os
import sys
import traceback
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch

import common
import spectra
from convnet import ConvNet
from ssa import SpectralShapeAutoencoder

LEGACY_OPSET = 17
DYNAMO_OPSET = 20
TOLERANCE = 1e-4
CHECK_BATCHES = (1, 7)

MODELS = {
    "convnet": dict(make=ConvNet, inputs=["x"], outputs=["probs"], example_shape=(2, 1, 86, 86)),
    "ssa": dict(make=SpectralShapeAutoencoder, inputs=["x"], outputs=["recon", "latent"], example_shape=(2, 320)),
}

# What shared/specs/models.md's last section says the exporters write (PyTorch 2.11, onnx 1.23).
SPEC_OPS = {
    ("convnet", "legacy"): (11, {"Conv", "MaxPool", "Relu", "Flatten", "Gemm", "Softmax"}),
    ("convnet", "dynamo"): (None, {"Conv", "Gemm", "MaxPool", "Relu", "Reshape", "Softmax"}),
    ("ssa", "legacy"): (358, {"Add", "Cast", "Concat", "Constant", "Div", "Erf", "Gather", "Gemm", "Identity",
                              "LayerNormalization", "MatMul", "Mul", "Reshape", "Shape", "Slice", "Softmax",
                              "Sub", "Transpose", "Unsqueeze"}),
    ("ssa", "dynamo"): (123, {"Add", "Concat", "Div", "Gelu", "Gemm", "LayerNormalization", "MatMul", "Mul",
                              "Reshape", "Slice", "Softmax", "Sub", "Transpose", "Unsqueeze"}),
}


class ExportError(RuntimeError):
    pass


def load_model(name, weights_dir, random_weights=False):
    if random_weights:   # seeded initial weights: files for engine tests before (or without) training
        torch.manual_seed(0)
        return MODELS[name]["make"]().eval()
    path = os.path.join(weights_dir, f"{name}.pt")
    if not os.path.exists(path):
        raise ExportError(f"{path} not found: train first (models/train_{name}.py)")
    model = MODELS[name]["make"]()
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(state, strict=True)
    return model.eval()


def export_legacy(name, model, path):
    spec = MODELS[name]
    example = torch.rand(spec["example_shape"])
    dynamic_axes = {n: {0: "batch"} for n in spec["inputs"] + spec["outputs"]}
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)   # "legacy exporter": chosen on purpose
            torch.onnx.export(model, (example,), path, dynamo=False, opset_version=LEGACY_OPSET,
                              input_names=spec["inputs"], output_names=spec["outputs"],
                              dynamic_axes=dynamic_axes, do_constant_folding=True)
    except Exception as e:
        raise ExportError(f"{name}: legacy export (torch.onnx.export dynamo=False, opset {LEGACY_OPSET}) failed "
                          f"with torch {torch.__version__}: {type(e).__name__}: {e}") from e


def _dynamic_shape_choices():
    from torch.export import Dim
    yield 'Dim("batch", min=1)', Dim("batch", min=1)
    yield 'Dim("batch")', Dim("batch")
    if hasattr(Dim, "DYNAMIC"):
        yield "Dim.DYNAMIC", Dim.DYNAMIC


def export_dynamo(name, model, path):
    """dynamo=True, opset 20, batch dynamic, weights in <path>.data. Tries Dim("batch", min=1) first and
    falls back to Dim("batch") / Dim.DYNAMIC (saying so) where a torch version refuses min=1."""
    spec = MODELS[name]
    example = torch.rand(spec["example_shape"])
    errors = []
    for label, dim in _dynamic_shape_choices():
        try:
            with torch.no_grad():
                program = torch.onnx.export(model, (example,), dynamo=True, opset_version=DYNAMO_OPSET,
                                            input_names=spec["inputs"], output_names=spec["outputs"],
                                            dynamic_shapes=({0: dim},), optimize=True)
        except Exception as e:
            errors.append(f"  with {label}: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e) else ''}")
            common.log(f"{name}: dynamo export with {label} failed, trying the next form:\n{errors[-1]}")
            continue
        if program is None:
            raise ExportError(f"{name}: torch.onnx.export(dynamo=True) returned no ONNXProgram")
        data_path = path + ".data"
        for stale in (path, data_path):
            if os.path.exists(stale):
                os.remove(stale)
        try:
            program.save(path, external_data=True)
        except TypeError:   # older ONNXProgram.save signature: fall back to onnx's own external-data writer
            onnx.save_model(program.model_proto, path, save_as_external_data=True, all_tensors_to_one_file=True,
                            location=os.path.basename(data_path), size_threshold=0)
        if not os.path.exists(data_path):
            raise ExportError(f"{name}: dynamo export wrote {path} but no external data file {data_path}")
        common.log(f"{name}: dynamo export used {label}")
        return label
    raise ExportError(f"{name}: dynamo export (torch.onnx.export dynamo=True, opset {DYNAMO_OPSET}) failed with "
                      f"torch {torch.__version__}, onnxscript {_version('onnxscript')} in every form tried:\n"
                      + "\n".join(errors))


def _version(mod):
    try:
        return __import__(mod).__version__
    except Exception:
        return "missing"


def node_counts(path):
    """op type -> count over the main graph (and, if any, the model's local functions, listed apart)."""
    model = onnx.load(path, load_external_data=False)
    counts = collections.Counter(n.op_type for n in model.graph.node)
    fn_counts = collections.Counter(n.op_type for f in model.functions for n in f.node)
    opset = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    return model, counts, fn_counts, opset


def describe_io(model):
    def dims(vi):
        return [d.dim_param if d.dim_param else d.dim_value for d in vi.type.tensor_type.shape.dim]
    return ([(i.name, dims(i)) for i in model.graph.input], [(o.name, dims(o)) for o in model.graph.output])


def check_file(name, model, path, form):
    """Runs the file with onnxruntime at batch 1 and 7 and compares with PyTorch (float32)."""
    proto, counts, fn_counts, opset = node_counts(path)
    ins, outs = describe_io(proto)
    spec = MODELS[name]
    problems = []
    if [n for n, _ in ins] != spec["inputs"] or [n for n, _ in outs] != spec["outputs"]:
        problems.append(f"names: inputs {ins}, outputs {outs}; expected {spec['inputs']} -> {spec['outputs']}")
    for n, d in ins + outs:
        if not d or not isinstance(d[0], str):
            problems.append(f"{n}: batch dimension is not symbolic ({d})")
    external = [t.name for t in proto.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    if form == "dynamo" and not external:
        problems.append("no initializer is stored as external data")
    if form == "legacy" and external:
        problems.append(f"{len(external)} initializers are external; the legacy file should hold its weights")

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    worst = 0.0
    for b in CHECK_BATCHES:
        if name == "convnet":
            x = torch.rand((b, 1, 86, 86), generator=torch.Generator().manual_seed(100 + b))
        else:
            x = torch.from_numpy(spectra.generate(b, 100 + b))
        with torch.no_grad():
            ref = model(x)
        ref = [ref] if isinstance(ref, torch.Tensor) else list(ref)
        got = sess.run(spec["outputs"], {"x": x.numpy()})
        for oname, r, g in zip(spec["outputs"], ref, got):
            if tuple(g.shape) != tuple(r.shape):
                problems.append(f"batch {b}: {oname} shape {g.shape}, PyTorch {tuple(r.shape)}")
                continue
            err = float(np.max(np.abs(g.astype(np.float64) - r.numpy().astype(np.float64))))
            worst = max(worst, err)
            if not err < TOLERANCE:
                problems.append(f"batch {b}: {oname} max abs error {err:.3g} >= {TOLERANCE}")

    total = sum(counts.values())
    lines = [f"{os.path.basename(path)} ({form}, opsets {opset}): {total} nodes; onnxruntime vs PyTorch max abs "
             f"error {worst:.3g} at batches {CHECK_BATCHES}; inputs {ins}; outputs {outs}"]
    lines.append("    " + ", ".join(f"{op} {c}" for op, c in sorted(counts.items())))
    if fn_counts:
        lines.append("    in local functions: " + ", ".join(f"{op} {c}" for op, c in sorted(fn_counts.items())))
    spec_total, spec_ops = SPEC_OPS[(name, form)]
    ops = set(counts) | set(fn_counts)
    notes = []
    if spec_total is not None and spec_total != total:
        notes.append(f"{total} nodes where the spec saw {spec_total}")
    if ops - spec_ops:
        notes.append(f"op types the spec does not list: {sorted(ops - spec_ops)}")
    if spec_ops - ops:
        notes.append(f"spec op types absent here: {sorted(spec_ops - ops)}")
        if "Identity" in spec_ops - ops:
            notes.append("(the legacy exporter writes Identity only for initializers of identical values, e.g. "
                         "the all-ones/all-zeros LayerNorm parameters of an untrained SSA: 12 of them)")
    lines.append("    vs spec: " + ("; ".join(notes) if notes else "same op types"
                                      + (f" and node count ({total})" if spec_total else "")))
    print("\n".join(lines), flush=True)
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights-dir", default=common.DEFAULT_WEIGHTS_DIR)
    p.add_argument("--models", default="convnet,ssa", help="comma-separated: convnet, ssa")
    p.add_argument("--forms", default="legacy,dynamo", help="comma-separated: legacy, dynamo")
    p.add_argument("--check-only", action="store_true", help="check existing files, export nothing")
    p.add_argument("--random-weights", action="store_true",
                   help="export seeded, untrained models instead of <weights-dir>/*.pt (for engine tests)")
    args = p.parse_args()
    env = {"torch": torch.__version__, "onnx": onnx.__version__, "onnxscript": _version("onnxscript"),
           "onnxruntime": ort.__version__}
    common.log("export with " + ", ".join(f"{k} {v}" for k, v in env.items()))

    os.makedirs(args.weights_dir, exist_ok=True)
    failures = []
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        if name not in MODELS:
            raise SystemExit(f"unknown model {name!r}; choose from {sorted(MODELS)}")
        try:
            model = load_model(name, args.weights_dir, args.random_weights)
        except ExportError as e:
            failures.append(str(e))
            common.log(f"FAILED: {e}")
            continue
        for form in [f.strip() for f in args.forms.split(",") if f.strip()]:
            path = os.path.join(args.weights_dir, f"{name}.onnx" if form == "legacy" else f"{name}_dynamo.onnx")
            try:
                if not args.check_only:
                    common.log(f"{name}: exporting {form} -> {path}")
                    (export_legacy if form == "legacy" else export_dynamo)(name, model, path)
                problems = check_file(name, model, path, form)
            except ExportError as e:
                problems = [str(e)]
            except Exception as e:   # a check that crashed: say where, keep going with the other files
                traceback.print_exc()
                problems = [f"{type(e).__name__}: {e}"]
            for msg in problems:
                failures.append(f"{os.path.basename(path)}: {msg}")
                common.log(f"FAILED {os.path.basename(path)}: {msg}")
    if failures:
        common.log(f"{len(failures)} problem(s):\n  " + "\n  ".join(failures))
        sys.exit(1)
    common.log("every export and check passed")


if __name__ == "__main__":
    main()

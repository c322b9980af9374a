"""Writes reference inputs and PyTorch outputs into weights/reference/ for the engine's end-to-end tests.

Every output is computed in float64 (model.double() on the float32 input cast to double; saved as *_fp64.npy
in float64 and as *_fp64_as_fp32.npy rounded to float32) and in float32 (*_fp32.npy). The float64 run
evaluates the float32 model exactly as exported: its weights (and the SSA's RoPE tables) are the float32
values, widened. The small batches are computed on the CPU. All files are .npy (C order, little-endian).

ConvNet (weights/convnet.pt):
    convnet_input_raw.npy            uint8   [7, 28, 28]     Fashion-MNIST test images 0..6
    convnet_labels.npy               int64   [7]             their labels
    convnet_input.npy                float32 [7, 1, 86, 86]  pre-processed (models/convnet.py: preprocess, float32)
    convnet_probs_{fp64,fp64_as_fp32,fp32}.npy   [7, 10]
    convnet_test_predictions.npy     int64   [10000]         float64 top-1 class of every test image
                                                             (pre-processing in float32, the model in float64)
SSA (weights/ssa.pt):
    ssa_input.npy                    float32 [7, 320]        spectra.generate(7, seed 1234)
    ssa_{recon,latent}_{fp64,fp64_as_fp32,fp32}.npy  [7, 320] / [7, 32]
    ssa_mse_input.npy                float32 [1000, 320]     spectra.generate(1000, seed 1234) (its first 7
                                                             rows are ssa_input.npy)
manifest.json: what each file is, and the figures: the float64 test accuracy (and how many test images have
a top-1/top-2 probability margin small enough to flip under float32), and the SSA reconstruction MSE on the
1,000 spectra (float64 and float32) with their variance.

    python3 models/make_references.py
    python3 models/make_references.py --weights-dir /tmp/w --test-limit 500     # smoke test
"""
import argparse
import json
import os

import numpy as np
import torch

import common
import fashion_mnist
import spectra
from convnet import ConvNet, preprocess
from ssa import SpectralShapeAutoencoder

BATCH = 7
SSA_MSE_COUNT = 1000


def load(model, path):
    if not os.path.exists(path):
        raise SystemExit(f"{path} not found: train first")
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True), strict=True)
    return model.eval()


def save(out_dir, name, array, manifest, meaning):
    array = np.ascontiguousarray(array)
    np.save(os.path.join(out_dir, name), array)
    manifest["files"][name] = {"dtype": str(array.dtype), "shape": list(array.shape), "meaning": meaning}


def three_ways(model, x32):
    """-> (fp64 outputs, fp32 outputs) as lists of numpy arrays; model is float32, on the CPU."""
    with torch.no_grad():
        out32 = model(x32)
        model64 = model.double()
        out64 = model64(x32.double())
        model.float()
    as_list = lambda o: [o] if isinstance(o, torch.Tensor) else list(o)
    return [t.numpy() for t in as_list(out64)], [t.numpy() for t in as_list(out32)]


def save_outputs(out_dir, prefix, names, out64, out32, manifest, what):
    for name, o64, o32 in zip(names, out64, out32):
        save(out_dir, f"{prefix}_{name}_fp64.npy", o64, manifest, f"{what}: {name}, computed in float64")
        save(out_dir, f"{prefix}_{name}_fp64_as_fp32.npy", o64.astype(np.float32), manifest,
             f"{what}: {name}, computed in float64, rounded to float32")
        save(out_dir, f"{prefix}_{name}_fp32.npy", o32, manifest, f"{what}: {name}, computed in float32")
        diff = float(np.max(np.abs(o64 - o32.astype(np.float64))))
        manifest["figures"][f"{prefix}_{name}_fp32_vs_fp64_max_abs"] = diff


def convnet_refs(args, out_dir, manifest, device):
    model = load(ConvNet(), os.path.join(args.weights_dir, "convnet.pt"))
    images, labels = fashion_mnist.load("test", args.data_dir)
    raw = images[:BATCH]
    x32 = preprocess(raw)
    save(out_dir, "convnet_input_raw.npy", raw, manifest, "Fashion-MNIST test images 0..6, uint8")
    save(out_dir, "convnet_labels.npy", labels[:BATCH], manifest, "labels of test images 0..6")
    save(out_dir, "convnet_input.npy", x32.numpy(), manifest,
         "test images 0..6 pre-processed in float32 (/255, bilinear 86x86, half-pixel)")
    out64, out32 = three_ways(model, x32)
    save_outputs(out_dir, "convnet", ["probs"], out64, out32, manifest, "ConvNet on convnet_input.npy")

    n = min(args.test_limit or len(labels), len(labels))
    model64 = model.to(device).double()
    preds, margins = [], []
    with torch.no_grad():
        for i in range(0, n, 500):
            x = preprocess(torch.from_numpy(images[i:min(i + 500, n)]).to(device)).double()
            p = model64(x)
            top2 = torch.topk(p, 2, dim=1).values
            preds.append(p.argmax(dim=1).cpu())
            margins.append((top2[:, 0] - top2[:, 1]).cpu())
    preds = torch.cat(preds).numpy().astype(np.int64)
    margins = torch.cat(margins).numpy()
    accuracy = float((preds == labels[:n]).mean())
    save(out_dir, "convnet_test_predictions.npy", preds, manifest,
         f"float64 top-1 class of test images 0..{n - 1} (pre-processing in float32)")
    manifest["figures"].update({
        "convnet_test_images": n,
        "convnet_test_accuracy_fp64": accuracy,
        "convnet_test_margin_below_1e-4": int((margins < 1e-4).sum()),
        "convnet_test_margin_below_1e-3": int((margins < 1e-3).sum()),
        "convnet_test_predictions_device": common.device_description(device),
    })
    common.log(f"convnet: float64 accuracy {accuracy:.4f} on {n} test images; "
               f"{int((margins < 1e-4).sum())} with a top-1/top-2 margin below 1e-4")


def ssa_refs(args, out_dir, manifest):
    model = load(SpectralShapeAutoencoder(), os.path.join(args.weights_dir, "ssa.pt"))
    mse_input = spectra.generate(SSA_MSE_COUNT, spectra.REFERENCE_SEED)
    x32 = torch.from_numpy(mse_input[:BATCH].copy())
    save(out_dir, "ssa_input.npy", x32.numpy(), manifest,
         f"spectra.generate({BATCH}, seed {spectra.REFERENCE_SEED})")
    out64, out32 = three_ways(model, x32)
    save_outputs(out_dir, "ssa", ["recon", "latent"], out64, out32, manifest, "SSA on ssa_input.npy")

    save(out_dir, "ssa_mse_input.npy", mse_input, manifest,
         f"spectra.generate({SSA_MSE_COUNT}, seed {spectra.REFERENCE_SEED}); first {BATCH} rows = ssa_input.npy")
    xs = torch.from_numpy(mse_input)
    with torch.no_grad():
        rec32 = model(xs)[0].double()
        rec64 = model.double()(xs.double())[0]
        model.float()
    x64 = xs.double()
    mse64 = float(((rec64 - x64) ** 2).mean())
    mse32 = float(((rec32 - x64) ** 2).mean())
    var = float(x64.var(unbiased=False))
    manifest["figures"].update({"ssa_mse_fp64": mse64, "ssa_mse_fp32": mse32, "ssa_mse_input_variance": var,
                                "ssa_mse_ratio_fp64": mse64 / var})
    common.log(f"ssa: MSE on {SSA_MSE_COUNT} spectra (seed {spectra.REFERENCE_SEED}) {mse64:.6g} (float64), "
               f"{mse32:.6g} (float32); variance {var:.6g}, ratio {mse64 / var:.4f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights-dir", default=common.DEFAULT_WEIGHTS_DIR)
    p.add_argument("--out-dir", default=None, help="default <weights-dir>/reference")
    p.add_argument("--models", default="convnet,ssa")
    p.add_argument("--data-dir", default=None, help="Fashion-MNIST IDX folder")
    p.add_argument("--device", default="auto", help="for the 10,000 test predictions: auto | cpu | cuda")
    p.add_argument("--test-limit", type=int, default=None, help="smoke tests: predict only the first N test images")
    args = p.parse_args()
    torch.manual_seed(0)
    out_dir = args.out_dir or os.path.join(args.weights_dir, "reference")
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "manifest.json")
    manifest = {"files": {}, "figures": {}}
    if os.path.exists(manifest_path):   # keep the other model's entries when only one is redone
        with open(manifest_path) as f:
            manifest = json.load(f)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    for m in models:
        manifest["files"] = {k: v for k, v in manifest["files"].items() if not k.startswith(m + "_")}
        manifest["figures"] = {k: v for k, v in manifest["figures"].items() if not k.startswith(m + "_")}
    manifest["environment"] = common.environment()
    if "convnet" in models:
        convnet_refs(args, out_dir, manifest, common.pick_device(args.device))
    if "ssa" in models:
        ssa_refs(args, out_dir, manifest)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(out_dir, n)) for n in os.listdir(out_dir))
    common.log(f"wrote {len(manifest['files'])} arrays and manifest.json to {out_dir} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()

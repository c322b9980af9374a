"""Batch inference on Ray Data with InferEngine: classifies the Fashion-MNIST test set with the conv net and
encodes synthetic spectra with the SSA, one engine per actor.

    .venv-py/bin/python engine/python/examples/ray_batch_inference.py                 # local instance, CPU actors
    .venv-py/bin/python engine/python/examples/ray_batch_inference.py --actors 4 --gpus-per-actor 1
    RAY_ADDRESS=ray://head:10001 .venv-py/bin/python engine/python/examples/ray_batch_inference.py   # a cluster

Without RAY_ADDRESS (or --address) it starts a local instance with --cpus CPUs. The model configs' paths must be
readable on every node: run from the repository, checked out at the same path on each node.
"""
import argparse
import os
import pathlib
import sys
import time

import numpy as np
import pyarrow as pa
import ray
from ray.data.extensions import ArrowTensorArray

import inferengine as ie
from inferengine.ray import Predictor

REPO = pathlib.Path(__file__).resolve().parents[3]
FASHION = pathlib.Path("/usr/share/datasets/fashion-mnist")


def tables(columns, rows_per_block):
    """Arrow tables of at most rows_per_block rows (Ray's blocks), columns given as whole arrays."""
    n = len(next(iter(columns.values())))
    out = []
    for b in range(0, n, rows_per_block):
        cols = {k: (ArrowTensorArray.from_numpy(v[b:b + rows_per_block]) if v.ndim > 1 else v[b:b + rows_per_block])
                for k, v in columns.items()}
        out.append(pa.table(cols))
    return out


def predict(ds, model, args, **predictor):
    """The dataset mapped through Predictor actors; GPU actors when --gpus-per-actor is set."""
    resources = {"num_gpus": args.gpus_per_actor} if args.gpus_per_actor else {"num_cpus": args.cpus_per_actor}
    backend = "auto" if args.gpus_per_actor else "cpu"
    return ds.map_batches(Predictor, fn_constructor_kwargs=dict(model=str(model), backend=backend, **predictor),
                          batch_size=args.batch_size, batch_format="numpy",
                          compute=ray.data.ActorPoolStrategy(size=args.actors), **resources)


def timed_collect(ds, columns):
    """Runs the dataset to the end; {column: array} in row order (by the id column) and the seconds it took."""
    t0 = time.perf_counter()
    parts = list(ds.iter_batches(batch_size=None, batch_format="numpy"))
    seconds = time.perf_counter() - t0
    ids = np.concatenate([p["id"] for p in parts])
    order = np.argsort(ids, kind="stable")
    return {c: np.concatenate([p[c] for p in parts])[order] for c in columns}, seconds


def classify(args):
    images = ie.read_tensor(FASHION / "t10k-images-idx3-ubyte.gz")
    labels = ie.read_tensor(FASHION / "t10k-labels-idx1-ubyte.gz").astype(np.int64)
    ds = ray.data.from_arrow(tables({"id": np.arange(len(images)), "image": images}, args.block_rows))
    out = predict(ds, REPO / "configs" / "convnet.yaml", args, inputs={"images": "image"}, keep=["id"])
    result, seconds = timed_collect(out, ["probs"])
    accuracy = (result["probs"].argmax(axis=1) == labels).mean()
    print(f"fashion-mnist: {len(images)} images, accuracy {accuracy:.4f}, {seconds:.2f} s, "
          f"{len(images) / seconds:,.0f} images/s")
    return accuracy


def encode(args):
    sys.path.insert(0, str(REPO))
    from models.spectra import generate

    spectra = generate(args.spectra, 0).astype(np.float32)
    ds = ray.data.from_arrow(tables({"id": np.arange(len(spectra)), "x": spectra}, args.block_rows))
    out = predict(ds, REPO / "configs" / "ssa.yaml", args, keep=["id"])
    result, seconds = timed_collect(out, ["latent", "recon"])
    mse = float(np.mean((result["recon"] - spectra) ** 2))
    print(f"spectra: {len(spectra)} encoded to latent {list(result['latent'].shape)}, reconstruction MSE {mse:.3e}, "
          f"{seconds:.2f} s, {len(spectra) / seconds:,.0f} spectra/s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--address", default=os.environ.get("RAY_ADDRESS"), help="a cluster (default: a local instance)")
    p.add_argument("--cpus", type=int, default=os.cpu_count(), help="CPUs of the local instance")
    p.add_argument("--actors", type=int, default=2, help="Predictor actors (one engine each)")
    p.add_argument("--cpus-per-actor", type=int, default=1, help="CPU actors: engine threads each")
    p.add_argument("--gpus-per-actor", type=float, default=0, help="GPU actors: 1 = one GPU each")
    p.add_argument("--batch-size", type=int, default=1000, help="rows per map_batches call")
    p.add_argument("--block-rows", type=int, default=1000, help="rows per Ray block")
    p.add_argument("--spectra", type=int, default=50000, help="synthetic spectra to encode")
    args = p.parse_args()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    accuracy = classify(args)
    encode(args)
    return 0 if accuracy > 0.89 else 1


if __name__ == "__main__":
    sys.exit(main())

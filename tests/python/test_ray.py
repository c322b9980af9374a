"""Ray Data on a local instance: 2 CPU actors running inferengine.ray.Predictor give, row by row, the results of
one process running the same batches."""
import os

import numpy as np
import pytest

import inferengine as ie

ray = pytest.importorskip("ray")
from ray.data.extensions import ArrowTensorArray  # noqa: E402
import pyarrow as pa  # noqa: E402

from inferengine.ray import Predictor  # noqa: E402
from conftest import REPO  # noqa: E402

BATCH = 500
# Ray Data warns about its own deprecated settings on start-up; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


def blocks(column, data):
    """One Arrow table per batch, with a row id, so that every map_batches call gets exactly one of our batches."""
    return [pa.table({"id": pa.array(np.arange(b, min(b + BATCH, len(data)))),
                      column: ArrowTensorArray.from_numpy(data[b:b + BATCH])})
            for b in range(0, len(data), BATCH)]


def run_on_ray(tables, **predictor):
    ds = ray.data.from_arrow(tables).map_batches(
        Predictor, fn_constructor_kwargs=dict(backend="cpu", keep=["id"], **predictor),
        batch_size=BATCH, batch_format="numpy", compute=ray.data.ActorPoolStrategy(size=2), num_cpus=1)
    rows = {}
    for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
        for i, row_id in enumerate(batch["id"]):
            rows[int(row_id)] = {k: v[i] for k, v in batch.items() if k != "id"}
    return rows


def single_process(engine, name, data):
    session = engine.session()
    return [session.run({name: data[b:b + BATCH]}) for b in range(0, len(data), BATCH)]


def test_ray_classifies_like_one_process(local_ray, images):
    rows = run_on_ray(blocks("image", images), model=str(REPO / "configs" / "convnet.yaml"),
                      inputs={"images": "image"})
    assert sorted(rows) == list(range(len(images)))
    engine = ie.Engine.load(REPO / "configs" / "convnet.yaml", backend="cpu", threads=1)
    expected = np.concatenate([r["probs"] for r in single_process(engine, "images", images)])
    got = np.stack([rows[i]["probs"] for i in range(len(images))])
    assert np.array_equal(got, expected)


def test_ray_encodes_spectra_like_one_process(local_ray, spectra):
    rows = run_on_ray(blocks("x", spectra), model=str(REPO / "configs" / "ssa.yaml"),
                      outputs={"latent": "code"})
    engine = ie.Engine.load(REPO / "configs" / "ssa.yaml", backend="cpu", threads=1)
    expected = np.concatenate([r["latent"] for r in single_process(engine, "x", spectra)])
    got = np.stack([rows[i]["code"] for i in range(len(spectra))])
    assert set(rows[0]) == {"code"} and np.array_equal(got, expected)

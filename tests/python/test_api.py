"""The Engine and Session API: loading configs and ONNX files, declared inputs and outputs, runs, profiles,
options, threads and the GIL."""
import threading
import time

import numpy as np
import pytest

import inferengine as ie


def test_config_declares_raw_input_and_outputs(convnet):
    (images,) = convnet.inputs
    assert (images.name, images.dtype) == ("images", "uint8")
    assert images.shape == ("batch", 28, 28)
    (probs,) = convnet.outputs
    assert (probs.name, probs.dtype) == ("probs", "float32")
    assert probs.shape[-1] == 10 and not isinstance(probs.shape[0], int)
    assert convnet.backend == "cpu" and convnet.task == "classification" and convnet.batch_size == 1000
    assert convnet.class_names[9] == "Ankle boot"
    assert "images" in repr(images)


def test_onnx_file_and_model_input(repo):
    engine = ie.Engine.load(str(repo / "weights" / "convnet.onnx"), backend="cpu")
    assert [(i.name, i.dtype) for i in engine.inputs] == [("x", "float32")]
    assert engine.inputs[0].shape[1:] == (1, 86, 86)
    no_pre = ie.Engine.load(repo / "configs" / "convnet.yaml", backend="cpu", preprocess=False)
    assert no_pre.inputs[0].name == "x"
    assert ie.Engine.load(repo / "configs" / "ssa.yaml", backend="cpu", form="dynamo").inputs[0].name == "x"


def test_run_classifies(convnet, images):
    out = convnet.session().run({"images": images[:500]})
    assert list(out) == ["probs"]
    probs = out["probs"]
    assert probs.dtype == np.float32 and probs.shape == (500, 10)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    labels = ie.read_tensor("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz")[:500]
    assert (probs.argmax(axis=1) == labels).mean() > 0.85


def test_outputs_in_graph_order_and_own_their_memory(ssa, spectra):
    session = ssa.session()
    out = session.run({"x": spectra[:64]})
    assert list(out) == [o.name for o in ssa.outputs] == ["recon", "latent"]
    assert out["recon"].shape == (64, 320) and out["latent"].shape == (64, 32)
    again = session.run({"x": spectra[:64]})
    # Each run's outputs are arrays of their own: a later run does not overwrite them.
    assert out["recon"].ctypes.data != again["recon"].ctypes.data
    assert np.array_equal(out["recon"], again["recon"])


def test_profile_and_describe(ssa, spectra):
    report = ssa.session().profile({"x": spectra[:32]}, warmup=1, iterations=3)
    assert report.backend == "cpu" and report.iterations == 3 and report.total_ms > 0
    assert len(report.steps) > 5 and all(s.kernel_set == "cpu" for s in report.steps)
    assert any("attention" in s.op.lower() for s in report.steps)
    assert "schedule" in ssa.describe({"x": [8, 320]})


def test_options(repo):
    cfg = repo / "configs" / "convnet.yaml"
    assert ie.Engine.load(cfg, backend="cpu", devices=[0]).device_count == 1
    assert ie.Engine.load(cfg, backend="cpu", devices="all").device_count == 1
    assert ie.Engine.load(cfg, backend="cpu", batch=7, fuse=False, max_memory="1G").backend == "cpu"
    assert ie.backend_available("cpu")
    if not ie.backend_available("cuda"):
        with pytest.raises(ie.Error):
            ie.Engine.load(cfg, backend="cuda")


def test_one_session_per_thread_and_shared_session(convnet, images):
    expected = convnet.session().run({"images": images[:200]})["probs"]
    results = {}

    def work(key, session):
        results[key] = session.run({"images": images[:200]})["probs"]

    shared = convnet.session()
    threads = [threading.Thread(target=work, args=(k, s)) for k, s in
               [("a", convnet.session()), ("b", convnet.session()), ("c", shared), ("d", shared)]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key in "abcd":
        assert np.array_equal(results[key], expected), key


def test_gil_released_while_running(repo, spectra):
    engine = ie.Engine.load(repo / "configs" / "ssa.yaml", backend="cpu", threads=1)
    session = engine.session()
    batch = {"x": np.tile(spectra, (2, 1))}
    session.run(batch)
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    time.sleep(0.05)
    c0, t0 = count[0], time.perf_counter()
    time.sleep(0.2)
    solo_rate = (count[0] - c0) / (time.perf_counter() - t0)
    c0, t0 = count[0], time.perf_counter()
    for _ in range(3):
        session.run(batch)
    during_rate = (count[0] - c0) / (time.perf_counter() - t0)
    stop.set()
    spinner.join()
    # Held, the GIL would let the spinner run only between runs (a few 5 ms switch intervals).
    assert during_rate > 0.3 * solo_rate, (during_rate, solo_rate)

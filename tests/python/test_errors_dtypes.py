"""Errors arrive as inferengine.Error subclasses that keep the C++ error kind; every engine dtype crosses the
boundary both ways (ONNX's node tests as models)."""
import numpy as np
import pytest

import inferengine as ie
from conftest import NODE_TESTS


def test_error_hierarchy():
    for cls, kind, code in [(ie.CheckFailedError, "check_failed", 1), (ie.UsageError, "usage", 2),
                            (ie.BadInputError, "bad_input", 3), (ie.DeviceError, "device", 4),
                            (ie.RegressionError, "regression", 5), (ie.NonFiniteError, "non_finite", 6)]:
        assert issubclass(cls, ie.Error) and issubclass(cls, RuntimeError)
        assert (cls.kind, cls.exit_code) == (kind, code)
    assert issubclass(ie.UsageError, ValueError) and issubclass(ie.BadInputError, ValueError)


def test_load_errors(tmp_path, repo):
    with pytest.raises(ie.BadInputError, match="missing.onnx") as e:
        ie.Engine.load(tmp_path / "missing.onnx")
    assert e.value.exit_code == 3
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ie.BadInputError):
        ie.Engine.load(bad)
    cfg = repo / "configs" / "convnet.yaml"
    with pytest.raises(ie.UsageError, match="backend"):
        ie.Engine.load(cfg, backend="tpu")
    with pytest.raises(ie.UsageError, match="fp33"):
        ie.Engine.load(cfg, precision="fp33")
    with pytest.raises(ie.UsageError):
        ie.Engine.load(cfg, backend="cpu", precision="bf16")  # the CPU backend implements fp32 only
    with pytest.raises(ie.UsageError, match="device"):
        ie.Engine.load(cfg, backend="cpu", devices=[1])
    with pytest.raises(ie.UsageError):
        ie.Engine.load(cfg, form="onnx")


def test_run_errors(convnet, images):
    session = convnet.session()
    with pytest.raises(ie.BadInputError, match="dtype"):
        session.run({"images": images[:4].astype(np.float64)})
    with pytest.raises(ie.BadInputError, match="images"):
        session.run({})
    with pytest.raises(ie.BadInputError, match="nope"):
        session.run({"images": images[:4], "nope": images[:4]})
    with pytest.raises(ie.BadInputError):
        session.run({"images": images[:4, :20]})  # 20 x 28 images
    with pytest.raises(ie.UsageError):
        session.run({0: images[:4]})
    with pytest.raises(ie.BadInputError):
        session.run({"images": "not an array"})
    with pytest.raises(ie.UsageError, match="output"):
        session.run({"images": images[:4]}, output="torch")
    # The session still runs after errors.
    assert session.run({"images": images[:4]})["probs"].shape == (4, 10)


def node_model(name):
    path = NODE_TESTS / name / "model.onnx"
    if not path.exists():
        pytest.skip(f"{path} is not installed")
    return ie.Engine.load(path, backend="cpu")


def random_input(info, rng):
    shape = tuple(info.shape)
    if info.dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(info.dtype).kind in "iu":
        return rng.integers(0, 100, shape).astype(info.dtype)
    return rng.standard_normal(shape).astype(info.dtype)


@pytest.mark.parametrize("model, expect", [
    ("test_cast_FLOAT_to_DOUBLE", lambda x: x.astype(np.float64)),
    ("test_cast_DOUBLE_to_FLOAT", lambda x: x.astype(np.float32)),
    ("test_cast_FLOAT_to_FLOAT16", lambda x: x.astype(np.float16)),
    ("test_cast_FLOAT16_to_FLOAT", lambda x: x.astype(np.float32)),
    ("test_cast_FLOAT16_to_DOUBLE", lambda x: x.astype(np.float64)),
])
def test_dtypes_cast(model, expect):
    engine = node_model(model)
    rng = np.random.default_rng(1)
    x = random_input(engine.inputs[0], rng)
    (out,) = engine.session().run({engine.inputs[0].name: x}).values()
    assert out.dtype == expect(x).dtype and np.array_equal(out, expect(x))


@pytest.mark.parametrize("model, expect", [
    ("test_add_uint8", lambda a, b: a + b),
    ("test_and2d", lambda a, b: a & b),
    ("test_equal", lambda a, b: a == b),
])
def test_dtypes_binary(model, expect):
    engine = node_model(model)
    rng = np.random.default_rng(2)
    a, b = (random_input(i, rng) for i in engine.inputs)
    (out,) = engine.session().run({engine.inputs[0].name: a, engine.inputs[1].name: b}).values()
    assert out.dtype == expect(a, b).dtype and np.array_equal(out, expect(a, b))


def test_dtypes_int64_and_bool_together():
    engine = node_model("test_where_long_example")
    rng = np.random.default_rng(3)
    cond, x, y = (random_input(i, rng) for i in engine.inputs)
    names = [i.name for i in engine.inputs]
    (out,) = engine.session().run(dict(zip(names, (cond, x, y)))).values()
    assert out.dtype == np.int64 and np.array_equal(out, np.where(cond, x, y))


def test_dlpack_outputs_on_request(ssa, spectra):
    out = ssa.session().run({"x": spectra[:8]}, output="dlpack")
    assert hasattr(out["recon"], "__dlpack__") and out["recon"].__dlpack_device__()[0] == 1  # kDLCPU
    recon = np.from_dlpack(out["recon"])
    assert recon.dtype == np.float32 and recon.shape == (8, 320)
    assert np.array_equal(recon, ssa.session().run({"x": spectra[:8]})["recon"])


def test_tensor_files(tmp_path):
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    ie.write_tensor(tmp_path / "x.npy", x)
    assert np.array_equal(ie.read_tensor(tmp_path / "x.npy"), x)
    ie.write_tensor(tmp_path / "x.bin", x)
    assert np.array_equal(ie.read_tensor(tmp_path / "x.bin", shape=[3, 4], dtype="int16"), x)
    with pytest.raises(ie.UsageError):
        ie.read_tensor(tmp_path / "x.bin")  # a raw file needs its shape and dtype

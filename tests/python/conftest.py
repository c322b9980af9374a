"""Shared fixtures of the Python tests. ctest runs them with the build tree's package on PYTHONPATH and
IE_BUILD_DIR naming that build (for the C++ tools they are compared with)."""
import os
import pathlib
import sys

import numpy as np
import pytest

import inferengine as ie

REPO = pathlib.Path(__file__).resolve().parents[2]
FASHION = pathlib.Path("/usr/share/datasets/fashion-mnist")
NODE_TESTS = pathlib.Path("/usr/share/libonnx-testdata/data/node")


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def build_dir():
    path = pathlib.Path(os.environ.get("IE_BUILD_DIR", REPO / "build"))
    if not (path / "bin" / "infer").exists():
        pytest.skip(f"no C++ build at {path} (set IE_BUILD_DIR)")
    return path


@pytest.fixture(scope="session")
def images():
    """The first 3000 Fashion-MNIST test images, uint8 [3000, 28, 28]."""
    return ie.read_tensor(FASHION / "t10k-images-idx3-ubyte.gz")[:3000]


@pytest.fixture(scope="session")
def spectra():
    """2000 synthetic spectra from the project's generator, float32 [2000, 320]."""
    sys.path.insert(0, str(REPO))
    from models.spectra import generate

    return np.ascontiguousarray(generate(2000, 11), dtype=np.float32)


@pytest.fixture(scope="session")
def convnet():
    return ie.Engine.load(REPO / "configs" / "convnet.yaml", backend="cpu", threads=2)


@pytest.fixture(scope="session")
def ssa():
    return ie.Engine.load(REPO / "configs" / "ssa.yaml", backend="cpu", threads=2)

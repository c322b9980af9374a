"""The bindings give the C++ infer tool's results bit for bit on the same inputs, backend, threads and batches;
python -m inferengine.infer writes the same files as build/bin/infer."""
import os
import subprocess
import sys

import numpy as np
import pytest

import inferengine as ie
from conftest import FASHION, REPO


def run_cpp(build_dir, *args):
    done = subprocess.run([str(build_dir / "bin" / "infer"), "--backend", "cpu", "--threads", "2", *map(str, args)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_python(*args, check=True):
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-m", "inferengine.infer", "--backend", "cpu", "--threads", "2",
                           *map(str, args)], capture_output=True, text=True, env=env, cwd=REPO)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_convnet_equals_cpp_infer(build_dir, tmp_path, convnet, images):
    np.save(tmp_path / "images.npy", images)
    run_cpp(build_dir, "--config", REPO / "configs/convnet.yaml", "--input", tmp_path / "images.npy",
            "--output", tmp_path / "cpp.npy")
    cpp = np.load(tmp_path / "cpp.npy")
    session = convnet.session()
    ours = np.concatenate([session.run({"images": images[b:b + 1000]})["probs"] for b in range(0, 3000, 1000)])
    assert ours.dtype == cpp.dtype and np.array_equal(ours, cpp)


def test_ssa_equals_cpp_infer(build_dir, tmp_path, ssa, spectra):
    np.save(tmp_path / "spectra.npy", spectra)
    run_cpp(build_dir, "--config", REPO / "configs/ssa.yaml", "--input", tmp_path / "spectra.npy",
            "--output", tmp_path / "cpp")
    ours = ssa.session().run({"x": spectra})
    for name in ("recon", "latent"):
        assert np.array_equal(ours[name], np.load(tmp_path / "cpp" / f"{name}.npy")), name


def test_python_infer_mirrors_cpp_infer(build_dir, tmp_path):
    images = FASHION / "t10k-images-idx3-ubyte.gz"
    labels = FASHION / "t10k-labels-idx1-ubyte.gz"
    cpp_out = run_cpp(build_dir, "--config", REPO / "configs/convnet.yaml", "--input", images, "--labels", labels,
                      "--output", tmp_path / "cpp.npy", "--top-k", "3")
    py = run_python("--config", "configs/convnet.yaml", "--input", images, "--labels", labels,
                    "--output", tmp_path / "py.npy", "--top-k", "3", "--json")
    assert np.array_equal(np.load(tmp_path / "py.npy"), np.load(tmp_path / "cpp.npy"))
    assert (tmp_path / "py_top_k.csv").read_text() == (tmp_path / "cpp_top_k.csv").read_text()
    accuracy = [line for line in cpp_out.splitlines() if line.startswith("accuracy:")]
    assert accuracy and accuracy[0] in py.stdout.splitlines()
    assert '"samples": 10000' in py.stdout.splitlines()[-1]


def test_python_infer_exit_codes(tmp_path):
    missing = run_python("--config", "configs/convnet.yaml", "--input", tmp_path / "none.npy", check=False)
    assert missing.returncode == 3 and "infer: error:" in missing.stderr
    usage = run_python("--config", "configs/convnet.yaml", "--input", "x.npy", "--top-k", "3", check=False)
    assert usage.returncode == 2
    low = run_python("--config", "configs/convnet.yaml", "--input", FASHION / "t10k-images-idx3-ubyte.gz",
                     "--labels", FASHION / "t10k-labels-idx1-ubyte.gz", "--min-accuracy", "0.99", check=False)
    assert low.returncode == 1

"""Fashion-MNIST from its IDX files (gzip), with numpy and gzip only.

Debian's package dataset-fashion-mnist installs them under /usr/share/datasets/fashion-mnist/. Another
folder can be named with the environment variable FASHION_MNIST_DIR or the data_dir argument (e.g. on a
machine without the package, where the four .gz files were copied along). Plain (un-gzipped) files of the
same names without .gz are read too.
"""
import gzip
import os

import numpy as np

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
FILES = {
    ("train", "images"): "train-images-idx3-ubyte",
    ("train", "labels"): "train-labels-idx1-ubyte",
    ("test", "images"): "t10k-images-idx3-ubyte",
    ("test", "labels"): "t10k-labels-idx1-ubyte",
}
_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def data_dir(explicit=None) -> str:
    return explicit or os.environ.get("FASHION_MNIST_DIR") or DEFAULT_DIR


def read_idx(path: str) -> np.ndarray:
    """Reads one IDX file (gzip or plain): magic 0x0000 | dtype byte | ndim byte, then ndim big-endian
    uint32 sizes, then the data in C order."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path}: not an IDX file (bad magic {raw[:4].hex()})")
    code, ndim = raw[2], raw[3]
    if code not in _IDX_DTYPES:
        raise ValueError(f"{path}: unknown IDX dtype code 0x{code:02x}")
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    dtype = np.dtype(_IDX_DTYPES[code])
    count = int(np.prod(dims)) if dims else 1
    offset = 4 + 4 * ndim
    if len(raw) != offset + count * dtype.itemsize:
        raise ValueError(f"{path}: expected {offset + count * dtype.itemsize} bytes for shape {dims}, "
                         f"found {len(raw)}")
    return np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(dims).astype(dtype.newbyteorder("="))


def find_file(split: str, kind: str, directory=None) -> str:
    base = os.path.join(data_dir(directory), FILES[(split, kind)])
    for candidate in (base + ".gz", base):
        if os.path.exists(candidate):
            return candidate
    raise FileNotFoundError(
        f"Fashion-MNIST {split} {kind} not found: looked for {base}.gz and {base}. Install Debian's "
        f"dataset-fashion-mnist or set FASHION_MNIST_DIR to a folder holding the IDX files.")


def load(split: str, directory=None):
    """split 'train' (60,000) or 'test' (10,000) -> (images uint8 [N, 28, 28], labels int64 [N])."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    images = read_idx(find_file(split, "images", directory))
    labels = read_idx(find_file(split, "labels", directory)).astype(np.int64)
    if images.ndim != 3 or images.shape[1:] != (28, 28) or images.dtype != np.uint8:
        raise ValueError(f"unexpected Fashion-MNIST images: {images.shape} {images.dtype}")
    if labels.shape != (images.shape[0],):
        raise ValueError(f"{images.shape[0]} images but labels of shape {labels.shape}")
    return images, labels

"""Quick CPU checks of the Python side (seconds; no training, no files written):
model shapes and parameter counts, RoPE against its complex-number form, the SSA's attention against
F.scaled_dot_product_attention, the pre-processing against the config's scale-then-resize, the spectrum
generator's determinism and ranges, and the IDX reader (if Fashion-MNIST is installed).

    python3 models/selftest.py        # prints "N passed, 0 failed"; exit status 1 on any failure
"""
import math
import os
import sys
import traceback

import numpy as np
import torch
import torch.nn.functional as F

import convnet
import spectra
import ssa

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


@check
def convnet_shapes():
    m = convnet.ConvNet().eval()
    assert sorted(m.state_dict()) == sorted(f"{l}.{p}" for l in ("conv1", "conv2", "fc3", "fc4")
                                            for p in ("weight", "bias"))
    p = m(torch.rand(3, 1, 86, 86))
    assert p.shape == (3, 10) and torch.allclose(p.sum(1), torch.ones(3))


@check
def ssa_shapes_and_count():
    m = ssa.SpectralShapeAutoencoder().eval()
    assert ssa.count_parameters(m) == 113_152
    r, z = m(torch.randn(5, 320))
    assert r.shape == (5, 320) and z.shape == (5, 32)


@check
def rope_matches_complex_form():
    x = torch.randn(2, 4, 10, 16, dtype=torch.float64)
    cos, sin = ssa.rope_tables(torch.float64)
    got = ssa.apply_rope(x, cos, sin)
    c = torch.view_as_complex(x.reshape(2, 4, 10, 8, 2).contiguous())   # pairs (2i, 2i+1) as x_2i + j x_2i+1
    p = torch.arange(10, dtype=torch.float64)[:, None]
    theta = 10000.0 ** (-2.0 * torch.arange(8, dtype=torch.float64) / 16)
    want = torch.view_as_real(c * torch.polar(torch.ones(10, 8, dtype=torch.float64), p * theta)).reshape(2, 4, 10, 16)
    assert torch.allclose(got, want, atol=1e-12)
    assert torch.equal(got[:, :, 0], x[:, :, 0])    # position 0 is not rotated


@check
def ssa_attention_matches_sdpa():
    torch.manual_seed(0)
    m = ssa.SpectralShapeAutoencoder().double().eval()
    blk = m.blocks[0]
    h = torch.randn(3, 10, 64, dtype=torch.float64)
    a = blk.ln1(h)
    split = lambda t: t.view(3, 10, 4, 16).transpose(1, 2)
    q = ssa.apply_rope(split(blk.q(a)), m.rope_cos, m.rope_sin)
    k = ssa.apply_rope(split(blk.k(a)), m.rope_cos, m.rope_sin)
    y = F.scaled_dot_product_attention(q, k, split(blk.v(a))).transpose(1, 2).reshape(3, 10, 64)
    h1 = h + blk.proj(y)
    want = h1 + blk.fc2(F.gelu(blk.fc1(blk.ln2(h1)), approximate="none"))
    assert torch.allclose(blk(h, m.rope_cos, m.rope_sin), want, atol=1e-12)


@check
def preprocess_matches_config_steps():
    raw = torch.randint(0, 256, (4, 28, 28), dtype=torch.uint8)
    x = convnet.preprocess(raw)
    assert x.shape == (4, 1, 86, 86) and x.dtype == torch.float32
    scaled = raw.to(torch.float32) * torch.tensor(0.00392156862745098, dtype=torch.float32)
    y = F.interpolate(scaled[:, None], size=(86, 86), mode="bilinear", align_corners=False)
    assert float((x - y).abs().max()) <= 2.5e-7   # a couple of float32 ulps near 1
    # half-pixel bilinear by hand for one output pixel: out(i) samples at (i + 0.5) * 28/86 - 0.5
    src = lambda i: max((i + 0.5) * 28 / 86 - 0.5, 0.0)
    i, j = 40, 17
    sy, sx = src(i), src(j)
    y0, x0 = int(math.floor(sy)), int(math.floor(sx))
    fy, fx = sy - y0, sx - x0
    im = raw[0].double() / 255
    v = ((1 - fy) * ((1 - fx) * im[y0, x0] + fx * im[y0, x0 + 1]) + fy * ((1 - fx) * im[y0 + 1, x0] + fx * im[y0 + 1, x0 + 1]))
    assert abs(float(v) - float(x[0, 0, i, j])) < 1e-6


@check
def spectra_deterministic_and_in_range():
    a = spectra.generate(50, 3)
    assert a.dtype == np.float32 and a.shape == (50, 320)
    assert np.array_equal(a, spectra.generate(50, 3)) and np.array_equal(a[:7], spectra.generate(7, 3))
    assert not np.array_equal(a, spectra.generate(50, 4))
    assert a.min() > -0.3 and a.max() < 4.5


@check
def fashion_mnist_reader():
    import fashion_mnist
    try:
        fashion_mnist.find_file("test", "labels")
    except FileNotFoundError:
        print("  (Fashion-MNIST not installed: reader check skipped)")
        return
    images, labels = fashion_mnist.load("test")
    assert images.shape == (10000, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (10000,) and np.array_equal(np.bincount(labels), [1000] * 10)


def main():
    torch.manual_seed(0)
    passed = failed = 0
    for fn in CHECKS:
        try:
            fn()
            passed += 1
            print(f"ok    {fn.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL  {fn.__name__}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

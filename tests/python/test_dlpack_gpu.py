"""On a GPU machine: PyTorch CUDA tensors in through DLPack (device to device, no host round trip), outputs left on
the GPU or brought home, equal to the CPU backend within each precision mode's gate (relative L2, as
tests/gpu/test_precision_modes_gpu.cpp). Skipped where there is no CUDA backend or no PyTorch with CUDA."""
import numpy as np
import pytest

import inferengine as ie
from conftest import REPO

torch = pytest.importorskip("torch")
if not (ie.backend_available("cuda") and torch.cuda.is_available()):
    pytest.skip("needs the cuda backend and PyTorch with CUDA", allow_module_level=True)

GATES = {"fp32": 1e-5, "tf32": 1e-3, "fp16": 1e-2, "bf16": 1e-2}


def rel_l2(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)


@pytest.mark.parametrize("precision", list(GATES))
def test_torch_cuda_tensors_in_and_out(ssa, spectra, precision):
    expected = ssa.session().run({"x": spectra[:512]})
    engine = ie.Engine.load(REPO / "configs" / "ssa.yaml", backend="cuda", precision=precision)
    session = engine.session()
    x = torch.from_numpy(spectra[:512]).cuda()
    on_gpu = session.run({"x": x}, output="dlpack")
    latent = torch.from_dlpack(on_gpu["latent"])
    assert latent.is_cuda and latent.shape == (512, 32)
    assert rel_l2(latent.cpu().numpy(), expected["latent"]) <= GATES[precision]
    home = session.run({"x": x})  # device inputs, NumPy outputs
    for name in expected:
        assert rel_l2(home[name], expected[name]) <= GATES[precision], name


def test_strided_device_tensor_is_refused(spectra):
    engine = ie.Engine.load(REPO / "configs" / "ssa.yaml", backend="cuda")
    x = torch.from_numpy(spectra[:64]).cuda()[::2]
    with pytest.raises(ie.BadInputError, match="contiguous"):
        engine.session().run({"x": x})

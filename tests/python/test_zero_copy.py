"""NumPy inputs are read in place where the layout allows (checked by address), copied to C order otherwise,
with the same results either way; outputs are NumPy arrays over the engine's own buffers."""
import numpy as np

import inferengine as ie


def test_c_contiguous_arrays_are_not_copied(images, spectra):
    for a in (images, spectra, spectra[100:300], np.frombuffer(spectra.tobytes(), np.float32)):
        assert ie._core._view_address(a) == a.ctypes.data


def test_other_layouts_are_copied_once():
    x = np.asfortranarray(np.ones((64, 320), np.float32))
    assert ie._core._view_address(x) != x.ctypes.data
    assert ie._core._view_address(x[::2]) != x[::2].ctypes.data
    assert ie._core._view_address([[1.0, 2.0]]) != 0  # nested lists become arrays


def test_same_results_from_any_layout(ssa, spectra):
    session = ssa.session()
    c_order = spectra[:256]
    expected = session.run({"x": c_order})
    for other in (np.asfortranarray(c_order), np.repeat(c_order, 2, axis=0)[::2]):
        out = session.run({"x": other})
        for name in expected:
            assert np.array_equal(out[name], expected[name])


def test_inputs_are_not_kept(ssa, spectra):
    x = spectra[:16].copy()
    session = ssa.session()
    first = session.run({"x": x})["recon"].copy()
    x[:] = 0
    assert not np.array_equal(session.run({"x": x})["recon"], first)


def test_outputs_are_numpy_owning_engine_memory(ssa, spectra):
    out = ssa.session().run({"x": spectra[:4]})["latent"]
    assert type(out) is np.ndarray and out.flags.c_contiguous and out.base is not None
    out[:] = 1  # writable, and the caller's to keep
    assert (out == 1).all()

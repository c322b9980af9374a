"""Engine.pipeline(): batches in flight from a Python iterable, outputs in batch order and equal to one session's,
a done() callback, stats, and errors (a Python exception from the iterable or from done() is raised as itself;
an engine error names the batch)."""
import numpy as np
import pytest

import inferengine as ie


def batches_of(x, size):
    return [x[b:b + size] for b in range(0, len(x), size)]


@pytest.mark.parametrize("count,size", [(1, 1), (1, 64), (7, 64), (1000, 333)])
def test_outputs_in_order_equal_one_session(ssa, spectra, count, size):
    x = spectra[:count]
    session = ssa.session()
    want = [session.run({"x": b}) for b in batches_of(x, size)]
    pipe = ssa.pipeline(depth=2, read_ahead=2)
    got = pipe.run({"x": b} for b in batches_of(x, size))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert list(g) == ["recon", "latent"]
        for name in w:
            np.testing.assert_array_equal(g[name], w[name])
    assert (pipe.stats.batches, pipe.stats.samples) == (len(want), count)
    assert pipe.stats.seconds > 0 and pipe.sessions >= 1


def test_done_callback_gets_batches_in_order(convnet, images):
    pipe = convnet.pipeline()
    pipe.prepare([{"images": images[:250]}])
    seen = []
    assert pipe.run(({"images": b} for b in batches_of(images[:1000], 250)),
                    done=lambda i, out: seen.append((i, out["probs"].shape))) is None
    assert seen == [(i, (250, 10)) for i in range(4)]
    whole = convnet.session().run({"images": images[:1000]})["probs"]
    parts = convnet.pipeline().run({"images": b} for b in batches_of(images[:1000], 250))
    np.testing.assert_allclose(np.concatenate([p["probs"] for p in parts]), whole, rtol=1e-5, atol=1e-7)


def test_empty_stream(ssa):
    pipe = ssa.pipeline()
    assert pipe.run(iter([])) == []
    assert pipe.stats.batches == 0


class Boom(Exception):
    pass


def test_python_exception_from_the_iterable_is_raised_as_itself(ssa, spectra):
    handed = []

    def batches():
        yield {"x": spectra[:8]}
        yield {"x": spectra[8:16]}
        raise Boom("the third batch")

    with pytest.raises(Boom, match="the third batch"):
        ssa.pipeline().run(batches(), done=lambda i, out: handed.append(i))
    assert handed == [0, 1]  # the batches before the failure were handed back, none after


def test_python_exception_from_done_stops_the_stream(ssa, spectra):
    handed = []

    def done(i, out):
        handed.append(i)
        if i == 1:
            raise Boom("done failed")

    with pytest.raises(Boom, match="done failed"):
        ssa.pipeline().run(({"x": b} for b in batches_of(spectra[:80], 16)), done=done)
    assert handed == [0, 1]


def test_engine_errors_name_the_batch(ssa, spectra):
    stream = [{"x": spectra[:8]}, {"x": spectra[:8].astype(np.float64)}]
    with pytest.raises(ie.BadInputError, match="batch 1"):
        ssa.pipeline().run(stream)
    with pytest.raises(ie.UsageError, match="not a dict"):
        ssa.pipeline().run([spectra[:8]])
    with pytest.raises(ie.UsageError, match="callable"):
        ssa.pipeline().run([{"x": spectra[:8]}], done=3)
    with pytest.raises(ie.UsageError, match="depth"):
        ssa.pipeline(depth=0)
    with pytest.raises(TypeError):
        ssa.pipeline().run(5)

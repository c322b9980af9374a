"""The project's one seeded synthetic-spectrum generator (training, tests and demos all use it).

Each spectrum has BINS = 320 bins, indexed n = 0..319, and is

    y[n] = offset + slope * t[n] + sum_k amp_k * exp(-(n - centre_k)^2 / (2 sigma_k^2)) + noise[n]

with t[n] = n / 319, the bin index normalised to [0, 1] (so the slope is the baseline's rise over the
whole spectrum, not per bin), and
    number of peaks   1 to 4, equally likely
    centre_k          uniform over the bin positions, [0, 319]
    sigma_k           uniform in [2, 20] bins
    amp_k             uniform in [0.2, 1.0]
    offset, slope     each uniform in [-0.1, 0.1]
    noise[n]          Gaussian, sigma 0.01, independent per bin.

Determinism: generate(n, seed) is a pure function of (n, seed) on any machine with numpy's PCG64 and
Generator (numpy >= 1.17). The parameters come from one stream, np.random.default_rng([seed, 0]), drawn as
15 uniforms per spectrum in this order: u_count, then (centre, sigma, amp) for 4 peaks, then offset, slope
(peaks past the spectrum's count are drawn and unused); the noise comes from a second stream,
np.random.default_rng([seed, 1]), 320 standard normals per spectrum. Both streams are consumed spectrum by
spectrum, so spectra are prefix-consistent: generate(7, s) == generate(1000, s)[:7].
"""
import numpy as np

BINS = 320
MAX_PEAKS = 4
SIGMA_RANGE = (2.0, 20.0)
AMP_RANGE = (0.2, 1.0)
BASELINE_MAX = 0.1
NOISE_SIGMA = 0.01
_PARAMS_PER_SPECTRUM = 1 + 3 * MAX_PEAKS + 2
_CHUNK = 8192


def _spectra_chunk(u: np.ndarray, noise: np.ndarray) -> np.ndarray:
    m = u.shape[0]
    count = 1 + np.minimum((u[:, 0] * MAX_PEAKS).astype(np.int64), MAX_PEAKS - 1)      # 1..4
    peaks = u[:, 1:1 + 3 * MAX_PEAKS].reshape(m, MAX_PEAKS, 3)
    centre = peaks[:, :, 0] * (BINS - 1)
    sigma = SIGMA_RANGE[0] + peaks[:, :, 1] * (SIGMA_RANGE[1] - SIGMA_RANGE[0])
    amp = AMP_RANGE[0] + peaks[:, :, 2] * (AMP_RANGE[1] - AMP_RANGE[0])
    amp = np.where(np.arange(MAX_PEAKS)[None, :] < count[:, None], amp, 0.0)
    offset = BASELINE_MAX * (2.0 * u[:, -2] - 1.0)
    slope = BASELINE_MAX * (2.0 * u[:, -1] - 1.0)

    n = np.arange(BINS, dtype=np.float64)
    t = n / (BINS - 1)
    y = offset[:, None] + slope[:, None] * t[None, :]
    for k in range(MAX_PEAKS):
        d = (n[None, :] - centre[:, k:k + 1]) / sigma[:, k:k + 1]
        y += amp[:, k:k + 1] * np.exp(-0.5 * d * d)
    y += NOISE_SIGMA * noise
    return y.astype(np.float32)


def generate(n: int, seed: int) -> np.ndarray:
    """n spectra from the given seed: float32 [n, 320]. Computed in float64, rounded once at the end."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    params_rng = np.random.default_rng([seed, 0])
    noise_rng = np.random.default_rng([seed, 1])
    out = np.empty((n, BINS), dtype=np.float32)
    for start in range(0, n, _CHUNK):          # chunks keep float64 temporaries small; results do not depend on them
        m = min(_CHUNK, n - start)
        u = params_rng.random((m, _PARAMS_PER_SPECTRUM))
        noise = noise_rng.standard_normal((m, BINS))
        out[start:start + m] = _spectra_chunk(u, noise)
    return out


# Seeds the project uses (so that every script agrees).
TRAIN_SEED = 0          # training spectra
HELDOUT_SEED = 1        # the 10,000 held-out spectra of the stop criterion
REFERENCE_SEED = 1234   # weights/reference/ (the 7-spectrum batch and the 1,000-spectrum MSE set)

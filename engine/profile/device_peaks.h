// The device's peaks, the yardstick of the profiler's "% of peak" columns: copy bandwidth and fp32/tf32/fp16 matrix
// rates, measured once by a built-in micro-benchmark and cached per device name as JSON in
// $XDG_CACHE_HOME/inferengine/peaks-<device>.json (default ~/.cache/inferengine/; see cache_folder.h).
//
//   auto backend = ie::make_backend("cuda-reference", {});
//   ie::DevicePeaks peaks = ie::device_peaks(*backend);          // cached after the first call on this device
//   double pct = achieved_tflops / peaks.tflops_for(ie::Precision::tf32) * 100;
#pragma once

#include <functional>
#include <string>

#include "engine/backend/backend.h"

namespace ie {

struct DevicePeaks {
  std::string device;       // as Backend::device_name() says
  std::string method;       // how the figures were measured (which benchmark, sizes)
  double copy_gbps = 0;     // large device-to-device copy, bytes read + written per second / 1e9
  double fp32_tflops = 0;   // SGEMM without TF32 (cuBLAS pedantic math; Eigen on the CPU)
  double tf32_tflops = 0;   // 0: the device has no TF32 path
  double fp16_tflops = 0;   // 0: not measured on this device
  std::string measured_at;  // UTC time of the measurement
  bool from_cache = false;  // read from the cache file rather than measured now

  /// The matrix peak of a precision mode; falls back to fp32 when that one is unknown.
  double tflops_for(Precision precision) const;
};

/// Peaks of `backend`'s device: read from the cache, or measured (seconds) and cached. `remeasure` ignores the
/// cache. A cache file that cannot be read is measured again; one that cannot be written is reported on stderr.
DevicePeaks device_peaks(Backend& backend, bool remeasure = false);

/// The cache file for a device name: <cache>/inferengine/peaks-<name with [^A-Za-z0-9._-] as '_'>.json.
std::string peaks_cache_path(const std::string& device);

/// JSON text of the peaks, and back; parsing throws Error(BadInput) naming what is missing.
std::string peaks_to_json(const DevicePeaks& peaks);
DevicePeaks peaks_from_json(const std::string& text, const std::string& where);

/// Micro-benchmark of one backend kind; the CUDA backends register theirs, every other backend gets the CPU one.
using PeakMeter = std::function<DevicePeaks(Backend&)>;
void register_peak_meter(const std::string& backend, PeakMeter meter);
/// The host's peaks: multi-threaded memcpy bandwidth and an Eigen SGEMM.
DevicePeaks measure_cpu_peaks(Backend& backend);

}  // namespace ie

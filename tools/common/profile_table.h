// The per-op profile report shared by infer --profile and bench --profile: one row per step with the ONNX nodes it
// covers, shapes, median time, % of the total, bytes moved, FLOPs, achieved GB/s and TFLOP/s and their % of the
// device's peaks; as a terminal table, JSON and CSV.
//
//   ie::ProfileReport r = session.profile(batch);
//   ie::DevicePeaks peaks = ie::device_peaks(*backend);
//   std::cout << ie::cli::profile_table(r, peaks, "fp32");
#pragma once

#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/api/engine.h"
#include "engine/profile/device_peaks.h"

namespace ie::cli {

/// Fixed-width table for a terminal, with a header naming the device, its peaks and the iteration count.
std::string profile_table(const ProfileReport& report, const DevicePeaks& peaks, Precision precision);
/// {"backend", "device", "precision", "iterations", "total_ms", "peaks": {...}, "steps": [{...}, ...]}
nlohmann::json profile_json(const ProfileReport& report, const DevicePeaks& peaks, Precision precision);
/// Header line and one line per step (shapes and covers joined with ';' inside quoted fields).
std::string profile_csv(const ProfileReport& report, const DevicePeaks& peaks, Precision precision);
/// Writes JSON and/or CSV files (empty path: skipped) atomically.
void write_profile_files(const ProfileReport& report, const DevicePeaks& peaks, Precision precision,
                         const std::string& json_path, const std::string& csv_path);

struct ProfilePass {
  int warmup = 5;
  int iterations = 20;
  bool remeasure_peaks = false;  // measure the device peaks again instead of reading the cache
  std::string json_path, csv_path;
};

/// The profile pass of a tool, separate from its headline runs: Session::profile on `inputs`, the device peaks of
/// the session's backend (measured once per process and device), the table on `out`, the files. Returns the JSON.
nlohmann::json run_profile_pass(Session& session, const std::map<std::string, Tensor>& inputs, const Options& options,
                                const ProfilePass& pass, std::ostream& out);

}  // namespace ie::cli

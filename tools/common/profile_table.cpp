#include "tools/common/profile_table.h"

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "engine/backend/backend.h"
#include "engine/core/cpu_isa.h"
#include "engine/io/file_util.h"

namespace ie::cli {

namespace {

// Figures derived from one step and the peaks.
struct Row {
  const StepProfile* step;
  double share = 0;  // % of the total
  double gbps = 0, tflops = 0;
  double bw_pct = 0, flop_pct = 0;
};

std::vector<Row> rows_of(const ProfileReport& r, const DevicePeaks& peaks, Precision precision) {
  std::vector<Row> rows;
  const double peak_tflops = peaks.tflops_for(precision);
  for (auto& s : r.steps) {
    Row row{&s};
    const double seconds = s.median_ms * 1e-3;
    row.share = r.total_ms > 0 ? 100.0 * s.median_ms / r.total_ms : 0;
    row.gbps = seconds > 0 ? s.bytes / seconds / 1e9 : 0;
    row.tflops = seconds > 0 ? s.flops / seconds / 1e12 : 0;
    row.bw_pct = peaks.copy_gbps > 0 ? 100.0 * row.gbps / peaks.copy_gbps : 0;
    row.flop_pct = peak_tflops > 0 ? 100.0 * row.tflops / peak_tflops : 0;
    rows.push_back(row);
  }
  return rows;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::string shape_list(const std::vector<std::vector<int64_t>>& shapes, const char* sep) {
  std::vector<std::string> items;
  for (auto& x : shapes) items.push_back(shape_to_string(x));
  return join(items, sep);
}

std::string shapes_text(const StepProfile& s) {
  return shape_list(s.input_shapes, " ") + " -> " + shape_list(s.output_shapes, " ");
}

std::string clip(const std::string& s, size_t width) { return s.size() <= width ? s : s.substr(0, width - 3) + "..."; }

std::string csv_field(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string profile_table(const ProfileReport& r, const DevicePeaks& peaks, Precision precision) {
  std::ostringstream o;
  o << "per-op profile: " << r.backend << " on " << r.device;
  if (r.backend == "cpu") o << " (" << cpu_isa_name(cpu_isa()) << " kernels)";
  o << ", precision " << precision_name(precision) << ", median of " << r.iterations << " runs\n";
  o << std::fixed << std::setprecision(1) << "device peaks: copy " << peaks.copy_gbps << " GB/s, " << precision_name(precision)
    << " matrix " << std::setprecision(2) << peaks.tflops_for(precision) << " TFLOP/s"
    << (peaks.from_cache ? " (cached " + peaks.measured_at + ")" : " (measured now)") << "\n";
  o << std::left << std::setw(4) << "#" << std::setw(22) << "step" << std::setw(26) << "op" << std::setw(16) << "kernel set" << std::setw(30) << "covers"
    << std::setw(44) << "shapes" << std::right << std::setw(10) << "ms" << std::setw(7) << "%" << std::setw(10) << "MB"
    << std::setw(10) << "GFLOP" << std::setw(9) << "GB/s" << std::setw(7) << "%bw" << std::setw(9) << "TFLOP/s"
    << std::setw(7) << "%flop"
    << "\n";
  for (const Row& row : rows_of(r, peaks, precision)) {
    const StepProfile& s = *row.step;
    o << std::left << std::setw(4) << s.index << std::setw(22) << clip(s.name, 21) << std::setw(26) << clip(s.op, 25)
      << std::setw(16) << clip(s.kernel_set, 15) << std::setw(30) << clip(join(s.covers, ","), 29) << std::setw(44) << clip(shapes_text(s), 43) << std::right
      << std::setprecision(4) << std::setw(10) << s.median_ms << std::setprecision(1) << std::setw(7) << row.share
      << std::setprecision(2) << std::setw(10) << s.bytes / 1e6 << std::setw(10) << s.flops / 1e9
      << std::setprecision(1) << std::setw(9) << row.gbps << std::setw(7) << row.bw_pct << std::setprecision(3)
      << std::setw(9) << row.tflops << std::setprecision(1) << std::setw(7) << row.flop_pct << "\n";
  }
  o << std::setprecision(4) << "total " << r.total_ms << " ms over " << r.steps.size() << " steps\n";
  return o.str();
}

nlohmann::json profile_json(const ProfileReport& r, const DevicePeaks& peaks, Precision precision) {
  nlohmann::json steps = nlohmann::json::array();
  for (const Row& row : rows_of(r, peaks, precision)) {
    const StepProfile& s = *row.step;
    steps.push_back({{"index", s.index},
                     {"step", s.name},
                     {"op", s.op},
                     {"kernel_set", s.kernel_set},
                     {"covers", s.covers},
                     {"input_shapes", s.input_shapes},
                     {"output_shapes", s.output_shapes},
                     {"median_ms", s.median_ms},
                     {"min_ms", s.min_ms},
                     {"max_ms", s.max_ms},
                     {"percent_of_total", row.share},
                     {"bytes", s.bytes},
                     {"flops", s.flops},
                     {"achieved_gbps", row.gbps},
                     {"achieved_tflops", row.tflops},
                     {"percent_of_peak_bandwidth", row.bw_pct},
                     {"percent_of_peak_flops", row.flop_pct}});
  }
  return {{"backend", r.backend},
          {"device", r.device},
          {"precision", precision_name(precision)},
          {"iterations", r.iterations},
          {"total_ms", r.total_ms},
          {"peaks",
           {{"copy_gbps", peaks.copy_gbps},
            {"fp32_tflops", peaks.fp32_tflops},
            {"tf32_tflops", peaks.tf32_tflops},
            {"fp16_tflops", peaks.fp16_tflops},
            {"matrix_tflops_used", peaks.tflops_for(precision)},
            {"measured_at", peaks.measured_at},
            {"method", peaks.method}}},
          {"steps", steps}};
}

std::string profile_csv(const ProfileReport& r, const DevicePeaks& peaks, Precision precision) {
  std::ostringstream o;
  o << "index,step,op,covers,input_shapes,output_shapes,median_ms,min_ms,max_ms,percent_of_total,bytes,flops,"
       "achieved_gbps,achieved_tflops,percent_of_peak_bandwidth,percent_of_peak_flops,kernel_set\n";
  o << std::setprecision(9);
  for (const Row& row : rows_of(r, peaks, precision)) {
    const StepProfile& s = *row.step;
    o << s.index << "," << csv_field(s.name) << "," << csv_field(s.op) << "," << csv_field(join(s.covers, ";")) << ","
      << csv_field(shape_list(s.input_shapes, ";")) << "," << csv_field(shape_list(s.output_shapes, ";")) << ","
      << s.median_ms << "," << s.min_ms << "," << s.max_ms << "," << row.share << "," << s.bytes << "," << s.flops
      << "," << row.gbps << "," << row.tflops << "," << row.bw_pct << "," << row.flop_pct << "," << csv_field(s.kernel_set) << "\n";
  }
  return o.str();
}

void write_profile_files(const ProfileReport& r, const DevicePeaks& peaks, Precision precision,
                         const std::string& json_path, const std::string& csv_path) {
  if (!json_path.empty()) {
    AtomicFileWriter out(json_path);
    out.write(profile_json(r, peaks, precision).dump(2) + "\n");
    out.commit();
  }
  if (!csv_path.empty()) {
    AtomicFileWriter out(csv_path);
    out.write(profile_csv(r, peaks, precision));
    out.commit();
  }
}

nlohmann::json run_profile_pass(Session& session, const std::map<std::string, Tensor>& inputs, const Options& options,
                                const ProfilePass& pass, std::ostream& out) {
  ProfileReport report = session.profile(inputs, pass.warmup, pass.iterations);
  static std::map<std::string, DevicePeaks> known;  // per backend and device, so sweeps measure once
  const std::string key = report.backend + "|" + report.device;
  if (!known.count(key)) {
    Options o = options;
    o.backend = report.backend;
    std::shared_ptr<Backend> backend = make_backend(report.backend, o);
    if (pass.remeasure_peaks || !std::filesystem::exists(peaks_cache_path(backend->device_name())))
      out << "measuring the device peaks of " << report.device << " once (cached in "
          << peaks_cache_path(backend->device_name()) << ")\n";
    known[key] = device_peaks(*backend, pass.remeasure_peaks);
  }
  const DevicePeaks& peaks = known[key];
  out << profile_table(report, peaks, options.precision);
  write_profile_files(report, peaks, options.precision, pass.json_path, pass.csv_path);
  return profile_json(report, peaks, options.precision);
}

}  // namespace ie::cli

// compare: runs one model on one input set along two paths and says how far apart their outputs are
// (Polygraphy's `run --trt --onnxrt` is the anchor).
//
//   compare --config configs/convnet.yaml --seed 1 --batch 16 --a cpu --b cuda-reference
//   compare --model weights/ssa.onnx --input x.npy --a cpu --b golden/    # golden: one .npy per output
//   compare --config configs/ssa.yaml --seed 3 --a cpu --b cuda --precision tf32 --per-layer --json report.json
//
// A path is a backend (cpu, cuda-reference, cuda, auto) or a folder of .npy files named after the outputs
// (file_safe_name). Outputs of --b are checked against --a: an element passes when |b - a| <= atol + rtol * |a|.
// Exit codes: 0 every output within tolerance; 1 a tolerance failed; 2 usage; 3 bad input; 4 CUDA failure.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/backend/backend.h"
#include "engine/io/file_names.h"
#include "engine/io/file_util.h"
#include "engine/io/tensor_file.h"
#include "tools/common/cli.h"
#include "tools/common/input_files.h"
#include "tools/common/metrics.h"
#include "tools/common/model_source.h"
#include "tools/common/random_inputs.h"
#include "tools/common/stats.h"
#include "tools/common/tensor_diff.h"

namespace fs = std::filesystem;
using ie::Error;
using ie::ErrorKind;
using ie::Tensor;
using TensorMap = std::map<std::string, Tensor>;

namespace {

struct Args {
  ie::cli::ModelSource source;
  std::vector<std::string> inputs, shapes, dtypes, atol, rtol;
  uint64_t seed = 0;
  int64_t batch = 8;
  std::string a = "cpu", b, precision = "fp32", labels, json;
  int threads = 0, runs = 10, warmup = 2;
  bool per_layer = false, no_fuse = false, no_graph = false;
  ie::Limits limits;
};

bool is_backend(const std::string& path) {
  return path == "cpu" || path == "cuda" || path == "cuda-reference" || path == "auto";
}

// What one path produced.
struct PathRun {
  std::string label;  // backend name or folder
  bool golden = false;
  std::vector<Tensor> outputs;           // in the graph's output order
  double median_ms = 0;                  // engine paths only
  std::vector<std::string> layer_order;  // per-layer: tensors in step order
  TensorMap layers;
};

// --precision applies to the paths whose backend implements it; the reference path --a runs in fp32 when its
// backend does not (the usual A/B: the CPU's fp32 against a GPU's bf16). Labels say which mode each path ran.
ie::Precision precision_for(const Args& a, const std::string& backend) {
  const ie::Precision p = ie::precision_from_name(a.precision);
  if (backend != a.a) return p;
  const auto& modes = ie::backend_traits(ie::resolve_backend_name(backend)).precisions;
  return std::find(modes.begin(), modes.end(), p) != modes.end() ? p : ie::Precision::fp32;
}

ie::Options options_for(const Args& a, const std::string& backend) {
  ie::Options o;
  o.backend = backend;
  o.precision = precision_for(a, backend);
  o.threads = a.threads;
  o.fuse = !a.no_fuse;
  o.cuda_graphs = !a.no_graph;
  o.limits = a.limits;
  return o;
}

PathRun run_engine(const Args& a, ie::Engine& engine, const TensorMap& inputs, ie::Precision precision) {
  PathRun r;
  r.label = engine.backend() + " " + ie::precision_name(precision);
  ie::Session session = engine.create_session();
  r.outputs = session.run_ordered(inputs);
  std::vector<double> ms;
  for (int i = 0; i < a.warmup + a.runs; ++i) {
    ie::RunTiming t;
    session.run_timed(inputs, &t);
    if (i >= a.warmup) ms.push_back(t.wall_ms);
  }
  r.median_ms = ie::cli::median(ms);
  if (a.per_layer) {
    // The observer only reads tensors after each step: the plan (and its fusions) stays what ordinary runs use.
    session.set_observer([&](const ie::StepEvent& ev) {
      for (auto& name : ev.output_names) {
        if (name.empty() || r.layers.count(name)) continue;
        r.layers[name] = session.peek(name);
        r.layer_order.push_back(name);
      }
    });
    session.run_ordered(inputs);
    session.set_observer(nullptr);
  }
  return r;
}

PathRun read_golden(const std::string& folder, const std::vector<ie::TensorDecl>& outs) {
  PathRun r;
  r.label = folder;
  r.golden = true;
  std::vector<std::string> names;
  for (auto& o : outs) names.push_back(o.name);
  auto files = ie::unique_file_names(names);
  for (size_t i = 0; i < outs.size(); ++i) {
    fs::path p = fs::path(folder) / (files[i] + ".npy");
    if (!fs::exists(p))
      throw Error(ErrorKind::BadInput, "golden folder " + folder + " has no " + p.filename().string() +
                                           " for output '" + outs[i].name + "'");
    r.outputs.push_back(ie::read_tensor_file(p.string()));
  }
  return r;
}

// --atol / --rtol items: "V" (every output) or "NAME=V".
std::map<std::string, double> parse_tolerances(const std::vector<std::string>& items, const char* flag) {
  std::map<std::string, double> out;
  for (auto& [name, text] : ie::cli::split_named(items, flag)) {
    try {
      size_t used = 0;
      double v = std::stod(text, &used);
      if (used != text.size() || !(v >= 0)) throw std::invalid_argument(text);
      out[name] = v;
    } catch (const std::exception&) {
      throw Error(ErrorKind::Usage, std::string(flag) + " '" + text + "' is not a non-negative number");
    }
  }
  return out;
}

ie::cli::Tolerance tolerance_for(const std::string& name, const ie::cli::Tolerance& base,
                                 const std::map<std::string, double>& atol, const std::map<std::string, double>& rtol) {
  ie::cli::Tolerance t = base;
  if (atol.count("")) t.atol = atol.at("");
  if (rtol.count("")) t.rtol = rtol.at("");
  if (atol.count(name)) t.atol = atol.at(name);
  if (rtol.count(name)) t.rtol = rtol.at(name);
  return t;
}

std::string fmt(double v, int precision = 3) {
  std::ostringstream o;
  o << std::setprecision(precision) << std::scientific << v;
  return o.str();
}

// gate: the --precision mode's rel L2 gate, beside the element-wise verdict (a large batch can put a few elements
// of a mode's rounding tail past atol/rtol while the output as a whole holds the mode's gate).
void print_diff(const std::string& name, const ie::cli::DiffStats& d, double gate) {
  std::cout << "  " << name << ": " << (d.pass ? "PASS" : "FAIL");
  if (!d.problem.empty()) {
    std::cout << " (" << d.problem << ")\n";
    return;
  }
  std::cout << "  (atol " << d.tolerance.atol << ", rtol " << d.tolerance.rtol << ")\n"
            << "    max abs " << fmt(d.max_abs) << " at " << ie::shape_to_string(d.max_abs_position) << " (flat "
            << d.max_abs_index << "), mean abs " << fmt(d.mean_abs) << ", p99 abs " << fmt(d.p99_abs) << "\n"
            << "    max rel " << fmt(d.max_rel) << ", rel L2 " << fmt(d.rel_l2) << " ("
            << (d.rel_l2 <= gate ? "within" : "past") << " the mode's gate " << fmt(gate, 0) << ")"
            << ", cosine " << std::setprecision(9) << std::fixed << d.cosine << std::defaultfloat
            << ", out of tolerance " << std::setprecision(4) << d.fail_percent << "% of " << d.count << "\n"
            << "    smallest passing atol (rtol " << d.tolerance.rtol << ") " << fmt(d.min_atol)
            << ", smallest passing rtol (atol " << d.tolerance.atol << ") " << fmt(d.min_rtol) << "\n";
  if (d.non_finite_mismatches) std::cout << "    " << d.non_finite_mismatches << " NaN/Inf mismatches\n";
}

// The task line: top-1 agreement (and accuracy with labels) for a classifier, reconstruction MSE for an autoencoder.
nlohmann::json task_line(const Args& a, const ie::ModelConfig& cfg, const TensorMap& inputs, const PathRun& pa,
                         const PathRun& pb) {
  nlohmann::json j;
  if (cfg.task == "classification" && !pa.outputs.empty() && pa.outputs[0].rank() == 2) {
    auto ta = ie::cli::argmax_rows(pa.outputs[0]), tb = ie::cli::argmax_rows(pb.outputs[0]);
    int64_t same = 0;
    for (size_t i = 0; i < ta.size(); ++i) same += ta[i] == tb[i];
    double agree = ta.empty() ? 1.0 : static_cast<double>(same) / static_cast<double>(ta.size());
    j["top1_agreement"] = agree;
    std::cout << "task: top-1 agreement " << std::setprecision(6) << 100.0 * agree << "% (" << same << "/" << ta.size()
              << ")";
    if (!a.labels.empty()) {
      auto truth = ie::cli::labels_as_int64(ie::read_tensor_file(a.labels), static_cast<int64_t>(ta.size()), a.labels);
      j["accuracy_a"] = ie::cli::accuracy(ta, truth);
      j["accuracy_b"] = ie::cli::accuracy(tb, truth);
      std::cout << ", accuracy a " << j["accuracy_a"].get<double>() << ", b " << j["accuracy_b"].get<double>();
    }
    std::cout << "\n";
  } else if (cfg.task == "autoencoder" && !pa.outputs.empty() && inputs.count(cfg.input.name)) {
    const Tensor& x = inputs.at(cfg.input.name);
    j["mse_a"] = ie::cli::mean_squared_error(pa.outputs[0], x, "recon vs input (a)");
    j["mse_b"] = ie::cli::mean_squared_error(pb.outputs[0], x, "recon vs input (b)");
    std::cout << "task: reconstruction MSE a " << fmt(j["mse_a"].get<double>()) << ", b "
              << fmt(j["mse_b"].get<double>()) << "\n";
  } else if (!a.labels.empty()) {
    throw Error(ErrorKind::Usage, "--labels needs a classification config (--config with task: classification)");
  }
  return j;
}

// Diffs every intermediate both paths named alike, in a's step order; the first failure is where they part.
nlohmann::json per_layer(const PathRun& pa, const PathRun& pb, const ie::cli::Tolerance& tol) {
  nlohmann::json layers = nlohmann::json::array();
  std::string first_fail;
  size_t common = 0;
  std::cout << "per-layer (tensors both paths produce, in step order of a; atol " << tol.atol << ", rtol " << tol.rtol
            << "):\n";
  for (auto& name : pa.layer_order) {
    auto it = pb.layers.find(name);
    if (it == pb.layers.end()) continue;
    ++common;
    ie::cli::DiffStats d = ie::cli::diff_tensors(pa.layers.at(name), it->second, tol);
    nlohmann::json j = ie::cli::diff_json(d);
    j["tensor"] = name;
    layers.push_back(j);
    std::cout << "  " << (d.pass ? "ok  " : "FAIL") << " " << std::left << std::setw(40) << name << std::right
              << " max abs " << fmt(d.max_abs) << "  max rel " << fmt(d.max_rel) << "  out of tol "
              << std::setprecision(3) << d.fail_percent << "%" << (d.problem.empty() ? "" : "  " + d.problem) << "\n";
    if (!d.pass && first_fail.empty()) first_fail = name;
  }
  std::cout << "  " << common << " tensors compared (" << pa.layer_order.size() << " in a, " << pb.layer_order.size()
            << " in b; fused tensors exist in one path only)\n";
  if (!first_fail.empty()) std::cout << "  first tensor out of tolerance: " << first_fail << "\n";
  return {{"compared", common},
          {"first_failure", first_fail.empty() ? nlohmann::json() : nlohmann::json(first_fail)},
          {"tensors", layers}};
}

int run(Args& a) {
  a.source.validate();
  if (a.b.empty()) throw Error(ErrorKind::Usage, "--b is required");
  const bool a_engine = is_backend(a.a), b_engine = is_backend(a.b);
  for (auto* p : {&a.a, &a.b})
    if (!is_backend(*p) && !fs::is_directory(*p))
      throw Error(ErrorKind::Usage, "path '" + *p +
                                        "' is neither a backend (cpu, cuda-reference, cuda, auto) nor a "
                                        "folder of golden .npy files");
  if (!a_engine && !b_engine) throw Error(ErrorKind::Usage, "at least one of --a/--b must be a backend");
  if (a.runs < 1) throw Error(ErrorKind::Usage, "--runs must be >= 1");
  const ie::cli::Tolerance base = ie::cli::default_tolerance(ie::precision_from_name(a.precision));
  const auto atol = parse_tolerances(a.atol, "--atol"), rtol = parse_tolerances(a.rtol, "--rtol");

  // Inputs: files, or seeded random data of the declared dtypes.
  TensorMap inputs;
  if (!a.inputs.empty() && !a.source.config.empty()) {
    inputs = ie::cli::read_config_input(a.inputs, a.shapes, a.dtypes, a.source.config_data(), &a.source.raw);
  }
  const std::string first_backend = a_engine ? a.a : a.b;
  ie::Engine engine_a = a.source.load(options_for(a, first_backend));
  if (!a.inputs.empty() && a.source.config.empty()) {
    std::vector<std::string> names;
    for (auto& d : engine_a.inputs()) names.push_back(d.name);
    inputs = ie::cli::read_named_inputs(a.inputs, a.shapes, a.dtypes, names);
  } else if (a.inputs.empty()) {
    inputs = ie::cli::random_inputs(engine_a.inputs(), a.batch, a.seed);
  }
  for (auto& [name, t] : inputs)
    if (ie::cli::count_non_finite(t)) throw Error(ErrorKind::BadInput, "input '" + name + "' holds NaN or Inf");

  auto run_path = [&](const std::string& path, bool first) -> PathRun {
    if (!is_backend(path)) return read_golden(path, engine_a.outputs());
    if (first) return run_engine(a, engine_a, inputs, precision_for(a, path));
    ie::Engine e = a.source.load(options_for(a, path));
    return run_engine(a, e, inputs, precision_for(a, path));
  };
  PathRun pa = run_path(a.a, a_engine);
  PathRun pb = run_path(a.b, !a_engine);

  std::cout << "model: " << a.source.onnx_path() << "\n";
  std::cout << "inputs:";
  for (auto& [name, t] : inputs)
    std::cout << " " << name << " " << ie::dtype_name(t.dtype()) << ie::shape_to_string(t.shape());
  std::cout << (a.inputs.empty() ? " (random, seed " + std::to_string(a.seed) + ")" : "") << "\n";
  std::cout << "a: " << pa.label << "   b: " << pb.label << "   precision " << a.precision << "\n";

  nlohmann::json report;
  report["model"] = a.source.onnx_path();
  report["a"] = pa.label;
  report["b"] = pb.label;
  report["precision"] = a.precision;
  report["seed"] = a.inputs.empty() ? nlohmann::json(a.seed) : nlohmann::json();
  bool all_pass = true;
  nlohmann::json outputs = nlohmann::json::array();
  const auto& decls = engine_a.outputs();
  std::cout << "outputs (b against a):\n";
  const double gate = ie::cli::rel_l2_gate(ie::precision_from_name(a.precision));
  for (size_t i = 0; i < decls.size(); ++i) {
    ie::cli::Tolerance tol = tolerance_for(decls[i].name, base, atol, rtol);
    ie::cli::DiffStats d = ie::cli::diff_tensors(pa.outputs.at(i), pb.outputs.at(i), tol);
    print_diff(decls[i].name, d, gate);
    nlohmann::json j = ie::cli::diff_json(d);
    j["rel_l2_gate"] = gate;
    j["name"] = decls[i].name;
    outputs.push_back(j);
    all_pass = all_pass && d.pass;
  }
  for (const auto& [flag, tolerances] : {std::pair{"--atol", &atol}, std::pair{"--rtol", &rtol}})
    for (const auto& entry : *tolerances) {
      const std::string& name = entry.first;  // named: lambdas may not capture structured bindings (C++17)
      if (!name.empty() && std::none_of(decls.begin(), decls.end(), [&](auto& d) { return d.name == name; }))
        throw Error(ErrorKind::Usage, std::string(flag) + " names '" + name + "', which is not an output");
    }
  report["outputs"] = outputs;
  report["task"] = task_line(a, a.source.config_data(), inputs, pa, pb);
  if (a.per_layer) {
    if (pa.golden || pb.golden)
      std::cerr << "compare: warning: --per-layer needs two backend paths; a golden folder has no intermediates\n";
    else
      report["per_layer"] = per_layer(pa, pb, tolerance_for("", base, atol, rtol));
  }
  if (!pa.golden && !pb.golden) {
    double speedup = pb.median_ms > 0 ? pa.median_ms / pb.median_ms : 0;
    std::cout << std::fixed << std::setprecision(3) << "timing (median of " << a.runs << " runs, end to end): a "
              << pa.median_ms << " ms, b " << pb.median_ms << " ms, speed-up b/a " << std::setprecision(2) << speedup
              << "x\n"
              << std::defaultfloat;
    report["timing"] = {
        {"runs", a.runs}, {"a_median_ms", pa.median_ms}, {"b_median_ms", pb.median_ms}, {"speedup_b_over_a", speedup}};
  }
  report["pass"] = all_pass;
  std::cout << (all_pass ? "PASS" : "FAIL") << "\n";
  if (a.json == "-") {
    std::cout << report.dump() << std::endl;
  } else if (!a.json.empty()) {
    ie::AtomicFileWriter out(a.json);
    out.write(report.dump(2) + "\n");
    out.commit();
  }
  return all_pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Compare a model's outputs along two paths (backends or a golden folder)"};
  Args a;
  a.source.add_options(app);
  app.add_option("--input,-i", a.inputs, "input file(s): PATH or NAME=PATH (default: seeded random data)");
  app.add_option("--shape", a.shapes, "shape of a raw input file: 2x3x4 or NAME=2x3x4");
  app.add_option("--dtype", a.dtypes, "dtype of a raw input file: float32 or NAME=float32");
  app.add_option("--seed", a.seed, "seed of the random inputs");
  app.add_option("--batch", a.batch, "batch size of the random inputs")->check(ie::cli::at_least(1, "--batch"));
  app.add_option("--a", a.a, "reference path: cpu | cuda-reference | cuda | auto | golden folder");
  app.add_option("--b", a.b, "path checked against --a")->required();
  ie::cli::add_precision_option(app, &a.precision, "GPU paths; sets the default tolerances");
  app.add_option("--atol", a.atol, "absolute tolerance: V for every output or NAME=V");
  app.add_option("--rtol", a.rtol, "relative tolerance: V for every output or NAME=V");
  app.add_option("--labels", a.labels, "labels file: accuracy of both paths (classification configs)");
  app.add_flag("--per-layer", a.per_layer, "diff every intermediate tensor both paths produce");
  app.add_option("--runs", a.runs, "timed runs per path (median)")->check(ie::cli::at_least(1, "--runs"));
  app.add_option("--warmup", a.warmup, "untimed runs per path first")->check(ie::cli::at_least(0, "--warmup"));
  ie::cli::add_threads_option(app, &a.threads);
  ie::cli::add_max_memory_option(app, &a.limits);
  app.add_flag("--no-fuse", a.no_fuse, "run both paths without fusion rules");
  app.add_flag("--no-graph", a.no_graph, "run the steps one by one instead of replaying them as a CUDA graph");
  app.add_option("--json", a.json, "write the report as JSON to FILE ('-': last line of stdout)");
  IE_CLI_PARSE(app, argc, argv);
  return ie::cli::guarded_main("compare", [&] { return run(a); });
}

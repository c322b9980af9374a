// infer: runs a model on batches of samples from files and writes the outputs.
//
//   infer --config configs/convnet.yaml --input t10k-images-idx3-ubyte.gz --labels t10k-labels-idx1-ubyte.gz \
//         --output probs.npy
//   infer --model any.onnx --input x.npy --output DIR          # one .npy per graph output in DIR
//   infer --model m.onnx --input a=a.npy --input b=b.bin --shape b=4x3 --dtype b=float32 --output DIR --json
//   infer --config configs/ssa.yaml --input x.npy --profile --profile-json ops.json   # per-op table of the first batch
//
// Exit codes (shared by every tool): 0 ok; 1 a check failed; 2 usage; 3 bad input/model/file; 4 CUDA failure;
// 6 NaN or Inf in an output.
#include <chrono>
#include <filesystem>
#include <future>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/api/model_config.h"
#include "engine/backend/backend.h"
#include "engine/io/file_names.h"
#include "engine/io/file_util.h"
#include "engine/io/staged_files.h"
#include "engine/io/tensor_file.h"
#include "tools/common/batch_runner.h"
#include "tools/common/cli.h"
#include "tools/common/input_files.h"
#include "tools/common/metrics.h"
#include "tools/common/precision_choice.h"
#include "tools/common/profile_table.h"

namespace fs = std::filesystem;
using ie::Error;
using ie::ErrorKind;

namespace {

// When main() began: the JSON's main_s says how much of the process's wall time the tool itself accounts for
// (the rest is loading the shared libraries before main and tearing CUDA down after it).
std::chrono::steady_clock::time_point g_main_started;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Args {
  std::string config, model, form = "legacy", output, labels, target, backend = "auto", precision = "fp32", devices;
  std::vector<std::string> inputs, shapes, dtypes;
  int64_t batch_size = 0, top_k = 0;
  int threads = 0, in_flight = 2;
  bool in_flight_given = false;  // --in-flight on the command line: every session kept, however short the run
  double min_accuracy = -1;
  bool json = false, no_fuse = false, no_graph = false;
  bool profile = false;
  ie::cli::ProfilePass profile_pass;
  ie::Limits limits;
};

// Output paths: a single-output model may write straight to a .npy/.csv path; otherwise `output` is a folder.
std::vector<std::string> output_paths(const std::string& output, const std::vector<ie::TensorDecl>& outs) {
  std::string ext = ie::file_extension(output);
  if (ext == ".npy" || ext == ".csv") {
    if (outs.size() != 1)
      throw Error(ErrorKind::Usage, "the model has " + std::to_string(outs.size()) +
                                        " outputs: --output must be a folder, not a " + ext + " file");
    return {output};
  }
  std::vector<std::string> names;
  for (auto& o : outs) names.push_back(o.name);
  std::vector<std::string> paths;
  for (auto& f : ie::unique_file_names(names)) paths.push_back((fs::path(output) / (f + ".npy")).string());
  return paths;
}

// --top-k beyond the class count is refused rather than clamped: a CSV with fewer columns than asked for would
// surprise whatever reads it. `shape` is the first output's (declared dims before the run: -1 when symbolic).
void check_top_k(int64_t k, const std::vector<int64_t>& shape, const std::string& output) {
  if (k <= 0) return;
  if (shape.empty())
    throw Error(ErrorKind::Usage, "--top-k needs class scores, but output '" + output + "' is a scalar");
  const int64_t classes = shape.back();
  if (classes >= 0 && k > classes)
    throw Error(ErrorKind::Usage, "--top-k " + std::to_string(k) + " is more than the " + std::to_string(classes) +
                                      " classes of output '" + output + "' (use at most " + std::to_string(classes) +
                                      ")");
}

void write_top_k(const std::string& path, const ie::Tensor& probs, int64_t k, const std::vector<std::string>& classes) {
  auto rows = ie::cli::top_k_rows(probs, k);
  ie::AtomicFileWriter out(path);
  // The header counts the columns the rows have, so the two always agree.
  const size_t columns = rows.empty() ? static_cast<size_t>(k) : rows[0].size();
  std::string header = "sample";
  for (size_t r = 1; r <= columns; ++r) header += ",class_" + std::to_string(r) + ",score_" + std::to_string(r);
  out.write(header + "\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::ostringstream line;
    line << i;
    for (auto& [c, score] : rows[i])
      line << "," << (c < static_cast<int64_t>(classes.size()) ? classes[c] : std::to_string(c)) << ","
           << std::setprecision(6) << score;
    out.write(line.str() + "\n");
  }
  out.commit();
}

int run(const Args& a) {
  if (a.config.empty() == a.model.empty()) throw Error(ErrorKind::Usage, "give exactly one of --config or --model");
  if (a.form != "legacy" && a.form != "dynamo") throw Error(ErrorKind::Usage, "--form must be legacy or dynamo");
  if (!a.model.empty() && a.form != "legacy") throw Error(ErrorKind::Usage, "--form applies to --config only");
  ie::Options opts;
  opts.backend = a.backend;
  const bool auto_precision = a.precision == "auto";  // chosen below, on a sample of the input
  opts.precision = auto_precision ? ie::Precision::fp32 : ie::precision_from_name(a.precision);
  opts.threads = a.threads;
  opts.fuse = !a.no_fuse;
  opts.cuda_graphs = !a.no_graph;
  opts.limits = a.limits;
  ie::cli::start_only_the_default_device(a.devices);  // before resolve_backend_name asks the driver for a GPU
  std::string backend = ie::resolve_backend_name(a.backend);
  opts.devices = ie::cli::devices_from_text(a.devices, backend);
  if (a.threads > 0 && backend != "cpu")
    std::cerr << "infer: note: --threads sets CPU worker threads; the " << backend << " backend runs on the GPU\n";

  ie::ModelConfig cfg;
  std::vector<std::string> graph_inputs;
  if (!a.config.empty()) {
    cfg = ie::load_model_config(a.config);
    if (a.form == "dynamo") {
      if (cfg.onnx_dynamo.empty()) throw Error(ErrorKind::Usage, a.config + " names no onnx_dynamo file");
      cfg.onnx = cfg.onnx_dynamo;
    }
    graph_inputs = {cfg.input.name};
    if (!cfg.raw_input.name.empty()) graph_inputs.push_back(cfg.raw_input.name);
  }
  int64_t batch_size = a.batch_size > 0 ? a.batch_size : (a.config.empty() ? 0 : cfg.batch_size);

  // The inputs are read and decoded on a thread while the device and its libraries start on this one; with a
  // config, raw data (e.g. uint8 images) then selects the pre-processing graph.
  const auto started = std::chrono::steady_clock::now();
  bool raw = false;
  auto reading = std::async(std::launch::async, [&] {
    auto t0 = std::chrono::steady_clock::now();
    auto read = !a.config.empty() ? ie::cli::read_config_input(a.inputs, a.shapes, a.dtypes, cfg, &raw)
                                  : std::map<std::string, ie::Tensor>{};
    return std::make_pair(read, seconds_since(t0));
  });
  ie::warm_up_backend(backend, opts);
  const double device_start_s = seconds_since(started);
  auto read_result = reading.get();
  std::map<std::string, ie::Tensor> inputs = std::move(read_result.first);
  double read_s = read_result.second;
  auto load_in = [&](ie::Precision p) {
    ie::Options o = opts;
    o.precision = p;
    return !a.config.empty() ? ie::Engine::load(cfg, o, raw) : ie::Engine::load(a.model, o);
  };
  std::unique_ptr<ie::Engine> engine;
  if (!a.config.empty()) {
    if (!auto_precision) engine = std::make_unique<ie::Engine>(load_in(opts.precision));
  } else {
    engine = std::make_unique<ie::Engine>(load_in(opts.precision));
    for (auto& d : engine->inputs()) graph_inputs.push_back(d.name);
    auto t0 = std::chrono::steady_clock::now();
    inputs = ie::cli::read_named_inputs(a.inputs, a.shapes, a.dtypes, graph_inputs);
    read_s = seconds_since(t0);
  }
  std::string precision = a.precision;
  nlohmann::json precision_trials;
  if (auto_precision) {
    // The fastest mode whose accuracy gate holds on the input's first samples (at most 1000).
    const int64_t rows = std::min<int64_t>(ie::cli::sample_count(inputs), 1000);
    std::map<std::string, ie::Tensor> sample;
    for (auto& [name, t] : inputs) sample[name] = t.slice_rows(0, rows);
    // On a GPU the modes are judged against the CPU backend's fp32 (the project's reference), loaded and run on
    // its own thread: the GPU then never sets up fp32 kernels and their libraries for a mode it will not run.
    ie::cli::Reference reference;
    if (backend != "cpu")
      reference = {[&] {
                     ie::Options o = opts;
                     o.backend = "cpu";
                     o.precision = ie::Precision::fp32;
                     o.devices.clear();
                     o.batch = 0;
                     return !a.config.empty() ? ie::Engine::load(cfg, o, raw) : ie::Engine::load(a.model, o);
                   },
                   "cpu"};
    ie::cli::PrecisionChoice choice =
        ie::cli::choose_precision(backend, load_in, sample, cfg.task == "classification", std::move(engine), reference);
    engine = std::move(choice.engine);
    opts.precision = choice.precision;
    precision = choice.summary;
    precision_trials = choice.json;
  }
  const auto& outs = engine->outputs();
  std::vector<std::string> paths;
  if (!a.output.empty()) paths = output_paths(a.output, outs);
  std::string top_k_path;
  if (a.top_k > 0) {
    if (a.output.empty()) throw Error(ErrorKind::Usage, "--top-k needs --output (the top-k CSV goes beside it)");
    check_top_k(a.top_k, outs[0].dims, outs[0].name);
    fs::path base(a.output);
    top_k_path = (ie::file_extension(a.output).empty() ? base / "top_k.csv"
                                                       : base.parent_path() / (base.stem().string() + "_top_k.csv"))
                     .string();
  }
  // Every destination is checked before the run, so that a long run never ends in an unwritable folder.
  for (auto& p : paths) ie::check_output_target(p);
  if (!top_k_path.empty()) ie::check_output_target(top_k_path);

  // Setup apart from the run: every session of the pipeline plans each batch shape and runs it once (algorithm
  // search, tuning, graph recording), so the run streams batches without first-use costs.
  const int64_t n = ie::cli::sample_count(inputs);
  ie::PipelineOptions popts;
  popts.depth = a.in_flight;
  const double load_s = seconds_since(started);
  auto pipeline = std::make_unique<ie::Pipeline>(*engine, popts);
  const double sessions_s = seconds_since(started) - load_s;
  // Without --in-flight, sessions that the run's batches cannot repay are dropped while preparing.
  const size_t batches = batch_size > 0 ? static_cast<size_t>((n + batch_size - 1) / batch_size) : 1;
  const ie::PrepareStats prep =
      pipeline->prepare(ie::cli::batch_examples(inputs, batch_size), a.in_flight_given ? 0 : batches);
  const double setup_s = seconds_since(started);  // with a config, reading the input ran alongside
  ie::cli::ProgressBar bar("infer", n, true);
  ie::cli::BatchRun run = ie::cli::run_in_batches(*pipeline, inputs, batch_size, &bar);
  const auto ran = std::chrono::steady_clock::now();

  for (size_t i = 0; i < run.outputs.size(); ++i)
    if (int64_t bad = ie::cli::count_non_finite(run.outputs[i]))
      throw Error(ErrorKind::NonFinite, "output '" + outs[i].name + "' holds " + std::to_string(bad) +
                                            " NaN or Inf values; nothing was written");

  nlohmann::json report;
  report["backend"] = engine->backend();
  report["precision"] = ie::precision_name(opts.precision);
  if (auto_precision) report["precision_auto"] = {{"summary", precision}, {"tried", precision_trials}};
  report["model"] = a.config.empty() ? a.model : cfg.onnx;
  report["batch_size"] = batch_size > 0 ? std::min(batch_size, run.samples) : run.samples;
  report["samples"] = run.samples;
  report["batches"] = run.batches;
  report["seconds"] = run.seconds;
  report["read_s"] = read_s;
  report["setup_s"] = setup_s;
  // Where setup went: the device's start (reading the input alongside), loading, then per session the plan, the
  // first runs (module loading, tuning), the second (graph recording) and page-locked staging.
  report["setup_phases_s"] = {{"device_start", device_start_s},
                              {"read_and_load", load_s - device_start_s},
                              {"plan_and_warm_up", setup_s - load_s},
                              {"sessions", sessions_s},
                              {"plan", prep.plan_s},
                              {"first_run", prep.first_run_s},
                              {"warm_run", prep.warm_run_s},
                              {"staging", prep.staging_s}};
  report["run_s"] = run.seconds;
  report["in_flight"] = pipeline->sessions();
  report["devices"] = pipeline->devices();
  report["samples_per_s"] = run.seconds > 0 ? run.samples / run.seconds : 0.0;

  std::cout << "model: " << report["model"].get<std::string>() << "\n";
  std::cout << "backend: " << engine->backend()
            << (engine->backend() == "cpu"
                    ? " (threads " +
                          std::to_string(a.threads > 0 ? a.threads
                                                       : static_cast<int>(std::thread::hardware_concurrency())) +
                          ")"
                    : "")
            << ", precision " << precision << "\n";
  std::cout << "samples: " << run.samples << " in " << run.batches << " batch" << (run.batches > 1 ? "es" : "")
            << " of up to " << report["batch_size"].get<int64_t>() << "\n";
  std::cout << std::fixed << std::setprecision(1) << "throughput: " << report["samples_per_s"].get<double>()
            << " samples/s (" << std::setprecision(3) << run.seconds << " s)\n";
  std::cout << std::setprecision(3) << "time: setup " << setup_s << " s (of which reading the input " << read_s << " s"
            << (a.config.empty() || engine->backend() == "cpu" ? "" : ", alongside the device start") << "), run "
            << run.seconds << " s (" << pipeline->sessions() << " batch" << (pipeline->sessions() > 1 ? "es" : "")
            << " in flight"
            << (pipeline->devices() > 1 ? " on " + std::to_string(pipeline->devices()) + " devices" : "") << ")\n";

  int code = 0;
  if (!a.labels.empty()) {
    ie::Tensor labels = ie::read_tensor_file(a.labels);
    auto truth = ie::cli::labels_as_int64(labels, run.samples, a.labels);
    double acc = ie::cli::accuracy(ie::cli::argmax_rows(run.outputs[0]), truth);
    report["accuracy"] = acc;
    std::cout << std::setprecision(4) << "accuracy: " << acc << "\n";
    if (a.min_accuracy >= 0 && acc < a.min_accuracy) {
      std::cerr << "infer: accuracy " << acc << " is below --min-accuracy " << a.min_accuracy << "\n";
      code = 1;
    }
  } else if (a.min_accuracy >= 0) {
    throw Error(ErrorKind::Usage, "--min-accuracy needs --labels");
  }
  if (!a.target.empty()) {
    ie::Tensor target = ie::read_tensor_file(a.target);
    double mse = ie::cli::mean_squared_error(run.outputs[0], target, "--target " + a.target);
    report["mse"] = mse;
    std::cout << std::scientific << std::setprecision(4) << "mse: " << mse << std::fixed << "\n";
  }

  // Every file is written under a temporary name first and renamed only once all exist: no partial output.
  nlohmann::json files = nlohmann::json::array();
  const auto writing = std::chrono::steady_clock::now();
  ie::StagedFiles staged;
  for (size_t i = 0; i < paths.size(); ++i) ie::write_tensor_file(staged.stage(paths[i]), run.outputs[i]);
  if (!top_k_path.empty()) {
    check_top_k(a.top_k, run.outputs[0].shape(), outs[0].name);
    write_top_k(staged.stage(top_k_path), run.outputs[0], a.top_k, cfg.class_names);
  }
  staged.publish();
  report["write_s"] = seconds_since(writing);
  for (size_t i = 0; i < paths.size(); ++i)
    std::cout << "wrote " << outs[i].name << " " << ie::shape_to_string(run.outputs[i].shape()) << " -> " << paths[i]
              << "\n";
  for (size_t i = 0; i < run.outputs.size(); ++i)
    files.push_back({{"name", outs[i].name},
                     {"file", paths.empty() ? nullptr : nlohmann::json(paths[i])},
                     {"shape", run.outputs[i].shape()}});
  report["outputs"] = files;
  if (!top_k_path.empty()) {
    report["top_k_file"] = top_k_path;
    std::cout << "wrote top-" << a.top_k << " classes -> " << top_k_path << "\n";
  }
  if (a.profile || !a.profile_pass.json_path.empty() || !a.profile_pass.csv_path.empty()) {
    // A separate pass on the first batch, after the headline run, so timing never skews the throughput above.
    int64_t rows = batch_size > 0 ? std::min(batch_size, run.samples) : run.samples;
    std::map<std::string, ie::Tensor> first;
    for (auto& [name, t] : inputs) first[name] = t.slice_rows(0, rows);
    ie::Session session = engine->create_session();
    report["profile"] = ie::cli::run_profile_pass(session, first, opts, a.profile_pass, std::cout);
  }
  // The engine's teardown (device memory, page-locked staging, streams, graphs) timed here; what remains of the
  // process's wall time after main_s is the device context's teardown at exit (the driver's, about 0.1 s on an
  // H200 whether or not the process ends through exit handlers).
  const auto tearing = std::chrono::steady_clock::now();
  pipeline.reset();
  engine.reset();
  report["teardown_s"] = seconds_since(tearing);
  report["results_s"] = std::chrono::duration<double>(writing - ran).count();  // checks, accuracy, target
  report["before_setup_s"] = std::chrono::duration<double>(started - g_main_started).count();
  report["main_s"] = seconds_since(g_main_started);
  if (a.json) std::cout << report.dump() << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  g_main_started = std::chrono::steady_clock::now();
  CLI::App app{"Run a model on batches of samples from files"};
  Args a;
  app.add_option("--config", a.config, "model config (YAML): model, pre-processing, class names");
  app.add_option("--model", a.model, "any ONNX model");
  app.add_option("--form", a.form, "with --config: which export to run, legacy or dynamo");
  app.add_option("--input,-i", a.inputs, "input file (.npy, IDX(.gz), raw); NAME=PATH for multi-input models")
      ->required();
  app.add_option("--shape", a.shapes, "shape of a raw input: 2x3x4 or NAME=2x3x4");
  app.add_option("--dtype", a.dtypes, "dtype of a raw input: float32 or NAME=float32");
  app.add_option("--output,-o", a.output, "output .npy/.csv (single-output models) or folder");
  app.add_option("--labels", a.labels, "labels file: print accuracy of the first output's argmax");
  app.add_option("--min-accuracy", a.min_accuracy, "exit 1 when accuracy is below this")->check(CLI::Range(0.0, 1.0));
  app.add_option("--target", a.target, "target file: print the MSE of the first output against it");
  app.add_option("--top-k", a.top_k,
                 "write the k best classes per sample as CSV beside the output (k at most the class count)")
      ->check(ie::cli::at_least(1, "--top-k"));
  app.add_option("--backend", a.backend, "cpu | cuda | cuda-reference | auto")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda-reference", "auto"}));
  ie::cli::add_precision_option(app, &a.precision, "", true);
  app.add_option("--batch-size,-b", a.batch_size, "samples per batch (default: the config's, else all)")
      ->check(ie::cli::at_least(1, "--batch-size"));
  app.add_option("--in-flight", a.in_flight, "batches on the GPU at once: the next one uploads while one computes")
      ->check(CLI::Range(1, 16));
  ie::cli::add_devices_option(app, &a.devices);
  ie::cli::add_threads_option(app, &a.threads);
  ie::cli::add_max_memory_option(app, &a.limits);
  app.add_flag("--no-fuse", a.no_fuse, "run without fusion rules");
  app.add_flag("--no-graph", a.no_graph, "run the steps one by one instead of replaying them as a CUDA graph");
  app.add_flag("--json", a.json, "print a JSON report as the last line of stdout");
  app.add_flag("--profile", a.profile, "per-op timing of the first batch (separate pass after the headline run)");
  app.add_option("--profile-json", a.profile_pass.json_path, "write the per-op profile as JSON (implies --profile)");
  app.add_option("--profile-csv", a.profile_pass.csv_path, "write the per-op profile as CSV (implies --profile)");
  app.add_option("--profile-iterations", a.profile_pass.iterations, "timed runs per step (median)")
      ->check(ie::cli::at_least(1, "--profile-iterations"));
  app.add_option("--profile-warmup", a.profile_pass.warmup, "untimed runs before profiling")
      ->check(ie::cli::at_least(0, "--profile-warmup"));
  app.add_flag("--remeasure-peaks", a.profile_pass.remeasure_peaks,
               "measure the device peaks again (ignore the cache)");
  IE_CLI_PARSE(app, argc, argv);
  a.in_flight_given = app.count("--in-flight") > 0;
  return ie::cli::guarded_main("infer", [&] { return run(a); });
}

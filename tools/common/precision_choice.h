// `--precision auto`: the fastest mode of a backend whose accuracy gate holds for this model on a sample of the
// caller's own data, judged against fp32 outputs (the same backend's, or a reference engine the caller loads, such
// as the CPU backend's). The gates are those every mode is tested
// against: relative L2 error of every output at most 1e-3 in tf32 and 1e-2 in fp16/bf16, and for a classifier
// the top-1 class agreeing on at least 99.9% of the samples. Modes are tried fastest first (fp16, whose 11-bit
// significand is the closer of the two 16-bit modes, then bf16, tf32), and fp32 serves when none passes.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/api/engine.h"

namespace ie::cli {

struct PrecisionChoice {
  Precision precision = Precision::fp32;
  std::unique_ptr<Engine> engine;  // loaded in that mode, for the run
  std::string summary;             // one line for the text report: the mode, the figure that chose it
  nlohmann::json json;             // every mode tried: per-output rel L2, top-1 agreement, pass
};

/// Loads the model in a mode (the caller's options with that precision).
using EngineLoader = std::function<Engine(Precision)>;

/// The fp32 reference the faster modes are judged against, when it is not the run's backend in fp32: how to load
/// it (another backend's engine, for example) and its name in the report ("cpu").
struct Reference {
  std::function<Engine()> load;
  std::string name;
};

/// Loads and runs `sample` in fp32 (on a thread of its own, while the fastest mode loads and runs on the caller's)
/// and in each faster mode `backend` implements, fastest first, until one passes its gate;
/// `classifier`: the first output holds class scores per row; `fp32`: the model already loaded in fp32, if the
/// caller has it; `reference`: where the fp32 outputs come from instead of `backend` in fp32 (the run's fp32 engine
/// is then `fp32` or loaded only when no faster mode passes). A backend with fp32 alone answers at once.
///   choose_precision("cuda", load, sample, true, nullptr, {[&] { return Engine::load(cfg, cpu_options); }, "cpu"});
PrecisionChoice choose_precision(const std::string& backend, const EngineLoader& load,
                                 const std::map<std::string, Tensor>& sample, bool classifier,
                                 std::unique_ptr<Engine> fp32 = nullptr, const Reference& reference = {});

}  // namespace ie::cli

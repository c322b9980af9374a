#include "tools/common/precision_choice.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <iomanip>
#include <sstream>
#include <tuple>

#include "engine/backend/backend.h"
#include "tools/common/metrics.h"
#include "tools/common/tensor_diff.h"

namespace ie::cli {
namespace {

constexpr double kMinTop1Agreement = 0.999;

std::string short_number(double v) {
  std::ostringstream s;
  s << std::setprecision(2) << v;
  return s.str();
}

std::string percent(double fraction) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << 100 * fraction << "%";
  return s.str();
}

}  // namespace

PrecisionChoice choose_precision(const std::string& backend, const EngineLoader& load,
                                 const std::map<std::string, Tensor>& sample, bool classifier,
                                 std::unique_ptr<Engine> fp32, const Reference& reference_of_caller) {
  const std::vector<Precision>& implemented = backend_traits(backend).precisions;
  auto has = [&](Precision p) { return std::find(implemented.begin(), implemented.end(), p) != implemented.end(); };
  PrecisionChoice choice;
  choice.json = nlohmann::json::array();
  std::vector<Precision> faster;
  for (Precision p : {Precision::fp16, Precision::bf16, Precision::tf32})
    if (has(p)) faster.push_back(p);
  if (faster.empty()) {
    choice.engine = fp32 ? std::move(fp32) : std::make_unique<Engine>(load(Precision::fp32));
    choice.summary = "fp32 (auto: the only mode of the " + backend + " backend)";
    return choice;
  }
  // The fp32 reference loads and runs on its own thread while the fastest mode does here: both are mostly set-up
  // (planning, first kernel loads, libraries), so the choice costs about one engine's start instead of two. A
  // reference of the caller's (the CPU backend's, say) spares the run's backend its fp32 set-up: on a GPU that
  // is the libraries of the fp32 kernels (cuBLASLt), which the 16-bit modes never open.
  const bool own_reference = static_cast<bool>(reference_of_caller.load);
  std::unique_ptr<Engine> run_fp32 = own_reference ? std::move(fp32) : nullptr;  // the fallback's, if given
  std::future<std::pair<std::unique_ptr<Engine>, std::vector<Tensor>>> reference_run = std::async(
      std::launch::async, [&load, &sample, &reference_of_caller, own_reference, given = std::move(fp32)]() mutable {
        std::unique_ptr<Engine> engine =
            own_reference ? std::make_unique<Engine>(reference_of_caller.load())
                          : given ? std::move(given) : std::make_unique<Engine>(load(Precision::fp32));
        std::vector<Tensor> outputs = engine->create_session().run_ordered(sample);
        return std::make_pair(std::move(engine), std::move(outputs));
      });
  std::unique_ptr<Engine> reference;
  std::vector<Tensor> want;
  std::vector<int64_t> want_top1;
  int64_t samples = 0;
  for (Precision p : faster) {
    auto engine = std::make_unique<Engine>(load(p));
    const std::vector<Tensor> got = engine->create_session().run_ordered(sample);
    if (!reference) {
      std::tie(reference, want) = reference_run.get();
      samples = want.empty() || want[0].shape().empty() ? 0 : want[0].shape()[0];
      if (classifier) want_top1 = argmax_rows(want[0]);
    }
    nlohmann::json tried = {{"precision", precision_name(p)},
                            {"rel_l2_gate", rel_l2_gate(p)},
                            {"reference", (own_reference ? reference_of_caller.name : backend) + " fp32"}};
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double e = diff_tensors(want[i], got[i], default_tolerance(p)).rel_l2;
      tried["rel_l2"][engine->outputs()[i].name] = e;
      worst = std::max(worst, std::isnan(e) ? INFINITY : e);
    }
    double agreement = 1;
    if (classifier) {
      agreement = accuracy(argmax_rows(got[0]), want_top1);
      tried["top1_agreement"] = agreement;
    }
    const bool pass = worst <= rel_l2_gate(p) && agreement >= kMinTop1Agreement;
    tried["pass"] = pass;
    choice.json.push_back(tried);
    if (!pass) continue;
    choice.precision = p;
    choice.engine = std::move(engine);
    choice.summary = std::string(precision_name(p)) + " (auto: rel L2 " + short_number(worst) +
                     " <= " + short_number(rel_l2_gate(p)) + " against " +
                     (own_reference ? reference_of_caller.name + "'s fp32" : "fp32") +
                     (classifier ? ", top-1 agreeing on " + percent(agreement) : std::string()) + ", on " +
                     std::to_string(samples) + " samples of the input)";
    return choice;
  }
  if (own_reference)
    choice.engine = run_fp32 ? std::move(run_fp32) : std::make_unique<Engine>(load(Precision::fp32));
  else
    choice.engine = std::move(reference);
  choice.summary =
      "fp32 (auto: no faster mode met its accuracy gate on " + std::to_string(samples) + " samples of the input)";
  return choice;
}

}  // namespace ie::cli

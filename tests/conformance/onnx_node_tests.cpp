// Runs ONNX's backend node tests (Debian's libonnx-testdata) on the CPU backend.
// A test whose op or element type the engine does not support is skipped with the reason; every other test must
// match ONNX's expected outputs within rtol 1e-3, atol 1e-7 (exact for integers and bools).
//
//   onnx_node_tests [--data DIR] [--filter SUBSTRING] [--backend cpu|cuda-reference|cuda] [--verbose]
// On a GPU backend, a test with a node the backend has no kernel for counts as skipped.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "engine/backend/backend.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/loader/onnx_loader.h"
#include "engine/registry/op_def.h"

namespace fs = std::filesystem;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

bool supported_dtype(ie::DType t) {
  switch (t) {
    case ie::DType::Float32: case ie::DType::Float16: case ie::DType::Float64: case ie::DType::Int32:
    case ie::DType::Int64: case ie::DType::Bool: case ie::DType::Int8: case ie::DType::UInt8:
    case ie::DType::Int16: case ie::DType::UInt16: case ie::DType::UInt32: case ie::DType::UInt64:
      return true;
    default:
      return false;
  }
}

// Empty string when `got` matches `want`, else a description of the first mismatch.
std::string compare(const ie::Tensor& got, const ie::Tensor& want) {
  if (got.dtype() != want.dtype())
    return std::string("dtype ") + ie::dtype_name(got.dtype()) + " != expected " + ie::dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return "shape " + ie::shape_to_string(got.shape()) + " != expected " + ie::shape_to_string(want.shape());
  std::string msg;
  ie::dispatch_all(got.dtype(), "compare", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* g = got.data_as<T>();
    const T* w = want.data_as<T>();
    for (int64_t i = 0; i < got.numel() && msg.empty(); ++i) {
      double a = static_cast<double>(g[i]), b = static_cast<double>(w[i]);
      bool ok;
      if constexpr (std::is_floating_point_v<T> || ie::is_half_like_v<T>) {
        ok = (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= kAtol + kRtol * std::abs(b);
      } else {
        ok = g[i] == w[i];
      }
      if (!ok) msg = "element " + std::to_string(i) + ": got " + std::to_string(a) + ", expected " + std::to_string(b);
    }
  });
  return msg;
}

enum class Outcome { Passed, Failed, Skipped };

Outcome run_test(const fs::path& dir, const std::string& backend, std::string& reason) {
  ie::Graph g;
  try {
    g = ie::load_onnx((dir / "model.onnx").string());
  } catch (const ie::Unsupported& e) {
    reason = e.what();
    return Outcome::Skipped;
  }
  for (auto& d : g.inputs)
    if (!supported_dtype(d.dtype)) { reason = std::string("element type ") + ie::dtype_name(d.dtype); return Outcome::Skipped; }
  for (auto& d : g.outputs)
    if (!supported_dtype(d.dtype)) { reason = std::string("element type ") + ie::dtype_name(d.dtype); return Outcome::Skipped; }
  for (auto& n : g.nodes)
    if (!ie::OpRegistry::get().find(n.domain, n.op_type) || !ie::OpRegistry::get().kernel(n.domain, n.op_type, "cpu")) {
      reason = "op " + n.op_type;
      return Outcome::Skipped;
    }
  ie::Options opts;
  opts.backend = backend;
  ie::Engine engine = ie::Engine::load((dir / "model.onnx").string(), opts);
  ie::Session session = engine.create_session();
  std::vector<fs::path> sets;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  for (auto& set : sets) {
    std::map<std::string, ie::Tensor> inputs;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      fs::path p = set / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) continue;  // an optional input left out
      inputs[g.inputs[i].name] = ie::load_tensor_proto(p.string());
    }
    auto outputs = session.run_ordered(inputs);
    for (size_t i = 0; i < outputs.size(); ++i) {
      fs::path p = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) continue;
      std::string diff = compare(outputs[i], ie::load_tensor_proto(p.string()));
      if (!diff.empty()) {
        reason = set.filename().string() + " output " + g.outputs[i].name + ": " + diff;
        return Outcome::Failed;
      }
    }
  }
  return Outcome::Passed;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "/usr/share/libonnx-testdata/data/node", filter, backend = "cpu";
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (a == "--verbose") verbose = true;
    else {
      std::cerr << "usage: onnx_node_tests [--data DIR] [--filter SUBSTRING] [--backend NAME] [--verbose]\n";
      return 2;
    }
  }
  if (!fs::is_directory(data)) {
    std::cerr << "onnx node test data not found at " << data << " (install libonnx-testdata)\n";
    return 3;
  }
  std::string why;
  if (!ie::backend_available(backend, &why)) {
    std::cerr << "backend " << backend << " cannot run here: " << why << "\n";
    return 4;
  }
  std::vector<fs::path> tests;
  for (auto& e : fs::directory_iterator(data))
    if (e.is_directory() && e.path().filename().string().find(filter) != std::string::npos) tests.push_back(e.path());
  std::sort(tests.begin(), tests.end());
  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int> skip_reasons;
  for (auto& t : tests) {
    std::string reason;
    Outcome o;
    try {
      o = run_test(t, backend, reason);
    } catch (const ie::Unsupported& e) {
      o = Outcome::Skipped;
      reason = e.what();
    } catch (const std::exception& e) {
      o = Outcome::Failed;
      reason = e.what();
    }
    std::string name = t.filename().string();
    if (o == Outcome::Passed) {
      ++passed;
      if (verbose) std::cout << "PASS " << name << "\n";
    } else if (o == Outcome::Failed) {
      ++failed;
      std::cout << "FAIL " << name << ": " << reason << "\n";
    } else {
      ++skipped;
      std::string key = reason.rfind("op ", 0) == 0 || reason.rfind("element type", 0) == 0 ? reason : "other: " + reason.substr(0, 160);
      skip_reasons[key]++;
      if (verbose) std::cout << "SKIP " << name << ": " << reason << "\n";
    }
  }
  std::vector<std::pair<int, std::string>> reasons;
  for (auto& [r, n] : skip_reasons) reasons.emplace_back(n, r);
  std::sort(reasons.rbegin(), reasons.rend());
  std::cout << "skipped, by reason:\n";
  for (auto& [n, r] : reasons) std::cout << "  " << n << "  " << r << "\n";
  std::cout << "onnx node tests" << (backend == "cpu" ? "" : " (" + backend + ")") << ": " << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  return failed > 0 ? 1 : 0;
}

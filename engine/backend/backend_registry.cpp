#include <algorithm>
#include <map>

#include "engine/backend/backend.h"
#include "engine/backend/kernel_sets.h"
#include "engine/core/error.h"

namespace ie {

namespace {
struct Entry {
  BackendTraits traits;
  BackendFactory factory;
  std::function<bool(std::string*)> available;
};
std::map<std::string, Entry>& backends() {
  static std::map<std::string, Entry> table;
  return table;
}

std::string known_backends() {
  std::string known;
  for (auto& [k, v] : backends()) known += (known.empty() ? "" : ", ") + k;
  return known;
}
}  // namespace

void register_backend(const std::string& name, BackendTraits traits, BackendFactory factory,
                      std::function<bool(std::string*)> available) {
  if (traits.kernel_sets.empty()) traits.kernel_sets = {name};
  if (traits.precisions.empty()) traits.precisions = {Precision::fp32};
  backends()[name] = Entry{std::move(traits), std::move(factory), std::move(available)};
}

const BackendTraits& backend_traits(const std::string& name) {
  auto it = backends().find(name);
  if (it == backends().end())
    fail(ErrorKind::Usage, "unknown backend '", name, "' (this build has: ", known_backends(), ", auto)");
  return it->second.traits;
}

void check_precision(const std::string& name, Precision precision) {
  const auto& modes = backend_traits(name).precisions;
  if (std::find(modes.begin(), modes.end(), precision) != modes.end()) return;
  if (modes == std::vector<Precision>{Precision::fp32})
    fail(ErrorKind::Usage, "precision '", precision_name(precision), "' applies to GPU backends; the ", name,
         " backend computes in fp32");
  std::string list;
  for (Precision p : modes) list += (list.empty() ? "" : ", ") + std::string(precision_name(p));
  fail(ErrorKind::Usage, "precision '", precision_name(precision), "' is not implemented by the ", name,
       " backend (it implements ", list, ")");
}

const std::vector<std::string>& Backend::kernel_sets() const { return backend_traits(name()).kernel_sets; }

bool backend_available(const std::string& name, std::string* reason) {
  auto it = backends().find(name);
  if (it == backends().end()) {
    if (reason) *reason = "backend '" + name + "' is not part of this build";
    return false;
  }
  return it->second.available ? it->second.available(reason) : true;
}

int backend_device_count(const std::string& name) {
  const BackendTraits& traits = backend_traits(resolve_backend_name(name));
  return traits.device_count ? traits.device_count() : 1;
}

void check_devices(const std::string& name, const std::vector<int>& devices) {
  const int count = backend_device_count(name);
  for (int d : devices)
    if (d < 0 || d >= count)
      fail(ErrorKind::Usage, "device ", d, " does not exist: backend '", name, "' has ", count, " device",
           count == 1 ? " (0)" : "s (0 to " + std::to_string(count - 1) + ")");
}

void warm_up_backend(const std::string& name, const Options& options) {
  try {
    const std::string resolved = resolve_backend_name(name);
    if (resolved != kernel_set::kCpu && backend_available(resolved, nullptr)) make_backend(resolved, options);
  } catch (...) {
    // Engine::load reports the same failure with its context.
  }
}

std::string resolve_backend_name(const std::string& name) {
  if (name != "auto") return name;
  for (const char* candidate : {kernel_set::kCuda, kernel_set::kCudaReference})
    if (backend_available(candidate, nullptr)) return candidate;
  return kernel_set::kCpu;
}

std::shared_ptr<Backend> make_backend(const std::string& requested, const Options& options,
                                      std::shared_ptr<void>* engine_slot) {
  std::string name = resolve_backend_name(requested);
  auto it = backends().find(name);
  if (it == backends().end())
    fail(ErrorKind::Usage, "unknown backend '", name, "' (this build has: ", known_backends(), ", auto)");
  std::string reason;
  if (!backend_available(name, &reason)) fail(ErrorKind::Device, "backend '", name, "' cannot run here: ", reason);
  check_devices(name, options.devices);
  return it->second.factory(options, engine_slot);
}

}  // namespace ie

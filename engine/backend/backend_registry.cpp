#include <map>

#include "engine/backend/backend.h"
#include "engine/core/error.h"

namespace ie {

namespace {
struct Entry {
  BackendFactory factory;
  std::function<bool(std::string*)> available;
};
std::map<std::string, Entry>& backends() {
  static std::map<std::string, Entry> table;
  return table;
}
}  // namespace

void register_backend(const std::string& name, BackendFactory factory, std::function<bool(std::string*)> available) {
  backends()[name] = Entry{std::move(factory), std::move(available)};
}

bool backend_available(const std::string& name, std::string* reason) {
  auto it = backends().find(name);
  if (it == backends().end()) {
    if (reason) *reason = "backend '" + name + "' is not part of this build";
    return false;
  }
  return it->second.available ? it->second.available(reason) : true;
}

std::string resolve_backend_name(const std::string& name) {
  if (name != "auto") return name;
  for (const char* candidate : {"cuda", "cuda-reference"})
    if (backend_available(candidate, nullptr)) return candidate;
  return "cpu";
}

std::shared_ptr<Backend> make_backend(const std::string& requested, const Options& options,
                                      std::shared_ptr<void>* engine_slot) {
  std::string name = resolve_backend_name(requested);
  auto it = backends().find(name);
  if (it == backends().end()) {
    std::string known;
    for (auto& [k, v] : backends()) known += (known.empty() ? "" : ", ") + k;
    fail(ErrorKind::Usage, "unknown backend '", name, "' (this build has: ", known, ", auto)");
  }
  std::string reason;
  if (!backend_available(name, &reason)) fail(ErrorKind::Device, "backend '", name, "' cannot run here: ", reason);
  return it->second.factory(options, engine_slot);
}

}  // namespace ie

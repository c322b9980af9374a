#include "tools/common/system_info.h"

#include "engine/backend/backend.h"
#include "engine/core/parallel.h"

#ifndef IE_GIT_REVISION
#define IE_GIT_REVISION "unknown"
#endif

namespace ie::cli {

std::string git_revision() { return IE_GIT_REVISION; }

std::vector<std::pair<std::string, std::string>> device_info(const std::string& backend, const Options& options) {
  Options o = options;
  o.backend = backend;
  auto info = make_backend(backend, o)->device_info();
  if (resolve_backend_name(backend) == "cpu")
    info.emplace_back("worker threads", std::to_string(resolve_cpu_threads(options.threads)));
  return info;
}

}  // namespace ie::cli

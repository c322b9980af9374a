#include "engine/profile/cache_folder.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace ie {

std::string cache_folder() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return (fs::path(xdg) / "inferengine").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".cache" / "inferengine").string();
}

std::string safe_file_name(const std::string& name) {
  std::string safe = name.empty() ? "unknown" : name;
  for (char& c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return safe;
}

std::string cache_file_path(const std::string& prefix, const std::string& device) {
  return (fs::path(cache_folder()) / (prefix + "-" + safe_file_name(device) + ".json")).string();
}

}  // namespace ie

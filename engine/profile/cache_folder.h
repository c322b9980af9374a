// Where the engine keeps what it measures once per device (peaks, tuning results): one folder per user, read from
// the environment at each call so that tests can point it elsewhere.
//
//   std::string path = ie::cache_file_path("peaks", "NVIDIA H200");   // ~/.cache/inferengine/peaks-NVIDIA_H200.json
#pragma once

#include <string>

namespace ie {

/// $XDG_CACHE_HOME/inferengine when XDG_CACHE_HOME is set and not empty, else $HOME/.cache/inferengine (./.cache
/// without HOME). The folder is not created here; writers create it.
std::string cache_folder();

/// `name` made safe as a file name: every character outside [A-Za-z0-9._-] becomes '_'; "" becomes "unknown".
std::string safe_file_name(const std::string& name);

/// <cache_folder()>/<prefix>-<safe_file_name(device)>.json
std::string cache_file_path(const std::string& prefix, const std::string& device);

}  // namespace ie

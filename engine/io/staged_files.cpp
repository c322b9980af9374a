#include "engine/io/staged_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/io/file_util.h"

namespace ie {

namespace fs = std::filesystem;

namespace {

std::string folder_of(const std::string& target) {
  std::string dir = fs::path(target).parent_path().string();
  return dir.empty() ? "." : dir;
}

// A target that exists must be a regular file (it will be replaced); a folder there can never be written.
void check_not_blocked(const std::string& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    fail(ErrorKind::Usage, target,
         ": cannot write the output there: ", S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file");
}

}  // namespace

void check_output_target(const std::string& target) {
  check_not_blocked(target);
  // The nearest existing folder on the way up must take new entries (the missing ones are made in it).
  fs::path dir = folder_of(target);
  std::error_code ec;
  while (!fs::exists(dir, ec) && dir.has_parent_path() && dir.parent_path() != dir) dir = dir.parent_path();
  if (!fs::exists(dir, ec)) dir = ".";
  if (!fs::is_directory(dir, ec))
    fail(ErrorKind::Usage, target, ": cannot write the output there: '", dir.string(), "' is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail(ErrorKind::Usage, target, ": cannot write the output there: folder '", dir.string(),
         "' is not writable: ", std::strerror(errno));
}

StagedFiles::~StagedFiles() {
  if (m_published) return;
  for (auto& e : m_entries) std::remove(e.temp.c_str());
  std::error_code ec;
  for (auto it = m_created_folders.rbegin(); it != m_created_folders.rend(); ++it) fs::remove(*it, ec);  // if empty
}

std::string StagedFiles::stage(const std::string& target) {
  static std::atomic<unsigned> counter{0};  // sessions may publish from several threads
  const fs::path dir = folder_of(target);
  std::error_code ec;
  // Remember each folder made, so that a failed run leaves none behind.
  std::vector<fs::path> missing;
  for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) fail(ErrorKind::Usage, target, ": cannot create the output folder '", dir.string(), "': ", ec.message());
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) m_created_folders.push_back(it->string());
  const fs::path t(target);
  std::string temp =
      (dir / concat(".", t.stem().string(), ".staged-", getpid(), "-", counter++, t.extension().string())).string();
  m_entries.push_back(Entry{temp, target});
  return temp;
}

void StagedFiles::publish() {
  for (auto& e : m_entries) check_not_blocked(e.target);
  for (auto& e : m_entries)
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0)
      fail(ErrorKind::Usage, e.target, ": cannot rename the finished output over it: ", std::strerror(errno));
  m_published = true;
}

}  // namespace ie

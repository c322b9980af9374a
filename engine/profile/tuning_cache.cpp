#include "engine/profile/tuning_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "engine/core/error.h"
#include "engine/io/file_util.h"
#include "engine/profile/cache_folder.h"

#ifndef IE_VERSION
#define IE_VERSION "unknown"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace ie {

namespace {

using EntryMap = std::map<std::tuple<std::string, std::string, std::string>, TuneRecord>;

// Bump when the layout of the file changes; older files are then rebuilt.
constexpr int kFormatVersion = 1;
// Integers up to 2^53 survive a double exactly; they are written without a fraction.
constexpr double kMaxExactInteger = 9007199254740992.0;

// Holds an advisory lock on the cache folder while one process reads, merges and replaces a file in it, so two
// processes that tune at once do not drop each other's entries. Best effort: without the lock (a file system that
// refuses flock) the merge still narrows the window to the rename.
class FolderLock {
 public:
  explicit FolderLock(const std::string& folder) {
    m_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (m_fd >= 0 && ::flock(m_fd, LOCK_EX) != 0) {
      ::close(m_fd);
      m_fd = -1;
    }
  }
  ~FolderLock() {
    if (m_fd >= 0) ::close(m_fd);  // closing releases the lock
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int m_fd = -1;
};

json record_to_json(const TuneRecord& r) {
  json j = json::object();
  for (const auto& [name, value] : r.values()) {
    if (const auto* s = std::get_if<std::string>(&value)) {
      j[name] = *s;
    } else {
      const double v = std::get<double>(value);
      if (v == std::floor(v) && std::fabs(v) <= kMaxExactInteger)
        j[name] = static_cast<int64_t>(v);
      else
        j[name] = v;
    }
  }
  return j;
}

TuneRecord record_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("an entry's value is not an object");
  TuneRecord r;
  for (const auto& [name, value] : j.items()) {
    if (value.is_number())
      r.set(name, value.get<double>());
    else if (value.is_string())
      r.set(name, value.get<std::string>());
    else
      throw std::invalid_argument("value \"" + name + "\" is neither a number nor a string");
  }
  return r;
}

json header_json(const DeviceKey& d) {
  return {{"format_version", kFormatVersion},
          {"device", d.name},
          {"driver_version", d.driver_version},
          {"engine_version", engine_version()}};
}

// Why a header does not belong to this device and build, or "" when it does.
std::string foreign_reason(const json& h, const DeviceKey& d) {
  const int format = h.at("format_version").get<int>();
  const std::string device = h.at("device").get<std::string>();
  const int driver = h.at("driver_version").get<int>();
  const std::string engine = h.at("engine_version").get<std::string>();
  if (format != kFormatVersion) return concat("format version ", format, ", this engine writes ", kFormatVersion);
  if (device != d.name) return concat("written for device \"", device, "\", this is \"", d.name, "\"");
  if (driver != d.driver_version) return concat("written for driver ", driver, ", this is ", d.driver_version);
  if (engine != engine_version()) return concat("written by engine ", engine, ", this is ", engine_version());
  return "";
}

// One entry per line, so that the file reads (and diffs) as a table.
std::string file_text(const DeviceKey& device, const EntryMap& entries) {
  std::string text = "{\n\"header\": " + header_json(device).dump() + ",\n\"entries\": [";
  bool first = true;
  for (const auto& [key, record] : entries) {
    json e = {{"kernel", std::get<0>(key)},
              {"shape", std::get<1>(key)},
              {"precision", std::get<2>(key)},
              {"value", record_to_json(record)}};
    text += (first ? "\n  " : ",\n  ") + e.dump();
    first = false;
  }
  return text + "\n]\n}\n";
}

}  // namespace

TuneMode tune_mode() {
  const char* env = std::getenv("IE_TUNE");
  const std::string v = env ? env : "";
  if (v.empty() || v == "cached") return TuneMode::Cached;
  if (v == "off") return TuneMode::Off;
  if (v == "search") return TuneMode::Search;
  fail(ErrorKind::Usage, "IE_TUNE=", v, ": expected off, cached or search");
}

const char* tune_mode_name(TuneMode mode) {
  switch (mode) {
    case TuneMode::Off:
      return "off";
    case TuneMode::Search:
      return "search";
    case TuneMode::Cached:
      break;
  }
  return "cached";
}

const char* engine_version() { return IE_VERSION; }

std::string tuning_cache_path(const std::string& device) { return cache_file_path("tuning", device); }

// ---- TuneRecord ----

TuneRecord& TuneRecord::set_number(const std::string& name, double value) {
  if (!std::isfinite(value)) fail(ErrorKind::Usage, "tuning record: \"", name, "\" must be finite, got ", value);
  m_values[name] = value;
  return *this;
}

TuneRecord& TuneRecord::set(const std::string& name, const std::string& value) {
  m_values[name] = value;
  return *this;
}

std::optional<double> TuneRecord::number(const std::string& name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) return std::nullopt;
  if (const auto* v = std::get_if<double>(&it->second)) return *v;
  return std::nullopt;
}

std::optional<std::string> TuneRecord::text(const std::string& name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) return std::nullopt;
  if (const auto* v = std::get_if<std::string>(&it->second)) return *v;
  return std::nullopt;
}

// ---- TuningCache ----

TuningCache::TuningCache(DeviceKey device) : m_device(std::move(device)), m_path(tuning_cache_path(m_device.name)) {}

TuningCache::~TuningCache() = default;

std::optional<TuneRecord> TuningCache::lookup(const std::string& kernel, const std::string& shape,
                                              const std::string& precision) {
  const TuneMode mode = tune_mode();
  if (mode == TuneMode::Off) return std::nullopt;
  std::lock_guard<std::mutex> lock(m_mutex);
  const Key key{kernel, shape, precision};
  if (mode == TuneMode::Search && !m_own.count(key)) return std::nullopt;
  if (!m_loaded) load_locked();
  auto it = m_entries.find(key);
  if (it == m_entries.end()) return std::nullopt;
  return it->second;
}

void TuningCache::store(const std::string& kernel, const std::string& shape, const std::string& precision,
                        const TuneRecord& winner) {
  if (tune_mode() == TuneMode::Off) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  const Key key{kernel, shape, precision};
  m_entries[key] = winner;
  m_own.insert(key);
  save_locked();
}

size_t TuningCache::size() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_entries.size();
}

void TuningCache::load_locked() {
  m_loaded = true;
  std::optional<Entries> disk = read_file_locked();
  if (!disk) return;
  for (auto& [key, record] : *disk)
    if (!m_own.count(key)) m_entries[key] = std::move(record);
}

void TuningCache::save_locked() {
  const std::string folder = fs::path(m_path).parent_path().string();
  std::error_code ec;
  fs::create_directories(folder, ec);
  FolderLock folder_lock(folder);
  // What other processes saved since we read the file wins, except for the entries this object stored itself.
  Entries merged = read_file_locked().value_or(Entries{});
  for (const Key& key : m_own) merged[key] = m_entries.at(key);
  try {
    AtomicFileWriter out(m_path);
    out.write(file_text(m_device, merged));
    out.commit();
  } catch (const std::exception& e) {
    if (!m_save_warned)
      std::cerr << "warning: tuning cache " << m_path << ": cannot save it (" << e.what()
                << "); its results serve this process only\n";
    m_save_warned = true;
  }
  m_entries = std::move(merged);
  m_loaded = true;
}

std::optional<TuningCache::Entries> TuningCache::read_file_locked() {
  std::error_code ec;
  if (!fs::exists(m_path, ec)) return std::nullopt;
  std::ifstream in(m_path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    warn_once_locked("cannot read it");
    return std::nullopt;
  }
  json j;
  try {
    j = json::parse(buffer.str());
  } catch (const json::exception& e) {
    warn_once_locked(concat("not valid JSON (", e.what(), ")"));
    return std::nullopt;
  }
  try {
    const std::string foreign = foreign_reason(j.at("header"), m_device);
    if (!foreign.empty()) {
      warn_once_locked(foreign);
      return std::nullopt;
    }
    const json& list = j.at("entries");
    if (!list.is_array()) throw std::invalid_argument("\"entries\" is not an array");
    Entries entries;
    for (const json& e : list)
      entries[Key{e.at("kernel").get<std::string>(), e.at("shape").get<std::string>(),
                  e.at("precision").get<std::string>()}] = record_from_json(e.at("value"));
    return entries;
  } catch (const std::exception& e) {  // a missing field, a wrong type
    warn_once_locked(concat("not a tuning cache of this layout (", e.what(), ")"));
    return std::nullopt;
  }
}

void TuningCache::warn_once_locked(const std::string& why) {
  if (m_warned) return;
  m_warned = true;
  std::cerr << "warning: tuning cache " << m_path << ": " << why << "; rebuilding it from scratch\n";
}

TuningCache& tuning_cache_for(const DeviceKey& device) {
  static std::mutex mutex;
  // Never destroyed, so that no kernel or session can outlive it.
  static auto* caches = new std::map<std::pair<std::string, int>, std::unique_ptr<TuningCache>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*caches)[{device.name, device.driver_version}];
  if (!slot) slot = std::make_unique<TuningCache>(device);
  return *slot;
}

}  // namespace ie

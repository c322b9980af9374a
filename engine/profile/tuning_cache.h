// One persisted tuning cache per device, like TensorRT's timing cache: the winner of each timed choice (a cuDNN
// algorithm, a fused kernel's tile configuration), keyed by (kernel, shape, precision), kept in
// <cache_folder()>/tuning-<device>.json so that later processes skip the timing.
//
//   ie::TuningCache& cache = ie::tuning_cache_for({"NVIDIA H200", 13000});
//   const std::string shape = "64,1,86,86/4,5,5";
//   std::optional<ie::TuneRecord> hit = cache.lookup("cudnn_conv_fwd", shape, "tf32");
//   if (!hit) {
//     if (ie::tune_mode() == ie::TuneMode::Off) { /* use the heuristic; nothing is stored */ }
//     else {
//       ie::TuneRecord winner = time_the_candidates();          // e.g. {"algo": 1, "time_ms": 0.04}
//       cache.store("cudnn_conv_fwd", shape, "tf32", winner);  // in memory at once, on disk before it returns
//     }
//   }
//
// IE_TUNE (environment, read at each call) picks the mode: `off` never reads or writes the file; `cached` (the
// default) answers from the file and times only on a miss; `search` ignores what earlier processes stored and
// times again, overwriting their entries.
//
// The file starts with a header {format_version, device, driver_version, engine_version}; a file whose header
// differs (another device, driver or engine build) or that cannot be read as a tuning cache (bad JSON, wrong
// types) is rebuilt from scratch, with one warning on stderr naming the file and why. Saving writes a temporary
// file beside it and renames it over, under an advisory lock, after merging the entries other processes saved
// meanwhile. All members are thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>

namespace ie {

/// How callers tune, from IE_TUNE.
enum class TuneMode { Off, Cached, Search };

/// IE_TUNE: "off", "cached" (also when unset or empty) or "search"; any other value throws Error(Usage) naming
/// the variable and the allowed values.
TuneMode tune_mode();

/// The name of a mode as IE_TUNE spells it.
const char* tune_mode_name(TuneMode mode);

/// What makes tuning results of one device reusable: results are kept per device model and driver.
struct DeviceKey {
  std::string name;        // cudaDeviceProp::name, e.g. "NVIDIA H200"; it also names the file
  int driver_version = 0;  // cudaDriverGetVersion: 13000 for 13.0
};

/// A tuned winner: a flat set of named numbers and strings, stored as one JSON object,
/// e.g. {"algo": 1, "math": 1, "workspace": 0, "time_ms": 0.041}.
///
///   ie::TuneRecord r;
///   r.set("algo", 1).set("time_ms", 0.041).set("tile", "128x64x32");
///   int algo = static_cast<int>(r.number("algo").value_or(0));
class TuneRecord {
 public:
  using Value = std::variant<double, std::string>;

  /// Sets a number (any arithmetic type, held as a double); integers up to 2^53 are exact and written without a
  /// fraction. Throws Error(Usage) when `value` is NaN or infinite, which JSON cannot hold.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  TuneRecord& set(const std::string& name, T value) {
    return set_number(name, static_cast<double>(value));
  }
  /// Sets a string.
  TuneRecord& set(const std::string& name, const std::string& value);
  TuneRecord& set(const std::string& name, const char* value) { return set(name, std::string(value)); }

  /// The number under `name`; nullopt when it is absent or a string.
  std::optional<double> number(const std::string& name) const;
  /// The string under `name`; nullopt when it is absent or a number.
  std::optional<std::string> text(const std::string& name) const;

  const std::map<std::string, Value>& values() const { return m_values; }
  bool operator==(const TuneRecord& other) const { return m_values == other.m_values; }
  bool operator!=(const TuneRecord& other) const { return !(*this == other); }

 private:
  TuneRecord& set_number(const std::string& name, double value);

  std::map<std::string, Value> m_values;
};

/// The tuning results of one device, backed by one file. Use tuning_cache_for() in the engine; a TuningCache made
/// directly (tests, tools) shares the file but not the memory of the engine's instance, as another process would.
class TuningCache {
 public:
  /// The cache of `device` in tuning_cache_path(device.name). Touches no file until the first lookup or store.
  explicit TuningCache(DeviceKey device);
  ~TuningCache();
  TuningCache(const TuningCache&) = delete;
  TuningCache& operator=(const TuningCache&) = delete;

  /// The stored winner of (kernel, shape, precision), or nullopt: always under IE_TUNE=off; under `search`, only
  /// what this object stored itself (each problem is timed once per process); under `cached`, what the file held
  /// when first read plus what was stored since. Reads the file on the first call in `cached` mode.
  std::optional<TuneRecord> lookup(const std::string& kernel, const std::string& shape, const std::string& precision);

  /// Records the winner of (kernel, shape, precision), replacing any earlier one, and saves the file (merged with
  /// what other processes saved meanwhile). Does nothing under IE_TUNE=off. A file that cannot be written is
  /// reported once on stderr; the entry still serves this process.
  void store(const std::string& kernel, const std::string& shape, const std::string& precision,
             const TuneRecord& winner);

  /// Number of entries held in memory (after the last read or save).
  size_t size() const;
  const DeviceKey& device() const { return m_device; }
  const std::string& path() const { return m_path; }

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // kernel, shape, precision
  using Entries = std::map<Key, TuneRecord>;

  void load_locked();
  void save_locked();
  /// Entries of the file, or nullopt when it is missing, or foreign or unreadable (then with a warning, once).
  std::optional<Entries> read_file_locked();
  void warn_once_locked(const std::string& why);

  DeviceKey m_device;
  std::string m_path;
  mutable std::mutex m_mutex;
  bool m_loaded = false;
  bool m_warned = false;       // about the file's content: once per object
  bool m_save_warned = false;  // about a file that cannot be written
  Entries m_entries;           // what lookup() answers from in `cached` mode
  std::set<Key> m_own;         // keys this object stored: they win over the file when merging
};

/// The process-wide cache of a device (one per name and driver version); lives until the process exits.
TuningCache& tuning_cache_for(const DeviceKey& device);

/// The file of a device: <cache_folder()>/tuning-<name with [^A-Za-z0-9._-] as '_'>.json.
std::string tuning_cache_path(const std::string& device);

/// The engine version written in (and required of) the file's header: the CMake project version.
const char* engine_version();

}  // namespace ie

// The persisted tuning cache: round trips through the file, atomic saves, rebuilding corrupt and foreign files,
// the IE_TUNE modes and concurrent stores. Every test points XDG_CACHE_HOME at a fresh folder.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/api/engine.h"
#include "engine/profile/tuning_cache.h"
#include "scoped_env.h"

namespace fs = std::filesystem;

namespace {

using ie::test::ScopedEnv;

// A fresh cache folder for one test (XDG_CACHE_HOME), IE_TUNE unset; both restored afterwards.
struct TuningSandbox {
  fs::path dir = fs::temp_directory_path() / ("ie-tuning-test-" + std::to_string(std::random_device{}()));
  ScopedEnv xdg{"XDG_CACHE_HOME", dir.c_str()};
  ScopedEnv tune{"IE_TUNE", nullptr};
  TuningSandbox() { fs::create_directories(dir); }
  ~TuningSandbox() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path folder() const { return dir / "inferengine"; }
};

// Collects what is written to std::cerr in one scope.
class CaptureStderr {
 public:
  CaptureStderr() : m_old(std::cerr.rdbuf(m_text.rdbuf())) {}
  ~CaptureStderr() { std::cerr.rdbuf(m_old); }
  std::string text() const { return m_text.str(); }

 private:
  std::ostringstream m_text;
  std::streambuf* m_old;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> files_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  return names;
}

const ie::DeviceKey kDevice{"Test GPU 9000", 13000};

ie::TuneRecord record(int algo, double time_ms) {
  ie::TuneRecord r;
  r.set("algo", algo).set("math", 1).set("workspace", 1 << 20).set("time_ms", time_ms).set("tile", "128x64");
  return r;
}

// Stores one entry so that the file exists, then returns its text.
std::string seeded_file() {
  ie::TuningCache cache(kDevice);
  cache.store("k", "1,2,3", "fp32", record(1, 0.5));
  return read_text(cache.path());
}

// A file damaged or foreign in one way: the cache warns once, naming the file and `why`, and starts afresh.
void check_rebuilt(const std::string& text, const std::string& why, const ie::DeviceKey& device = kDevice) {
  const std::string path = ie::tuning_cache_path(device.name);
  write_text(path, text);
  CaptureStderr err;
  ie::TuningCache cache(device);
  CHECK_FALSE(cache.lookup("k", "1,2,3", "fp32"));
  cache.store("k", "4,5,6", "fp32", record(2, 0.25));
  CHECK_FALSE(cache.lookup("k", "1,2,3", "fp32"));
  REQUIRE(cache.lookup("k", "4,5,6", "fp32"));
  const std::string warnings = err.text();
  CHECK(count_of(warnings, "warning:") == 1);
  CHECK(warnings.find(path) != std::string::npos);
  CHECK_MESSAGE(warnings.find(why) != std::string::npos, warnings);
  // The rebuilt file reads back cleanly.
  CaptureStderr quiet;
  ie::TuningCache again(device);
  CHECK(again.lookup("k", "4,5,6", "fp32") == record(2, 0.25));
  CHECK(quiet.text().empty());
}

}  // namespace

TEST_CASE("tuning cache: a stored winner reads back through another cache object") {
  TuningSandbox box;
  ie::TuningCache a(kDevice);
  CHECK(a.path() == (box.folder() / "tuning-Test_GPU_9000.json").string());
  CHECK_FALSE(fs::exists(a.path()));  // nothing is touched before the first store
  CHECK_FALSE(a.lookup("cudnn_conv_fwd", "64,1,86,86/4,5,5", "fp32"));
  a.store("cudnn_conv_fwd", "64,1,86,86/4,5,5", "fp32", record(1, 0.125));
  a.store("cudnn_conv_fwd", "64,1,86,86/4,5,5", "tf32", record(6, 0.0625));
  a.store("fused_gemm", "512x512x512", "fp16", record(3, 1.5));
  CHECK(a.size() == 3);

  ie::TuningCache b(kDevice);
  std::optional<ie::TuneRecord> hit = b.lookup("cudnn_conv_fwd", "64,1,86,86/4,5,5", "tf32");
  REQUIRE(hit);
  CHECK(*hit == record(6, 0.0625));
  CHECK(hit->number("algo") == 6.0);
  CHECK(hit->text("tile") == "128x64");
  CHECK_FALSE(hit->number("tile"));
  CHECK_FALSE(hit->text("missing"));
  CHECK(b.lookup("fused_gemm", "512x512x512", "fp16") == record(3, 1.5));
  CHECK_FALSE(b.lookup("fused_gemm", "512x512x512", "fp32"));
  CHECK(b.size() == 3);

  // The header, and integers written as integers.
  const std::string text = read_text(a.path());
  CHECK(text.find("\"device\":\"Test GPU 9000\"") != std::string::npos);
  CHECK(text.find("\"driver_version\":13000") != std::string::npos);
  CHECK(text.find(std::string("\"engine_version\":\"") + ie::engine_version() + "\"") != std::string::npos);
  CHECK(text.find("\"algo\":6,") != std::string::npos);
}

TEST_CASE("tuning cache: a save leaves only the cache file behind") {
  TuningSandbox box;
  ie::TuningCache cache(kDevice);
  for (int i = 0; i < 5; ++i) cache.store("k", std::to_string(i), "fp32", record(i, 1));
  CHECK(files_in(box.folder()) == std::vector<std::string>{"tuning-Test_GPU_9000.json"});
}

TEST_CASE("tuning cache: records hold finite numbers only") {
  ie::TuneRecord r;
  CHECK_THROWS_AS(r.set("time_ms", std::nan("")), ie::Error);
  CHECK_THROWS_AS(r.set("time_ms", INFINITY), ie::Error);
}

TEST_CASE("tuning cache: a corrupt file is rebuilt with one warning") {
  TuningSandbox box;
  SUBCASE("not JSON") { check_rebuilt("{\"header\": {", "not valid JSON"); }
  SUBCASE("empty") { check_rebuilt("", "not valid JSON"); }
  SUBCASE("a value of the wrong type") {
    const std::string text = std::regex_replace(seeded_file(), std::regex("\"algo\":1"), "\"algo\":true");
    check_rebuilt(text, "neither a number nor a string");
  }
  SUBCASE("a header field of the wrong type") {
    const std::string text =
        std::regex_replace(seeded_file(), std::regex("\"driver_version\":13000"), "\"driver_version\":\"13.0\"");
    check_rebuilt(text, "not a tuning cache");
  }
  SUBCASE("entries missing") { check_rebuilt("{\"header\": 1}", "not a tuning cache"); }
}

TEST_CASE("tuning cache: a file of another device, driver, engine or format is rebuilt") {
  TuningSandbox box;
  SUBCASE("another device under the same file name") {
    // "Test GPU 9000" and "Test_GPU_9000" share a file name; the header tells them apart.
    const std::string text = seeded_file();
    check_rebuilt(text, "written for device \"Test GPU 9000\"", {"Test_GPU_9000", kDevice.driver_version});
  }
  SUBCASE("another driver") { check_rebuilt(seeded_file(), "written for driver 13000", {kDevice.name, 13010}); }
  SUBCASE("another engine version") {
    const std::string text =
        std::regex_replace(seeded_file(), std::regex("\"engine_version\":\"[^\"]*\""), "\"engine_version\":\"0.0.1\"");
    check_rebuilt(text, "written by engine 0.0.1");
  }
  SUBCASE("another format version") {
    const std::string text =
        std::regex_replace(seeded_file(), std::regex("\"format_version\":1"), "\"format_version\":99");
    check_rebuilt(text, "format version 99");
  }
}

TEST_CASE("tuning cache: IE_TUNE=off neither reads nor writes the file") {
  TuningSandbox box;
  const std::string before = seeded_file();
  box.tune.set("off");
  CHECK(ie::tune_mode() == ie::TuneMode::Off);
  ie::TuningCache cache(kDevice);
  CHECK_FALSE(cache.lookup("k", "1,2,3", "fp32"));
  cache.store("k", "7,8,9", "fp32", record(4, 1));
  CHECK_FALSE(cache.lookup("k", "7,8,9", "fp32"));
  CHECK(read_text(cache.path()) == before);

  // In a folder with no cache, nothing is created.
  fs::remove_all(box.folder());
  ie::TuningCache fresh(kDevice);
  fresh.store("k", "1", "fp32", record(1, 1));
  CHECK_FALSE(fs::exists(box.folder()));
}

TEST_CASE("tuning cache: IE_TUNE=search ignores stored entries and overwrites them") {
  TuningSandbox box;
  seeded_file();  // k 1,2,3 fp32 -> algo 1
  box.tune.set("search");
  CHECK(ie::tune_mode() == ie::TuneMode::Search);
  ie::TuningCache cache(kDevice);
  CHECK_FALSE(cache.lookup("k", "1,2,3", "fp32"));
  cache.store("k", "1,2,3", "fp32", record(5, 0.1));
  CHECK(cache.lookup("k", "1,2,3", "fp32") == record(5, 0.1));  // timed once per process

  box.tune.set("cached");
  CHECK(ie::tune_mode() == ie::TuneMode::Cached);
  ie::TuningCache later(kDevice);
  CHECK(later.lookup("k", "1,2,3", "fp32") == record(5, 0.1));
}

TEST_CASE("tuning cache: an unknown IE_TUNE is a usage error naming the variable and the values") {
  TuningSandbox box;
  box.tune.set("");
  CHECK(ie::tune_mode() == ie::TuneMode::Cached);
  box.tune.set("fast");
  try {
    ie::tune_mode();
    FAIL("no error");
  } catch (const ie::Error& e) {
    const std::string what = e.what();
    CHECK(e.kind() == ie::ErrorKind::Usage);
    CHECK(what.find("IE_TUNE=fast") != std::string::npos);
    CHECK(what.find("off, cached or search") != std::string::npos);
  }
  ie::TuningCache cache(kDevice);
  CHECK_THROWS_AS(cache.lookup("k", "1", "fp32"), ie::Error);
  CHECK_THROWS_AS(cache.store("k", "1", "fp32", record(1, 1)), ie::Error);
}

TEST_CASE("tuning cache: a save merges what another process saved meanwhile") {
  TuningSandbox box;
  ie::TuningCache a(kDevice), b(kDevice);
  CHECK_FALSE(a.lookup("k", "a", "fp32"));  // a has read the (missing) file
  b.store("k", "b", "fp32", record(2, 2));
  a.store("k", "a", "fp32", record(1, 1));
  CHECK(a.lookup("k", "b", "fp32") == record(2, 2));
  ie::TuningCache c(kDevice);
  CHECK(c.lookup("k", "a", "fp32") == record(1, 1));
  CHECK(c.lookup("k", "b", "fp32") == record(2, 2));
}

TEST_CASE("tuning cache: concurrent stores from threads all land") {
  TuningSandbox box;
  // Two objects stand for two processes sharing the file; threads use both at once.
  ie::TuningCache a(kDevice), b(kDevice);
  constexpr int kThreads = 8, kPerThread = 20;
  std::atomic<int> misses{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        ie::TuningCache& cache = (t + i) % 2 ? a : b;
        const std::string shape = std::to_string(t) + "/" + std::to_string(i);
        cache.store("k", shape, "fp32", record(t * 100 + i, 1));
        if (cache.lookup("k", shape, "fp32") != record(t * 100 + i, 1)) ++misses;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(misses == 0);
  ie::TuningCache c(kDevice);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i)
      CHECK(c.lookup("k", std::to_string(t) + "/" + std::to_string(i), "fp32") == record(t * 100 + i, 1));
  CHECK(c.size() == size_t(kThreads * kPerThread));
  CHECK(files_in(box.folder()).size() == 1);
}

TEST_CASE("tuning cache: a folder that cannot be written is reported once; results still serve the process") {
  TuningSandbox box;
  // XDG_CACHE_HOME names a plain file, so the cache folder cannot be made (even as root).
  const fs::path blocker = box.dir / "not-a-folder";
  write_text(blocker.string(), "x");
  box.xdg.set(blocker.c_str());
  CaptureStderr err;
  ie::TuningCache cache(kDevice);
  cache.store("k", "1", "fp32", record(1, 1));
  cache.store("k", "2", "fp32", record(2, 1));
  CHECK(cache.lookup("k", "1", "fp32") == record(1, 1));
  CHECK(count_of(err.text(), "warning:") == 1);
  CHECK(err.text().find("cannot save it") != std::string::npos);
}

TEST_CASE("tuning cache: one process-wide cache per device and driver") {
  TuningSandbox box;
  ie::TuningCache& a = ie::tuning_cache_for({"Test GPU 42", 1});
  CHECK(&a == &ie::tuning_cache_for({"Test GPU 42", 1}));
  CHECK(&a != &ie::tuning_cache_for({"Test GPU 42", 2}));
  CHECK(a.device().name == "Test GPU 42");
}

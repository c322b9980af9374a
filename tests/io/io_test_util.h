// Helpers for the tensor file tests: a temporary folder, raw file bytes, and the fixture value formula.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine/core/dtype_dispatch.h"

namespace ie_test {

// A fresh folder under the system temp dir, removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() / ("ie_io_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  std::string file(const std::string& name) const { return (m_path / name).string(); }
  // Names of the entries in the folder, to check that no temporary file was left behind.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(m_path)) names.push_back(e.path().filename().string());
    return names;
  }

 private:
  std::filesystem::path m_path;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

inline std::string fixture(const std::string& name) { return std::string(IE_SOURCE_DIR) + "/tests/data/" + name; }

// Element i of the typed fixtures written by tests/data/make_npy_fixtures.py.
template <class T>
T fixture_value(int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 3 == 0;
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || ie::is_half_like_v<T>) {
    return T(i * 0.25 - 1.5);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<T>((i * 37) % 256);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return static_cast<T>((i * 37) % 256 - 128);
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return static_cast<T>(i * 1000 - 12000);
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return static_cast<T>(i * 2000);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return static_cast<T>(i * 100003 - 1000000);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return static_cast<T>(i * 100000000);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return i * 3000000019ll - 7;
  } else {
    return static_cast<T>(static_cast<uint64_t>(i) * 600000000000000000ull);
  }
}

// A tensor of the given dtype and shape filled with fixture_value.
inline ie::Tensor fixture_tensor(ie::DType dtype, std::vector<int64_t> shape) {
  ie::Tensor t(dtype, std::move(shape));
  ie::dispatch_all(dtype, "fixture_tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = fixture_value<T>(i);
  });
  return t;
}

// Runs fn, which must throw ie::Error of the given kind whose message contains every part.
template <class Fn>
void check_error(Fn&& fn, ie::ErrorKind kind, const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL("expected an ie::Error containing '", parts.empty() ? "" : parts[0], "'");
  } catch (const ie::Error& e) {
    CHECK_MESSAGE(e.kind() == kind, "wrong kind for: ", std::string(e.what()));
    for (const auto& p : parts)
      CHECK_MESSAGE(std::string(e.what()).find(p) != std::string::npos, "'", std::string(e.what()), "' lacks '", p,
                    "'");
  }
}

// Writes the bytes to path, then checks that read(path) throws Error(BadInput) naming the file and every part.
template <class Read>
void check_bad_file(const std::string& path, const std::string& bytes, Read read,
                    const std::vector<std::string>& parts) {
  write_bytes(path, bytes);
  std::vector<std::string> all = {path};
  all.insert(all.end(), parts.begin(), parts.end());
  check_error([&] { read(path); }, ie::ErrorKind::BadInput, all);
}

// Same dtype, shape and bytes.
inline void check_same_tensor(const ie::Tensor& a, const ie::Tensor& b) {
  REQUIRE(a.dtype() == b.dtype());
  REQUIRE(a.shape() == b.shape());
  CHECK(std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

// Every dtype the npy and raw formats hold.
inline const std::vector<ie::DType>& all_file_dtypes() {
  static const std::vector<ie::DType> kAll = {
      ie::DType::Float32, ie::DType::Float16, ie::DType::Float64, ie::DType::UInt8, ie::DType::Int8,   ie::DType::Int16,
      ie::DType::UInt16,  ie::DType::Int32,   ie::DType::UInt32,  ie::DType::Int64, ie::DType::UInt64, ie::DType::Bool};
  return kAll;
}

// Odd shapes for round trips: 0-d, zero-length dims, ones, and a few uneven sizes.
inline const std::vector<std::vector<int64_t>>& odd_shapes() {
  static const std::vector<std::vector<int64_t>> kShapes = {{},  {0},       {3, 0, 2},       {1},
                                                            {7}, {2, 3, 5}, {1, 1, 1, 1, 3}, {13, 17}};
  return kShapes;
}

// Writes and reads back a fixture tensor of every given dtype and odd shape through `path`.
// read(path, dtype, shape) returns the tensor; the format's own checks go in check_file(bytes, tensor).
template <class Write, class Read, class CheckFile>
void check_round_trips(const std::vector<ie::DType>& dtypes, const std::string& path, Write write, Read read,
                       CheckFile check_file) {
  for (ie::DType dtype : dtypes) {
    for (const auto& shape : odd_shapes()) {
      CAPTURE(ie::dtype_name(dtype));
      CAPTURE(ie::shape_to_string(shape));
      CAPTURE(path);
      ie::Tensor t = fixture_tensor(dtype, shape);
      write(path, t);
      check_file(read_bytes(path), t);
      check_same_tensor(read(path, dtype, shape), t);
    }
  }
}

}  // namespace ie_test

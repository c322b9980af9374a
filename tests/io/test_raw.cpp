#include <doctest/doctest.h>

#include "engine/io/raw.h"
#include "io_test_util.h"

using ie::DType;
using ie::ErrorKind;
using namespace ie_test;

TEST_CASE("raw: round-trips every dtype and odd shapes") {
  TempDir dir;
  std::string path = dir.file("t.bin");
  check_round_trips(all_file_dtypes(), path, ie::write_raw, ie::read_raw,
                    [](const std::string& bytes, const ie::Tensor& t) { CHECK(bytes.size() == t.nbytes()); });
  CHECK(dir.entries() == std::vector<std::string>{"t.bin"});
}

TEST_CASE("raw: the file is the little-endian elements and nothing else") {
  TempDir dir;
  std::string path = dir.file("x.raw");
  write_bytes(path, std::string("\x00\x00\xc0\x3f\x00\x00\x20\xc0", 8));
  ie::Tensor t = ie::read_raw(path, DType::Float32, {2, 1});
  CHECK(t.shape() == std::vector<int64_t>{2, 1});
  CHECK(t.data_as<float>()[0] == 1.5f);
  CHECK(t.data_as<float>()[1] == -2.5f);
  ie::Tensor i = ie::read_raw(path, DType::Int64, {});
  CHECK(i.rank() == 0);
  write_bytes(path, std::string("\x00\x05\x01", 3));
  ie::Tensor b = ie::read_raw(path, DType::Bool, {3});
  CHECK(b.data_as<uint8_t>()[1] == 1);
}

TEST_CASE("raw: a size mismatch names the file with expected and actual bytes") {
  TempDir dir;
  std::string path = dir.file("x.bin");
  write_bytes(path, std::string(100, '\0'));
  check_error(
      [&] {
        ie::read_raw(path, DType::Float32, {2, 3});
      },
      ErrorKind::BadInput, {"x.bin", "[2,3]", "float32", "expected 24 bytes, got 100", "(25 float32 elements)"});
  check_error([&] { ie::read_raw(path, DType::Float64, {20}); }, ErrorKind::BadInput, {"expected 160 bytes, got 100"});
  check_error([&] { ie::read_raw(path, DType::Float32, {-1, 25}); }, ErrorKind::Usage, {"x.bin", "negative"});
  check_error([&] { ie::read_raw(path, DType::String, {1}); }, ErrorKind::Usage, {"x.bin", "string"});
  check_error([&] { ie::read_raw(path, DType::UInt8, {1ll << 40, 1ll << 40}); }, ErrorKind::Usage, {"too large"});
  check_error([&] { ie::read_raw(dir.file("nope.bin"), DType::UInt8, {1}); }, ErrorKind::BadInput, {"nope.bin"});
  check_error([&] { ie::write_raw(dir.file("no/dir.bin"), ie::Tensor(DType::UInt8, {1})); }, ErrorKind::Usage,
              {"no/dir.bin"});
  CHECK(dir.entries() == std::vector<std::string>{"x.bin"});
}

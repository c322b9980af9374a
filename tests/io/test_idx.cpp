#include <doctest/doctest.h>

#include <algorithm>

#include "engine/io/idx.h"
#include "io_test_util.h"

using ie::DType;
using ie::ErrorKind;
using namespace ie_test;

namespace {

const std::string kImages = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
const std::string kLabels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// A plain IDX file: magic, dims, then the given (already big-endian) data bytes.
std::string make_idx(int type, const std::vector<uint32_t>& dims, const std::string& data) {
  std::string s = {'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims) s += be32(d);
  return s + data;
}

uint32_t crc32(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

std::string le32(uint32_t v) {
  std::string s = be32(v);
  return {s[3], s[2], s[1], s[0]};
}

// A gzip file holding the bytes in one stored (uncompressed) deflate block, made without zlib.
std::string make_gzip_stored(const std::string& bytes) {
  REQUIRE(bytes.size() < 65536);
  uint16_t len = static_cast<uint16_t>(bytes.size());
  std::string s("\x1f\x8b\x08\0\0\0\0\0\0\xff", 10);
  s += '\x01';  // final block, stored
  s += {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8), static_cast<char>(~len & 0xFF),
        static_cast<char>((~len >> 8) & 0xFF)};
  return s + bytes + le32(crc32(bytes)) + le32(static_cast<uint32_t>(bytes.size()));
}

}  // namespace

TEST_CASE("idx: reads the Fashion-MNIST test images and labels (gzip)") {
  ie::Tensor images = ie::read_idx(kImages);
  REQUIRE(images.dtype() == DType::UInt8);
  REQUIRE(images.shape() == std::vector<int64_t>{10000, 28, 28});
  const uint8_t* px = images.data_as<uint8_t>();
  int64_t sum = 0, weighted = 0;
  for (int64_t i = 0; i < images.numel(); ++i) {
    sum += px[i];
    weighted += px[i] * (i % 784);
  }
  // Reference values from numpy on the same file.
  CHECK(sum == 573469082);
  CHECK(weighted == 236137034519);
  const uint8_t row[28] = {0, 0,  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0, 4,
                           0, 53, 129, 120, 147, 175, 157, 166, 135, 154, 168, 140, 0, 0};
  CHECK(std::memcmp(px + 10 * 28, row, 28) == 0);

  ie::Tensor labels = ie::read_idx(kLabels);
  REQUIRE(labels.dtype() == DType::UInt8);
  REQUIRE(labels.shape() == std::vector<int64_t>{10000});
  const uint8_t first[10] = {9, 2, 1, 1, 6, 1, 4, 6, 5, 7};
  CHECK(std::memcmp(labels.data_as<uint8_t>(), first, 10) == 0);
  std::vector<int> counts(10, 0);
  for (int64_t i = 0; i < labels.numel(); ++i) counts.at(labels.data_as<uint8_t>()[i])++;
  CHECK(counts == std::vector<int>(10, 1000));
}

TEST_CASE("idx: converts big-endian data of every type") {
  TempDir dir;
  std::string path = dir.file("x-idx2-ubyte");
  write_bytes(path, make_idx(0x08, {1, 3}, "\x01\x80\xff"));
  ie::Tensor u8 = ie::read_idx(path);
  CHECK(u8.dtype() == DType::UInt8);
  CHECK(u8.data_as<uint8_t>()[1] == 128);

  write_bytes(path, make_idx(0x09, {2}, "\x7f\x80"));
  ie::Tensor i8 = ie::read_idx(path);
  CHECK(i8.dtype() == DType::Int8);
  CHECK(i8.data_as<int8_t>()[1] == -128);

  write_bytes(path, make_idx(0x0B, {2}, "\x01\x02\xff\xfe"));
  ie::Tensor i16 = ie::read_idx(path);
  CHECK(i16.dtype() == DType::Int16);
  CHECK(i16.data_as<int16_t>()[0] == 258);
  CHECK(i16.data_as<int16_t>()[1] == -2);

  write_bytes(path, make_idx(0x0C, {1}, "\x01\x02\x03\x04"));
  ie::Tensor i32 = ie::read_idx(path);
  CHECK(i32.dtype() == DType::Int32);
  CHECK(i32.data_as<int32_t>()[0] == 0x01020304);

  write_bytes(path, make_idx(0x0D, {1, 1}, std::string("\x3f\xc0\0\0", 4)));
  ie::Tensor f32 = ie::read_idx(path);
  CHECK(f32.dtype() == DType::Float32);
  CHECK(f32.shape() == std::vector<int64_t>{1, 1});
  CHECK(f32.data_as<float>()[0] == 1.5f);

  write_bytes(path, make_idx(0x0E, {1}, std::string("\xc0\x04\0\0\0\0\0\0", 8)));
  ie::Tensor f64 = ie::read_idx(path);
  CHECK(f64.dtype() == DType::Float64);
  CHECK(f64.data_as<double>()[0] == -2.5);
}

TEST_CASE("idx: round-trips every IDX type, plain and gzip, with odd shapes") {
  TempDir dir;
  for (const char* name : {"t.idx", "t-ubyte.gz"}) {
    check_round_trips(
        {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Float32, DType::Float64}, dir.file(name),
        ie::write_idx, [](const std::string& p, DType, auto&) { return ie::read_idx(p); },
        [](const std::string&, const ie::Tensor&) {});
  }
  std::string gz = read_bytes(dir.file("t-ubyte.gz"));
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
  // The plain file is header + big-endian data.
  ie::write_idx(dir.file("s.idx"), fixture_tensor(DType::Int16, {2}));
  CHECK(read_bytes(dir.file("s.idx")) == make_idx(0x0B, {2}, "\xd1\x20\xd5\x08"));
  check_error([&] { ie::write_idx(dir.file("b.idx"), ie::Tensor(DType::Bool, {2})); }, ErrorKind::Usage,
              {"b.idx", "bool"});
  auto entries = dir.entries();
  std::sort(entries.begin(), entries.end());
  CHECK(entries == std::vector<std::string>{"s.idx", "t-ubyte.gz", "t.idx"});
}

TEST_CASE("idx: truncated or corrupt plain files name the file and the byte counts") {
  TempDir dir;
  std::string path = dir.file("bad-idx1-ubyte");
  auto check_bad = [&](const std::string& bytes, const std::vector<std::string>& parts) {
    check_bad_file(path, bytes, ie::read_idx, parts);
  };
  check_bad(std::string("\0\0", 2), {"truncated IDX header", "expected 4 bytes, got 2"});
  check_bad(std::string("\0\0\x08\x03\0\0\0\x02", 8), {"truncated IDX header", "expected 16 bytes, got 8"});
  check_bad(make_idx(0x08, {10}, "abc"), {"truncated IDX data", "[10]", "expected 18 bytes in the file, got 11"});
  check_bad(make_idx(0x0D, {2}, "12345678extra"), {"unexpected bytes after IDX data", "expected 16 bytes", "got 21"});
  check_bad("\x1\x2\x8\x1", {"not an IDX file"});
  check_bad(make_idx(0x0A, {1}, "a"), {"unknown IDX type byte 0x0A"});
  check_bad(make_idx(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, ""), {"too large"});
  check_error([&] { ie::read_idx(dir.file("none.idx")); }, ErrorKind::BadInput, {"none.idx", "cannot open"});
}

TEST_CASE("idx: truncated or corrupt gzip files name the file and the byte counts") {
  TempDir dir;
  std::string labels = read_bytes(kLabels);
  std::string path = dir.file("labels-idx1-ubyte.gz");

  write_bytes(path, labels.substr(0, labels.size() / 2));
  check_error([&] { ie::read_idx(path); }, ErrorKind::BadInput,
              {"labels-idx1-ubyte.gz", "truncated IDX data", "expected 10008 decompressed bytes, got", "ends early"});

  std::string corrupt = labels;
  for (size_t i = 100; i < 200; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  write_bytes(path, corrupt);
  check_error([&] { ie::read_idx(path); }, ErrorKind::BadInput, {"labels-idx1-ubyte.gz: corrupt gzip data"});

  // A gzip file made independently of zlib's writer.
  write_bytes(path, make_gzip_stored(make_idx(0x0B, {2}, "\x01\x02\xff\xfe")));
  ie::Tensor t = ie::read_idx(path);
  CHECK(t.dtype() == DType::Int16);
  CHECK(t.data_as<int16_t>()[0] == 258);
  CHECK(t.data_as<int16_t>()[1] == -2);

  // Dims far beyond what a tiny gzip file can hold fail before any allocation.
  write_bytes(path, make_gzip_stored(make_idx(0x08, {1u << 20, 1u << 20}, "abc")));
  check_error([&] { ie::read_idx(path); }, ErrorKind::BadInput,
              {"labels-idx1-ubyte.gz", "[1048576,1048576]", "more than a 38-byte gzip file can hold"});
  write_bytes(path, make_gzip_stored(make_idx(0x08, {4}, "abc")));
  check_error([&] { ie::read_idx(path); }, ErrorKind::BadInput,
              {"labels-idx1-ubyte.gz", "truncated IDX data", "expected 12 decompressed bytes, got 11"});
  write_bytes(path, make_gzip_stored(make_idx(0x08, {2}, "abc")));
  check_error([&] { ie::read_idx(path); }, ErrorKind::BadInput,
              {"labels-idx1-ubyte.gz", "unexpected bytes after IDX data"});
}

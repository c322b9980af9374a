#include <doctest/doctest.h>

#include <cmath>

#include "engine/core/float_convert.h"
#include "engine/io/npy.h"
#include "io_test_util.h"

using ie::DType;
using ie::ErrorKind;
using namespace ie_test;

namespace {

std::string npy_fixture(const std::string& name) { return fixture("npy/" + name + ".npy"); }

// A version 1.0 .npy file with the given header text (padded like numpy's) and data bytes.
std::string make_npy(const std::string& dict, const std::string& data, char major = 1) {
  std::string head = std::string("\x93NUMPY", 6) + major + '\0';
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t total = (8 + len_bytes + dict.size() + 1 + 63) / 64 * 64;
  size_t header_len = total - 8 - len_bytes;
  for (size_t i = 0; i < len_bytes; ++i) head += static_cast<char>((header_len >> (8 * i)) & 0xFF);
  head += dict + std::string(header_len - dict.size() - 1, ' ') + '\n';
  return head + data;
}

}  // namespace

TEST_CASE("npy: reads numpy's files of every dtype") {
  const char* names[] = {"float32", "float16", "float64", "uint8", "int8",   "int16",
                         "uint16",  "int32",   "uint32",  "int64", "uint64", "bool"};
  for (size_t k = 0; k < all_file_dtypes().size(); ++k) {
    DType dtype = all_file_dtypes()[k];
    CAPTURE(names[k]);
    REQUIRE(std::string(names[k]) == ie::dtype_name(dtype));
    ie::Tensor t = ie::read_npy(npy_fixture(names[k]));
    check_same_tensor(t, fixture_tensor(dtype, {2, 3, 5}));
  }
}

TEST_CASE("npy: reads 0-d, zero-length and version 2.0 / 3.0 files") {
  ie::Tensor s = ie::read_npy(npy_fixture("float32_scalar"));
  CHECK(s.rank() == 0);
  CHECK(s.numel() == 1);
  CHECK(s.data_as<float>()[0] == 2.5f);

  ie::Tensor e = ie::read_npy(npy_fixture("float32_empty"));
  CHECK(e.shape() == std::vector<int64_t>{0, 3});
  CHECK(e.numel() == 0);

  for (const char* name : {"float32_v2", "float32_v3"}) {
    CAPTURE(name);
    check_same_tensor(ie::read_npy(npy_fixture(name)), fixture_tensor(DType::Float32, {2, 3, 5}));
  }
}

TEST_CASE("npy: writes the same bytes as numpy") {
  const char* names[] = {"float32", "float16", "float64", "uint8", "int8",   "int16",
                         "uint16",  "int32",   "uint32",  "int64", "uint64", "bool"};
  TempDir dir;
  for (size_t k = 0; k < all_file_dtypes().size(); ++k) {
    CAPTURE(names[k]);
    std::string path = dir.file(std::string(names[k]) + ".npy");
    ie::write_npy(path, fixture_tensor(all_file_dtypes()[k], {2, 3, 5}));
    CHECK(read_bytes(path) == read_bytes(npy_fixture(names[k])));
  }
  std::string path = dir.file("scalar.npy");
  ie::Tensor s(DType::Float32, {});
  s.data_as<float>()[0] = 2.5f;
  ie::write_npy(path, s);
  CHECK(read_bytes(path) == read_bytes(npy_fixture("float32_scalar")));
  ie::write_npy(path, ie::Tensor(DType::Float32, {0, 3}));
  CHECK(read_bytes(path) == read_bytes(npy_fixture("float32_empty")));
}

TEST_CASE("npy: round-trips every dtype and odd shapes, leaving no temporary files") {
  TempDir dir;
  std::string path = dir.file("t.npy");
  check_round_trips(
      all_file_dtypes(), path, ie::write_npy, [](const std::string& p, DType, auto&) { return ie::read_npy(p); },
      [](const std::string& bytes, const ie::Tensor& t) { CHECK((bytes.size() - t.nbytes()) % 64 == 0); });
  CHECK(dir.entries() == std::vector<std::string>{"t.npy"});
}

TEST_CASE("npy: switches to version 2.0 when the header does not fit 1.0") {
  TempDir dir;
  std::string path = dir.file("wide.npy");
  ie::Tensor t = fixture_tensor(DType::Int16, std::vector<int64_t>(30000, 1));
  ie::write_npy(path, t);
  std::string bytes = read_bytes(path);
  CHECK(bytes[6] == 2);
  CHECK(bytes.size() % 64 == t.nbytes());
  check_same_tensor(ie::read_npy(path), t);
}

TEST_CASE("npy: rejects Fortran order, big-endian, object and unsupported dtypes, naming the file") {
  check_error([] { ie::read_npy(npy_fixture("fortran")); }, ErrorKind::BadInput, {"fortran.npy", "Fortran"});
  check_error([] { ie::read_npy(npy_fixture("big_endian")); }, ErrorKind::BadInput,
              {"big_endian.npy", "big-endian", ">f4"});
  check_error([] { ie::read_npy(npy_fixture("object")); }, ErrorKind::BadInput, {"object.npy", "object arrays"});
  check_error([] { ie::read_npy(npy_fixture("complex")); }, ErrorKind::BadInput,
              {"complex.npy", "unsupported dtype '<c8'"});
  check_error([] { ie::read_npy(npy_fixture("structured")); }, ErrorKind::BadInput, {"structured.npy", "structured"});
  check_error([] { ie::read_npy(npy_fixture("no_such_file")); }, ErrorKind::BadInput,
              {"no_such_file.npy", "cannot open"});
}

TEST_CASE("npy: truncated files report expected and actual byte counts") {
  TempDir dir;
  std::string good = read_bytes(npy_fixture("float32"));  // 128-byte header + 120 bytes of data
  REQUIRE(good.size() == 248);
  std::string path = dir.file("cut.npy");
  write_bytes(path, good.substr(0, 5));
  check_error([&] { ie::read_npy(path); }, ErrorKind::BadInput,
              {"cut.npy", "truncated header", "expected 8 bytes, got 5"});
  write_bytes(path, good.substr(0, 9));
  check_error([&] { ie::read_npy(path); }, ErrorKind::BadInput, {"cut.npy", "truncated header"});
  write_bytes(path, good.substr(0, 60));
  check_error([&] { ie::read_npy(path); }, ErrorKind::BadInput,
              {"cut.npy", "truncated header", "expected 118 bytes, got 50"});
  write_bytes(path, good.substr(0, 200));
  check_error([&] { ie::read_npy(path); }, ErrorKind::BadInput,
              {"cut.npy", "truncated data", "[2,3,5]", "expected 120 bytes, got 72"});
  write_bytes(path, good + "xyz");
  check_error([&] { ie::read_npy(path); }, ErrorKind::BadInput,
              {"cut.npy", "unexpected bytes", "expected 120 bytes, got 123"});
}

TEST_CASE("npy: malformed headers, bad magic and versions, and overflowing shapes") {
  TempDir dir;
  std::string path = dir.file("bad.npy");
  auto check_bad = [&](const std::string& bytes, const std::vector<std::string>& parts) {
    check_bad_file(path, bytes, ie::read_npy, parts);
  };
  check_bad("PK\x03\x04 not numpy at all", {"not a .npy file"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4), {"version 4.0"});
  check_bad(make_npy("{'descr': '<f4', 'shape': (1,), }", "abcd"), {"malformed .npy header", "'fortran_order'"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", "abcd"), {"True or False"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "abcd"), {"'extra'"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "abcd"), {"expected a dimension"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "abcd"), {"malformed"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
            {"does not fit 64 bits"});
  check_bad(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
            {"too large"});
  check_bad(make_npy("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", "abcdefghijkl"),
            {"unsupported dtype"});
}

TEST_CASE("npy: accepts hand-made headers numpy also reads") {
  TempDir dir;
  std::string path = dir.file("ok.npy");
  // Other key order, double quotes, Python 2 long dims, no trailing comma, version 2.0.
  write_bytes(path, make_npy("{\"shape\": (2L, 1L), \"fortran_order\": False, \"descr\": \"<i4\"}",
                             std::string("\x01\0\0\0\xff\xff\xff\xff", 8), 2));
  ie::Tensor t = ie::read_npy(path);
  CHECK(t.shape() == std::vector<int64_t>{2, 1});
  CHECK(t.data_as<int32_t>()[0] == 1);
  CHECK(t.data_as<int32_t>()[1] == -1);
  // Bool bytes other than 0 and 1 become true.
  write_bytes(path, make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\0\2\1", 3)));
  ie::Tensor b = ie::read_npy(path);
  CHECK(b.data_as<uint8_t>()[0] == 0);
  CHECK(b.data_as<uint8_t>()[1] == 1);
  CHECK(b.data_as<uint8_t>()[2] == 1);
}

TEST_CASE("npy: write errors are usage errors and leave nothing behind") {
  TempDir dir;
  std::string path = dir.file("keep.npy");
  ie::Tensor original = fixture_tensor(DType::Float32, {4});
  ie::write_npy(path, original);
  // Every fixed-size type has a .npy form now (bfloat16 too); strings have none.
  ie::Tensor strings(DType::String, {2}, std::shared_ptr<void>(new char[16](), [](void* p) { delete[] static_cast<char*>(p); }));
  check_error([&] { ie::write_npy(path, strings); }, ErrorKind::Usage, {"keep.npy", "string"});
  check_same_tensor(ie::read_npy(path), original);
  check_error([&] { ie::write_npy(dir.file("missing/x.npy"), original); }, ErrorKind::Usage,
              {"missing/x.npy", "cannot create"});
  check_error([&] { ie::write_npy(dir.file("y.npy"), ie::Tensor()); }, ErrorKind::Usage, {"y.npy"});
  CHECK(dir.entries() == std::vector<std::string>{"keep.npy"});
}

TEST_CASE("npy: bfloat16 as ml_dtypes saves it ('<V2'), numpy's plain 2-byte void and the 'bfloat16' descr") {
  const ie::Tensor want = fixture_tensor(DType::BFloat16, {2, 3, 5});
  check_same_tensor(ie::read_npy(npy_fixture("bfloat16")), want);  // '|V2', as numpy writes a uint16 view

  TempDir dir;
  std::string path = dir.file("bf16.npy");
  ie::write_npy(path, want);
  CHECK(read_bytes(path).find("'descr': '<V2'") != std::string::npos);
  check_same_tensor(ie::read_npy(path), want);

  std::string data(static_cast<const char*>(want.data()), want.nbytes());
  write_bytes(path, make_npy("{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2, 3, 5), }", data));
  check_same_tensor(ie::read_npy(path), want);
  write_bytes(path, make_npy("{'descr': '>V2', 'fortran_order': False, 'shape': (2, 3, 5), }", data));
  check_error([&] { ie::read_npy(path); }, ErrorKind::BadInput, {"big-endian"});
}

TEST_CASE("npy: bf16 constants round-trip (float32 -> bfloat16 rounded to nearest even -> .npy -> back)") {
  ie::Tensor w(DType::Float32, {7, 13});
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t i = 0; i < w.numel(); ++i) w.data_as<float>()[i] = dist(gen);
  w.data_as<float>()[0] = 1.00390625f;  // halfway between two bfloat16 values: rounds to the even one, 1.0
  w.data_as<float>()[1] = 1.01171875f;  // halfway again: rounds to the even one above, 1.015625
  ie::Tensor b = ie::convert_floats(w, DType::BFloat16);
  CHECK(b.data_as<uint16_t>()[0] == ie::float_to_bfloat16_bits(1.0f));
  CHECK(ie::bfloat16_bits_to_float(b.data_as<uint16_t>()[1]) == 1.015625f);

  TempDir dir;
  std::string path = dir.file("w.npy");
  ie::write_npy(path, b);
  ie::Tensor back = ie::read_npy(path);
  check_same_tensor(back, b);
  ie::Tensor wide = ie::convert_floats(back, DType::Float32);
  for (int64_t i = 0; i < w.numel(); ++i) {
    const float x = w.data_as<float>()[i], y = wide.data_as<float>()[i];
    CHECK(std::abs(x - y) <= std::abs(x) * 0x1p-8f);  // half an ulp of an 8-bit significand
  }
}

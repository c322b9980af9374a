#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "engine/io/csv.h"
#include "io_test_util.h"

using ie::DType;
using ie::ErrorKind;
using namespace ie_test;

namespace {

std::string csv_of(const ie::Tensor& t) {
  TempDir dir;
  ie::write_csv(dir.file("t.csv"), t);
  return read_bytes(dir.file("t.csv"));
}

}  // namespace

TEST_CASE("csv: 2-D tensors get a header of column indices and one line per row") {
  ie::Tensor t = fixture_tensor(DType::Float32, {2, 3});
  CHECK(csv_of(t) == "0,1,2\n-1.5,-1.25,-1\n-0.75,-0.5,-0.25\n");
  CHECK(csv_of(fixture_tensor(DType::Int64, {1, 2})) == "0,1\n-7,3000000012\n");
  CHECK(csv_of(fixture_tensor(DType::Bool, {2, 2})) == "0,1\n1,0\n0,1\n");
  CHECK(csv_of(fixture_tensor(DType::UInt8, {1, 3})) == "0,1,2\n0,37,74\n");
  CHECK(csv_of(fixture_tensor(DType::Int8, {1, 2})) == "0,1\n-128,-91\n");
  CHECK(csv_of(fixture_tensor(DType::UInt64, {1, 2})) == "0,1\n0,600000000000000000\n");
  CHECK(csv_of(fixture_tensor(DType::Float16, {1, 2})) == "0,1\n-1.5,-1.25\n");
}

TEST_CASE("csv: other ranks are viewed as [dim0, rest]") {
  CHECK(csv_of(fixture_tensor(DType::Int32, {3})) == "0\n-1000000\n-899997\n-799994\n");
  CHECK(csv_of(fixture_tensor(DType::Int16, {})) == "0\n-12000\n");
  CHECK(csv_of(fixture_tensor(DType::Int16, {2, 1, 2})) == "0,1\n-12000,-11000\n-10000,-9000\n");
  CHECK(csv_of(ie::Tensor(DType::Float32, {0, 3})) == "0,1,2\n");
  CHECK(csv_of(ie::Tensor(DType::Float32, {2, 0})) == "\n\n\n");
}

TEST_CASE("csv: floats round-trip exactly") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-30.f, 30.f);
  ie::Tensor f(DType::Float32, {50, 7});
  float* fp = f.data_as<float>();
  for (int64_t i = 0; i < f.numel(); ++i)
    fp[i] = std::ldexp(exponent(rng), static_cast<int>(exponent(rng))) * (i % 2 ? -1 : 1);
  fp[3] = std::numeric_limits<float>::denorm_min();
  fp[4] = std::numeric_limits<float>::max();
  ie::Tensor d(DType::Float64, {50, 7});
  for (int64_t i = 0; i < d.numel(); ++i) d.data_as<double>()[i] = 1.0 / (i + 3.0) + fp[i];

  for (const ie::Tensor* t : {&f, &d}) {
    std::string text = csv_of(*t);
    const char* p = text.c_str() + text.find('\n') + 1;
    for (int64_t i = 0; i < t->numel(); ++i) {
      char* end = nullptr;
      if (t->dtype() == DType::Float32) {
        CHECK(std::strtof(p, &end) == fp[i]);
      } else {
        CHECK(std::strtod(p, &end) == t->data_as<double>()[i]);
      }
      REQUIRE((*end == ',' || *end == '\n'));
      p = end + 1;
    }
    CHECK(*p == '\0');
  }
}

TEST_CASE("csv: non-finite values and errors") {
  ie::Tensor t(DType::Float32, {1, 3});
  t.data_as<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  t.data_as<float>()[1] = -std::numeric_limits<float>::infinity();
  CHECK(csv_of(t) == "0,1,2\nnan,-inf,0\n");
  TempDir dir;
  check_error([&] { ie::write_csv(dir.file("b.csv"), ie::Tensor(DType::BFloat16, {2})); }, ErrorKind::Usage,
              {"b.csv", "bfloat16"});
  check_error([&] { ie::write_csv(dir.file("none/b.csv"), t); }, ErrorKind::Usage, {"none/b.csv"});
  CHECK(dir.entries().empty());
}

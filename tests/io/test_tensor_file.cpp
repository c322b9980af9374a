#include <doctest/doctest.h>

#include "engine/io/idx.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_file.h"
#include "io_test_util.h"

using ie::DType;
using ie::ErrorKind;
using namespace ie_test;

TEST_CASE("read_tensor_file: picks the reader from the magic bytes and the name") {
  ie::Tensor labels = ie::read_tensor_file("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz");
  CHECK(labels.shape() == std::vector<int64_t>{10000});
  check_same_tensor(ie::read_tensor_file(fixture("npy/int32.npy")), fixture_tensor(DType::Int32, {2, 3, 5}));

  TempDir dir;
  ie::Tensor t = fixture_tensor(DType::Float32, {3, 4});
  // numpy magic wins over a misleading name; gzip magic means IDX.
  ie::write_npy(dir.file("really_npy.bin"), t);
  check_same_tensor(ie::read_tensor_file(dir.file("really_npy.bin")), t);
  ie::write_idx(dir.file("data.gz"), t);
  check_same_tensor(ie::read_tensor_file(dir.file("data.gz")), t);
  // Plain IDX by name.
  for (const char* name : {"a-ubyte", "b.idx", "c.IDX3", "train-images.idx3-ubyte"}) {
    CAPTURE(name);
    ie::write_idx(dir.file(name), t);
    check_same_tensor(ie::read_tensor_file(dir.file(name)), t);
  }
  // Raw with a shape and a dtype.
  ie::write_tensor_file(dir.file("x.bin"), t);
  check_same_tensor(ie::read_tensor_file(dir.file("x.bin"), std::vector<int64_t>{3, 4}, DType::Float32), t);
  check_error([&] { ie::read_tensor_file(dir.file("x.bin")); }, ErrorKind::Usage, {"x.bin", "shape", "dtype"});
  check_error([&] { ie::read_tensor_file(dir.file("x.bin"), std::vector<int64_t>{12}); }, ErrorKind::Usage, {"x.bin"});
  // A .npy name that is not a .npy file, and a missing file.
  write_bytes(dir.file("fake.npy"), "hello");
  check_error([&] { ie::read_tensor_file(dir.file("fake.npy")); }, ErrorKind::BadInput,
              {"fake.npy", "not a .npy file"});
  check_error([&] { ie::read_tensor_file(dir.file("gone.npy")); }, ErrorKind::BadInput, {"gone.npy", "cannot open"});
}

TEST_CASE("read_tensor_file: a given shape reshapes, a given dtype must match") {
  TempDir dir;
  std::string path = dir.file("t.npy");
  ie::write_npy(path, fixture_tensor(DType::UInt8, {4, 6}));
  ie::Tensor r = ie::read_tensor_file(path, std::vector<int64_t>{4, 1, 2, 3}, DType::UInt8);
  CHECK(r.shape() == std::vector<int64_t>{4, 1, 2, 3});
  CHECK(r.data_as<uint8_t>()[23] == fixture_value<uint8_t>(23));
  check_error(
      [&] {
        ie::read_tensor_file(path, std::vector<int64_t>{5, 5});
      },
      ErrorKind::BadInput, {"t.npy", "[4,6]", "[5,5]"});
  check_error([&] { ie::read_tensor_file(path, std::vector<int64_t>{-4, -6}); }, ErrorKind::BadInput, {"t.npy"});
  check_error([&] { ie::read_tensor_file(path, std::nullopt, DType::Float32); }, ErrorKind::BadInput,
              {"t.npy", "uint8", "float32"});
}

TEST_CASE("write_tensor_file: picks the writer from the extension") {
  TempDir dir;
  ie::Tensor t = fixture_tensor(DType::Float64, {2, 2});
  ie::write_tensor_file(dir.file("a.npy"), t);
  check_same_tensor(ie::read_npy(dir.file("a.npy")), t);
  ie::write_tensor_file(dir.file("b.CSV"), t);
  CHECK(read_bytes(dir.file("b.CSV")) == "0,1\n-1.5,-1.25\n-1,-0.75\n");
  for (const char* name : {"c.bin", "d.raw"}) {
    ie::write_tensor_file(dir.file(name), t);
    CHECK(read_bytes(dir.file(name)).size() == 32);
  }
  check_error([&] { ie::write_tensor_file(dir.file("e.txt"), t); }, ErrorKind::Usage, {"e.txt", "'.txt'", ".npy"});
  check_error([&] { ie::write_tensor_file(dir.file("noext"), t); }, ErrorKind::Usage, {"noext"});
  auto entries = dir.entries();
  std::sort(entries.begin(), entries.end());
  CHECK(entries == std::vector<std::string>{"a.npy", "b.CSV", "c.bin", "d.raw"});
}

#include "engine/io/tensor_file.h"

#include <cctype>
#include <cstdio>
#include <cstring>

#include "engine/core/error.h"
#include "engine/io/csv.h"
#include "engine/io/file_util.h"
#include "engine/io/idx.h"
#include "engine/io/npy.h"
#include "engine/io/raw.h"

namespace ie {
namespace {

enum class Format { Npy, Idx, Raw };

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Names as the MNIST family ships them: "t10k-images-idx3-ubyte", "train-labels.idx1-ubyte", "data.idx".
bool is_idx_name(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  if (ends_with(name, "-ubyte") || ends_with(name, ".idx")) return true;
  size_t dot = name.rfind(".idx");
  return dot != std::string::npos && dot + 5 == name.size() && std::isdigit(static_cast<unsigned char>(name.back()));
}

Format detect_format(const std::string& path) {
  // The magic bytes win over the name; a file that cannot be opened is reported by the reader chosen by name.
  unsigned char magic[6] = {};
  size_t got = 0;
  check_regular_file(path);
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    got = std::fread(magic, 1, sizeof(magic), f);
    std::fclose(f);
  }
  if (got == 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0) return Format::Npy;
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return Format::Idx;
  if (file_extension(path) == ".npy") return Format::Npy;
  if (is_idx_name(path)) return Format::Idx;
  return Format::Raw;
}

}  // namespace

Tensor read_tensor_file(const std::string& path, const std::optional<std::vector<int64_t>>& shape,
                        const std::optional<DType>& dtype) {
  Format format = detect_format(path);
  if (format == Format::Raw) {
    if (!shape || !dtype)
      fail(ErrorKind::Usage, path, ": not a .npy or IDX file, so it is read as raw binary, which needs both a shape ",
           "and a dtype (--shape, --dtype)");
    return read_raw(path, *dtype, *shape);
  }
  Tensor t = format == Format::Npy ? read_npy(path) : read_idx(path);
  if (dtype && *dtype != t.dtype())
    fail_input(path, ": holds ", dtype_name(t.dtype()), " data but ", dtype_name(*dtype), " was requested");
  if (shape && *shape != t.shape()) {
    bool valid = true;
    int64_t numel = 1;
    for (int64_t d : *shape) valid = valid && d >= 0 && !__builtin_mul_overflow(numel, d, &numel);
    if (!valid || numel != t.numel())
      fail_input(path, ": holds shape ", shape_to_string(t.shape()), " (", t.numel(), " elements), which cannot be ",
                 "viewed as the requested shape ", shape_to_string(*shape));
    t = t.reshaped(*shape);
  }
  return t;
}

void write_tensor_file(const std::string& path, const Tensor& tensor) {
  std::string ext = file_extension(path);
  if (ext == ".npy") return write_npy(path, tensor);
  if (ext == ".csv") return write_csv(path, tensor);
  if (ext == ".bin" || ext == ".raw") return write_raw(path, tensor);
  fail(ErrorKind::Usage, path, ": cannot tell the format from the extension '", ext,
       "' (use .npy, .csv, .bin or .raw)");
}

}  // namespace ie

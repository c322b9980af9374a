#include "engine/io/csv.h"

#include <cinttypes>
#include <cstdio>

#include "engine/core/dtype_dispatch.h"
#include "engine/core/error.h"
#include "engine/io/file_util.h"

namespace ie {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

template <class T>
int format_value(char* buf, size_t size, T v) {
  if constexpr (std::is_same_v<T, double>) {
    return std::snprintf(buf, size, "%.17g", v);
  } else if constexpr (std::is_same_v<T, float> || is_half_like_v<T>) {
    return std::snprintf(buf, size, "%.9g", static_cast<double>(static_cast<float>(v)));
  } else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return std::snprintf(buf, size, "%" PRIu64, static_cast<uint64_t>(v));
  } else {
    return std::snprintf(buf, size, "%" PRId64, static_cast<int64_t>(v));
  }
}

}  // namespace

void write_csv(const std::string& path, const Tensor& tensor) {
  if (tensor.empty()) fail(ErrorKind::Usage, path, ": cannot write an empty (unallocated) tensor");
  DType dtype = tensor.dtype();
  if (dtype_size(dtype) == 0 || dtype == DType::BFloat16)
    fail(ErrorKind::Usage, path, ": cannot write a tensor of type ", dtype_name(dtype), " as CSV");
  const auto& shape = tensor.shape();
  int64_t rows = shape.empty() ? 1 : shape[0];
  int64_t cols = 1;
  for (size_t i = 1; i < shape.size(); ++i) cols *= shape[i];

  AtomicFileWriter out(path);
  std::string buf;
  for (int64_t c = 0; c < cols; ++c) buf += (c ? "," : "") + std::to_string(c);
  buf += '\n';
  dispatch_all(dtype, "write_csv", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* data = tensor.data_as<T>();
    char num[40];
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        if (c) buf += ',';
        buf.append(num, format_value(num, sizeof(num), data[r * cols + c]));
      }
      buf += '\n';
      if (buf.size() >= kFlushBytes) {
        out.write(buf);
        buf.clear();
      }
    }
  });
  out.write(buf);
  out.commit();
}

}  // namespace ie

#include "engine/io/raw.h"

#include <limits>

#include "engine/core/error.h"
#include "engine/io/file_util.h"

namespace ie {

Tensor read_raw(const std::string& path, DType dtype, const std::vector<int64_t>& shape) {
  size_t elem = dtype_size(dtype);
  if (elem == 0) fail(ErrorKind::Usage, path, ": cannot read raw data of type ", dtype_name(dtype));
  uint64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) fail(ErrorKind::Usage, path, ": negative dimension in shape ", shape_to_string(shape));
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / elem / static_cast<uint64_t>(d))
      fail(ErrorKind::Usage, path, ": shape ", shape_to_string(shape), " is too large");
    numel *= static_cast<uint64_t>(d);
  }
  uint64_t nbytes = numel * elem;
  InputFile in(path);
  if (in.size() != nbytes) {
    std::string hint =
        in.size() % elem == 0 ? concat(" (", in.size() / elem, " ", dtype_name(dtype), " elements)") : "";
    fail_input(path, ": raw file size does not match shape ", shape_to_string(shape), " of ", dtype_name(dtype),
               ": expected ", nbytes, " bytes, got ", in.size(), hint);
  }
  Tensor t(dtype, shape);
  in.read_exact(t.data(), nbytes, "data");
  if (dtype == DType::Bool) normalize_bools(t);
  return t;
}

void write_raw(const std::string& path, const Tensor& tensor) {
  if (tensor.empty()) fail(ErrorKind::Usage, path, ": cannot write an empty (unallocated) tensor");
  AtomicFileWriter out(path);
  out.write(tensor.data(), tensor.nbytes());
  out.commit();
}

}  // namespace ie

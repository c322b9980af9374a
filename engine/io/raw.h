// Raw binary tensor files: the elements in C order, little-endian, with no header; the caller supplies the
// shape and dtype.
//
//   ie::Tensor x = ie::read_raw("x.bin", ie::DType::Float32, {8, 1, 86, 86});   // arr.astype('<f4').tofile("x.bin")
//   ie::write_raw("y.bin", y);                                                // np.fromfile("y.bin", '<f4')
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie {

/// Reads a raw file whose size must be exactly numel(shape) * dtype_size(dtype) bytes; otherwise throws
/// Error(BadInput) naming the file with the expected and actual byte counts. A negative dim or an unsized dtype
/// (undefined, string) is Error(Usage).
Tensor read_raw(const std::string& path, DType dtype, const std::vector<int64_t>& shape);

/// Writes the tensor's bytes atomically (temporary file in the same folder, renamed at the end).
void write_raw(const std::string& path, const Tensor& tensor);

}  // namespace ie

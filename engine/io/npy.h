// NumPy .npy files (format versions 1.0, 2.0 and 3.0), little-endian C-ordered arrays of the fixed-size types:
// float32, float16, bfloat16 (as ml_dtypes saves it: a 2-byte void, '<V2'), float64, int8, uint8, int16, uint16, int32,
// uint32, int64, uint64 and bool.
//
//   ie::Tensor x = ie::read_npy("input.npy");   // np.save("input.npy", arr) on the Python side
//   ie::write_npy("probs.npy", probs);          // np.load("probs.npy") reads it back
#pragma once

#include <string>

#include "engine/api/engine.h"

namespace ie {

/// Reads a .npy file. Throws Error(BadInput) naming the file for a bad magic or version, a malformed header,
/// Fortran order, big-endian data, object/structured/unsupported dtypes, a shape whose size overflows, and data
/// that is shorter or longer than the header says.
Tensor read_npy(const std::string& path);

/// Writes a .npy file (version 1.0, or 2.0 when the header does not fit 1.0) atomically: a temporary file in the
/// same folder is renamed over `path` at the end. Throws Error(Usage) for a dtype numpy cannot hold (bfloat16)
/// and when the file cannot be written.
void write_npy(const std::string& path, const Tensor& tensor);

}  // namespace ie

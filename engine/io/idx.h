// IDX files (the MNIST / Fashion-MNIST format), plain or gzip-compressed (recognised by the gzip magic bytes).
// Layout: 0x00 0x00, a type byte, the number of dims, then each dim as a big-endian uint32, then big-endian data.
// Types: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64.
//
//   ie::Tensor images = ie::read_idx("t10k-images-idx3-ubyte.gz");   // uint8 [10000, 28, 28]
//   ie::Tensor labels = ie::read_idx("t10k-labels-idx1-ubyte.gz");   // uint8 [10000]
//   ie::write_idx("predictions-idx1-ubyte.gz", labels);               // gzip-compressed because of ".gz"
#pragma once

#include <string>

#include "engine/api/engine.h"

namespace ie {

/// Reads an IDX file into a host-order tensor of the matching dtype. Throws Error(BadInput) naming the file for a
/// bad magic or type byte, corrupt gzip data, and data shorter or longer than the dims say (expected vs actual bytes).
Tensor read_idx(const std::string& path);

/// Writes an IDX file, gzip-compressed when the name ends in ".gz", atomically (temporary file in the same folder,
/// renamed at the end). Throws Error(Usage) for a dtype IDX cannot hold, more than 255 dims or a dim above 2^32-1.
void write_idx(const std::string& path, const Tensor& tensor);

}  // namespace ie

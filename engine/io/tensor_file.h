// Reads and writes a tensor file choosing the format from the file's magic bytes and name.
//
//   Read:  .npy (or the numpy magic)                        -> read_npy
//          .idx, *-ubyte, *.idx[N], any of those plus .gz, or gzip magic -> read_idx
//          anything else                                    -> read_raw, which needs a shape and a dtype
//   Write: .npy -> write_npy, .csv -> write_csv, .bin / .raw -> write_raw
//
//   ie::Tensor images = ie::read_tensor_file("t10k-images-idx3-ubyte.gz");
//   ie::Tensor x = ie::read_tensor_file("x.bin", ie::Shape{8, 1, 86, 86}, ie::DType::Float32);
//   ie::write_tensor_file("probs.npy", probs);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie {

/// Reads a tensor file. For .npy and IDX files, a given dtype must match the file's (else Error(BadInput)), and a
/// given shape reshapes the data when the element counts agree (e.g. [10000,28,28] -> [10000,1,28,28]), else
/// Error(BadInput). A raw file without both a shape and a dtype is Error(Usage).
Tensor read_tensor_file(const std::string& path, const std::optional<std::vector<int64_t>>& shape = std::nullopt,
                        const std::optional<DType>& dtype = std::nullopt);

/// Writes a tensor file by extension (.npy, .csv, .bin, .raw; case-insensitive). Any other extension is
/// Error(Usage). The file is written atomically.
void write_tensor_file(const std::string& path, const Tensor& tensor);

}  // namespace ie

// CSV export of a tensor for spreadsheets and pandas: a header line of column indices, then one line per row.
// A 2-D tensor [rows, cols] is written as is; other ranks are viewed as [dim0, product of the rest] (a 1-D tensor
// becomes one column, a 0-d tensor one cell). Floats use %.9g (float32 and float16 round-trip exactly), float64
// uses %.17g; bools are written 0/1.
//
//   ie::write_csv("probs.csv", probs);   // pandas.read_csv("probs.csv") gives columns "0", "1", ...
#pragma once

#include <string>

#include "engine/api/engine.h"

namespace ie {

/// Writes the tensor as CSV atomically (temporary file in the same folder, renamed at the end).
/// Throws Error(Usage) for an unsupported dtype or when the file cannot be written.
void write_csv(const std::string& path, const Tensor& tensor);

}  // namespace ie

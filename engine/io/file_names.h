// File names for tensors whose names come from ONNX exporters ("onnx::Gemm_432", "/fc4/Softmax_output_0").
//
//   ie::file_safe_name("/fc4/Softmax_output_0")          // "fc4_Softmax_output_0"
//   ie::make_unique_names({"a", "a", "A"})               // {"a", "a_1", "A_2"}: unique even ignoring case
//   ie::unique_file_names({"onnx::Add_1", "onnx:Add_1"})  // {"onnx_Add_1", "onnx_Add_1_1"}
#pragma once

#include <string>
#include <vector>

namespace ie {

/// Keeps [A-Za-z0-9._-], maps every other character to '_', collapses runs of '_', trims leading and trailing
/// '_' and '.', and caps the length well below file system limits. Never returns an empty name ("tensor").
std::string file_safe_name(const std::string& tensor_name);

/// Returns the names with later repeats suffixed _1, _2, ... so that all are distinct, also when compared without
/// regard to case (case-insensitive file systems). A suffixed name never takes a name that appears in the list.
std::vector<std::string> make_unique_names(const std::vector<std::string>& names);

/// file_safe_name of every name, then make_unique_names.
std::vector<std::string> unique_file_names(const std::vector<std::string>& tensor_names);

}  // namespace ie

// Arrays between Python and the engine: host arrays (NumPy or any DLPack or buffer exporter) become ie::Tensor
// views of the same memory where the layout allows, and engine tensors become NumPy (or framework-neutral DLPack)
// arrays that own them, so neither direction copies.
//
//   HostArray a = host_array(value, "x");       // C-contiguous CPU array; copies only a strided or foreign layout
//   ie::Tensor t = tensor_view(a);               // same memory: keep `a` alive while `t` is used
//   nb::object out = to_numpy(std::move(t));     // owns the tensor's buffer
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie::python {

namespace nb = nanobind;

/// A read-only, C-contiguous array in host memory, of any element type.
using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
/// Any array, on any device, in any layout (DLPack device arrays arrive as this).
using AnyArray = nb::ndarray<nb::ro>;

/// The engine's element type for a DLPack type; throws Error(BadInput) naming `what` for one it lacks.
DType dtype_from_dlpack(nb::dlpack::dtype dtype, const std::string& what);
/// The DLPack type of an engine element type.
nb::dlpack::dtype dlpack_from_dtype(DType dtype);

/// `value` as a C-contiguous host array: the same memory when it already is one (NumPy in C order, or any DLPack
/// exporter on the CPU), else NumPy's C-ordered copy (strided views, Fortran order, nested lists, scalars).
HostArray host_array(nb::handle value, const std::string& what);
/// A tensor viewing the array's memory; valid while the array lives.
Tensor tensor_view(const HostArray& array, const std::string& what);

/// Whether a tensor could be a shape input, whose values the planner keeps: those are copied, never viewed.
bool may_be_bound_value(const Tensor& tensor);

/// One run's inputs as tensors viewing the caller's arrays, which it holds while the run lasts.
struct HostInputs {
  std::vector<HostArray> arrays;
  std::map<std::string, Tensor> tensors;
  /// Adds `value` under the graph input name `key` (a str; anything else is Error(Usage)).
  void add(nb::handle key, nb::handle value);
};
/// Every item of a {name: array} dict.
HostInputs host_inputs(const nb::dict& inputs);
/// A dict key as a graph input name; Error(Usage) when it is not a str.
std::string input_name(nb::handle key);

/// A NumPy array that owns `tensor` (no copy). bfloat16, which NumPy lacks, is Error(Usage) pointing at DLPack.
nb::object to_numpy(Tensor tensor, const std::string& what);
/// A framework-neutral array exposing __dlpack__ that owns `tensor` (no copy): torch.from_dlpack, cupy ... read it.
nb::object to_dlpack(Tensor tensor);

}  // namespace ie::python

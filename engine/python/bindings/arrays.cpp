// Host arrays to engine tensors and back without copies; see arrays.h.
#include "engine/python/bindings/arrays.h"

#include <nanobind/stl/string.h>

#include <vector>

namespace ie::python {

namespace {

using Code = nb::dlpack::dtype_code;

struct DTypePair {
  DType dtype;
  Code code;
  uint8_t bits;
};

constexpr DTypePair kDTypes[] = {
    {DType::Float32, Code::Float, 32},   {DType::Float64, Code::Float, 64}, {DType::Float16, Code::Float, 16},
    {DType::BFloat16, Code::Bfloat, 16}, {DType::Int8, Code::Int, 8},       {DType::Int16, Code::Int, 16},
    {DType::Int32, Code::Int, 32},       {DType::Int64, Code::Int, 64},     {DType::UInt8, Code::UInt, 8},
    {DType::UInt16, Code::UInt, 16},     {DType::UInt32, Code::UInt, 32},   {DType::UInt64, Code::UInt, 64},
    {DType::Bool, Code::Bool, 8},
};

// The tensor lives in the capsule that the array names as its owner; the array's memory is the tensor's buffer.
nb::capsule owner_of(Tensor* owned) {
  return nb::capsule(owned, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
}

}  // namespace

DType dtype_from_dlpack(nb::dlpack::dtype dtype, const std::string& what) {
  if (dtype.lanes == 1)
    for (const auto& p : kDTypes)
      if (static_cast<uint8_t>(p.code) == dtype.code && p.bits == dtype.bits) return p.dtype;
  throw Error(ErrorKind::BadInput, what + ": element type (DLPack code " + std::to_string(dtype.code) + ", " +
                                       std::to_string(dtype.bits) + " bits) has no engine dtype");
}

nb::dlpack::dtype dlpack_from_dtype(DType dtype) {
  for (const auto& p : kDTypes)
    if (p.dtype == dtype) return nb::dlpack::dtype{static_cast<uint8_t>(p.code), p.bits, 1};
  throw Error(ErrorKind::Usage, std::string("dtype ") + dtype_name(dtype) + " cannot leave the engine as an array");
}

HostArray host_array(nb::handle value, const std::string& what) {
  HostArray array;
  if (nb::try_cast(value, array, /*convert=*/false)) return array;
  nb::object contiguous;
  try {
    contiguous = nb::module_::import_("numpy").attr("ascontiguousarray")(value);
  } catch (nb::python_error& e) {
    throw Error(ErrorKind::BadInput,
                what + ": cannot read a " + nb::inst_name(value).c_str() + " as a host array (" + e.what() + ")");
  }
  if (nb::try_cast(contiguous, array, /*convert=*/false)) return array;
  throw Error(ErrorKind::BadInput,
              what + ": a " + std::string(nb::inst_name(value).c_str()) + " is not an array of an engine dtype");
}

Tensor tensor_view(const HostArray& array, const std::string& what) {
  std::vector<int64_t> shape(array.ndim());
  for (size_t i = 0; i < shape.size(); ++i) shape[i] = static_cast<int64_t>(array.shape(i));
  const DType dtype = dtype_from_dlpack(array.dtype(), what);
  // The buffer is borrowed: the caller holds the array for as long as the tensor is used.
  std::shared_ptr<void> borrowed(const_cast<void*>(array.data()), [](void*) {});
  return Tensor(dtype, std::move(shape), std::move(borrowed));
}

bool may_be_bound_value(const Tensor& tensor) {
  const DType d = tensor.dtype();
  const bool integer = d == DType::Int64 || d == DType::Int32 || d == DType::Int16 || d == DType::Int8 ||
                       d == DType::UInt64 || d == DType::UInt32 || d == DType::UInt16;
  return integer && tensor.numel() <= 4096;  // the planner binds values of shape inputs up to 4096 elements
}

std::string input_name(nb::handle key) {
  if (!nb::isinstance<nb::str>(key))
    throw Error(ErrorKind::Usage, std::string("input names must be str, got a ") + nb::inst_name(key).c_str());
  return nb::cast<std::string>(key);
}

void HostInputs::add(nb::handle key, nb::handle value) {
  const std::string name = input_name(key);
  const std::string what = "input '" + name + "'";
  arrays.push_back(host_array(value, what));
  Tensor view = tensor_view(arrays.back(), what);
  tensors[name] = may_be_bound_value(view) ? view.clone() : view;
}

HostInputs host_inputs(const nb::dict& inputs) {
  HostInputs set;
  for (auto [key, value] : inputs) set.add(key, value);
  return set;
}

nb::object to_numpy(Tensor tensor, const std::string& what) {
  if (tensor.dtype() == DType::BFloat16)
    throw Error(
        ErrorKind::Usage,
        what + " is bfloat16, which NumPy lacks: run with output=\"dlpack\" and read it with torch.from_dlpack");
  auto* owned = new Tensor(std::move(tensor));
  nb::capsule owner = owner_of(owned);
  std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
  return nb::ndarray<nb::numpy>(owned->data(), shape.size(), shape.data(), owner, nullptr,
                                dlpack_from_dtype(owned->dtype()))
      .cast();
}

nb::object to_dlpack(Tensor tensor) {
  auto* owned = new Tensor(std::move(tensor));
  nb::capsule owner = owner_of(owned);
  std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
  return nb::ndarray<nb::array_api>(owned->data(), shape.size(), shape.data(), owner, nullptr,
                                    dlpack_from_dtype(owned->dtype()), nb::device::cpu::value)
      .cast();
}

}  // namespace ie::python

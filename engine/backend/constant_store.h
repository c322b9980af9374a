// Engine-wide constants made once and shared by every session: weights converted to a precision mode's storage
// type by the planner, and weights that kernels prepare in their own layout (KernelInit::prepared). Device copies
// follow through Backend::constant_data, which the CUDA backends also share per engine.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "engine/core/tensor.h"

namespace ie {

class ConstantStore {
 public:
  /// The tensor stored under `key`; `make` runs on the first request only (thread-safe: sessions plan on their
  /// own threads). The returned tensor shares the stored buffer, which lives as long as the store.
  ///   Tensor w16 = store.get_or_make("bf16/" + name, [&] { return convert_floats(w, DType::BFloat16); });
  Tensor get_or_make(const std::string& key, const std::function<Tensor()>& make);
  /// How many tensors were made (tests check that a second session makes none).
  size_t size() const;

 private:
  mutable std::mutex m_mutex;
  std::map<std::string, Tensor> m_tensors;
};

}  // namespace ie

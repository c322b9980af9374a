#include "engine/backend/constant_store.h"

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/registry/op_def.h"

namespace ie {

Tensor ConstantStore::get_or_make(const std::string& key, const std::function<Tensor()>& make) {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_tensors.find(key);
  if (it != m_tensors.end()) return it->second;
  Tensor made = make();
  if (made.empty()) fail(ErrorKind::Usage, "prepared constant '", key, "' was made empty");
  return m_tensors.emplace(key, std::move(made)).first->second;
}

size_t ConstantStore::size() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_tensors.size();
}

const void* KernelInit::prepared(const std::string& key, const std::function<Tensor()>& make) const {
  if (!store) ie::fail(ErrorKind::Usage, node.label(), ": a kernel asked for prepared constants outside a plan");
  Tensor t = store->get_or_make(node.name + "/" + key, make);
  // Host backends (and folding) use the stored buffer itself; device backends upload it once per engine.
  return backend ? backend->constant_data(t) : t.data();
}

}  // namespace ie

#include "engine/core/parallel_copy.h"

#include <cstdint>
#include <cstring>

#include "engine/core/parallel.h"

namespace ie {

namespace {
// Below this a single memcpy beats waking the worker threads; 2 MB also matches a huge page, so that no two
// threads fault on the same page of a fresh destination.
constexpr size_t kParallelCopyGrain = size_t(2) << 20;
}  // namespace

void parallel_copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  parallel_for(static_cast<int64_t>(bytes), static_cast<int64_t>(kParallelCopyGrain),
               [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, static_cast<size_t>(e - b)); });
}

}  // namespace ie

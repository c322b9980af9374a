// Asynchronous 16-byte copies from global to shared memory (sm_80 and later), for kernels that stage their next
// tile while they work on this one. Depends on CUDA alone, like the kernel headers that include it.
#pragma once

#include <cuda_runtime.h>

namespace ie::dev {

// 16 bytes global -> shared without a register round trip; zeros instead when !valid (nothing is read).
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 16 : 0));
}
// The first `bytes` (0..16) of 16 bytes global -> shared, zeros after them (nothing past them is read); src
// 16-byte aligned.
__device__ __forceinline__ void cp_async16_prefix(void* dst, const void* src, int bytes) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes));
}
// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most `Pending` committed groups are still in flight (this thread's copies only: a barrier
// makes every thread's copies visible).
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

}  // namespace ie::dev

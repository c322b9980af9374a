// Hopper's bulk asynchronous copy (cp.async.bulk, the TMA engine without a tensor map) of contiguous bytes from
// global to shared memory, completed on an mbarrier: one thread issues a whole block, the others wait on the
// barrier's phase. For kernels that stream contiguous weight chunks (no per-thread copy instructions, no
// per-thread cp.async groups). Depends on CUDA alone; sm_90 and later.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ie::dev {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One thread initializes the barrier for one arrival per phase; a __syncthreads() must follow before other threads
// use it.
__device__ __forceinline__ void mbar_init(uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// The issuing thread: arms the barrier for `bytes` and starts the copy (bytes a multiple of 16, both addresses
// 16-byte aligned).
__device__ __forceinline__ void bulk_copy_g2s(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  uint64_t state;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;\n"
               : "=l"(state)
               : "r"(smem_addr(bar)), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

// Waits until the barrier's phase `parity` has completed (the copy armed in that phase has landed).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
}

}  // namespace ie::dev

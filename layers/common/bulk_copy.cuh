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
  [[maybe_unused]] uint64_t state;  // the arrival's phase token: the waiters use the phase parity instead
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

// Two shared-memory slots fed by bulk copies, one mbarrier each, for kernels that stream weights a chunk ahead:
// thread 0 issues each chunk into the next slot, every thread waits on the phase of the slot it reads. The
// stream's state: the slot the next chunk goes to, and each slot's barrier phase to wait for.
struct WeightStream {
  int slot = 0;
  uint32_t phases = 0;
};

// Where the slots and their barriers are: slot i at base + i x slot_bytes, its barrier bars[i].
struct Slots {
  unsigned char* base;
  int slot_bytes;
  uint64_t* bars;
};

// Thread 0 initializes both barriers; a __syncthreads() must follow before any other thread waits on them.
__device__ __forceinline__ void init_slots(const Slots& q) {
  if (threadIdx.x == 0) mbar_init(q.bars), mbar_init(q.bars + 1);
}

// Thread 0 copies `bytes` (a multiple of 16, both ends 16-byte aligned) into the next slot; every thread advances
// its stream state alike.
__device__ __forceinline__ void slots_issue(const Slots& q, const void* src, uint32_t bytes, WeightStream& s) {
  if (threadIdx.x == 0) bulk_copy_g2s(q.base + s.slot * q.slot_bytes, src, bytes, q.bars + s.slot);
  s.slot ^= 1;
}

// Waits for the chunk issued last (its bytes are then visible to this thread); returns its slot.
__device__ __forceinline__ int slots_wait(const Slots& q, WeightStream& s) {
  const int slot = s.slot ^ 1;
  mbar_wait(q.bars + slot, (s.phases >> slot) & 1);
  s.phases ^= 1u << slot;
  return slot;
}

}  // namespace ie::dev

// Warp-level Tensor Core primitives shared by the fused kernels: the m16n8k16 product with float accumulation on
// fp16 or bf16 operands, ldmatrix loads of 8x8 tiles (plain and transposed) and the packing of two floats into
// one operand register. Depends on CUDA alone. Fragment layouts (PTX ISA, "mma.m16n8k16"): with g = lane / 4 and
// q = lane % 4, A holds rows g and g + 8, columns 2q, 2q + 1 and the same + 8; B holds k rows 2q, 2q + 1 (+ 8) of
// column g; the float accumulator holds rows g and g + 8, columns 2q and 2q + 1.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

// Device code only: host compilers see the headers that include this one for their planning helpers.
#ifdef __CUDACC__
namespace ie::dev {

/// d += a b on the Tensor Cores, T = __half or __nv_bfloat16 (a: 4 registers, b: 2).
template <class T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __half>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Four 8x8 tiles of 16-bit elements; lane l gives the shared-memory address (a 16-byte row) of row l % 8 of
/// tile l / 8.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr));
}
/// The same, each tile transposed (a row-major k x n operand read as B).
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr));
}

/// An 8x8 tile of 16-bit elements transposed across the warp: lane l gives row l / 4, elements 2 (l % 4) and
/// + 1 (one register), and receives the same positions of the transpose (A's layout in, B's layout out).
__device__ __forceinline__ uint32_t movmatrix_trans(uint32_t a) {
  uint32_t d;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(d) : "r"(a));
  return d;
}

/// lo in the low half, hi in the high half, each rounded to T.
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  }
}

/// The two T of a packed register as floats.
template <class T>
__device__ __forceinline__ float2 unpack_pair(uint32_t u) {
  if constexpr (std::is_same_v<T, __half>)
    return __half22float2(*reinterpret_cast<const __half2*>(&u));
  else
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&u));
}

}  // namespace ie::dev
#endif

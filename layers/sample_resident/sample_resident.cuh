// ie.SampleResident: one persistent kernel runs a whole chain of per-sample steps (sample_resident_program.h).
// Depends on CUDA alone, so tests/kernels/sample_resident_lab.cu builds it with nvcc.
//
// Each CTA takes tiles of `tile` samples in turn (grid-stride). A tile stays in shared memory from its Load to its
// last Store: no activation goes through global memory. The CTA's warps run the program's instructions one after
// another, a barrier between them:
//  - Linear: the tile's rows x n outputs in units of 16 rows x 64 columns; a warp takes a unit, multiplies on the
//    Tensor Cores (mma m16n8k16, float accumulation; A and W^T by ldmatrix from swizzled shared memory) and
//    finishes its accumulators in registers: bias, RoPE on (2i, 2i + 1) column pairs (a thread holds exactly
//    such a pair), activation, residual, the store in the view's type. Products with few units (a 16-row tile x
//    32 columns of K = 640) split K over the warps: each slice's sums go to its own part of a float scratch and
//    are added in slice order (no atomics: the same inputs give the same bits on every run and device).
//  - The weights: every Linear's W^T streams from global memory (L2-resident: every CTA reads the same bytes)
//    by 16-byte cp.async into one of two slots while the previous instructions run; the next Linear's copy starts
//    as soon as this one's has landed.
//  - LayerNorm: a warp per row, the row in registers (float2 per lane), two-pass mean and variance by xor
//    shuffles, then gamma, beta and the activation.
//  - Attention: a warp per (sample, head): S = q k^T as two 16x8 MMA tiles (sequences up to 16; rows past the
//    sample's end read a zero row, so a neighbour's NaN cannot leak in), the softmax in registers across each
//    quad, P re-packed as the A operand of P v without leaving registers, the output divided by the row sums.
//  - Softmax: a warp per row (a classifier head's probabilities, after its products: the conv net's
//    flatten -> fc3 -> ReLU -> fc4 -> softmax is one chain). A Linear's N need not be a multiple of 16: W^T is
//    padded with zero rows and the epilogue stores only the first N columns.
// Floors (H200, SSA at 65536): 1.5 MFLOP per sample, 100 GFLOP at ~760 TFLOP/s dense bf16 = 0.13 ms; the input and
// outputs, 2.7 KB per sample in float32, 0.18 GB at ~4.2 TB/s = 0.04 ms.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/common/cp_async.cuh"
#include "layers/common/float_device.cuh"
#include "layers/common/mma_sync.cuh"
#include "layers/sample_resident/sample_resident_program.h"

namespace ie::sr {

struct Args {
  const Program* program = nullptr;  // device memory
  const void* weights = nullptr;     // W^T blocks in the compute type
  const float* floats = nullptr;     // biases, LayerNorm parameters, RoPE tables
  const void* io[kMaxIo] = {};       // the chain's global inputs, then its outputs
  int64_t batch = 0;
};

constexpr int kMaxThreads = 512;

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

template <class T>
__device__ __forceinline__ float2 load_pair(const unsigned char* smem, const View& v, int64_t e) {
  const uint32_t o = swizzle(static_cast<uint32_t>(v.offset + e * (v.elem == Elem::F32 ? 4 : 2)));
  if (v.elem == Elem::F32) return *reinterpret_cast<const float2*>(smem + o);
  return dev::unpack_pair<T>(*reinterpret_cast<const uint32_t*>(smem + o));
}

template <class T>
__device__ __forceinline__ void store_pair(unsigned char* smem, const View& v, int64_t e, float a, float b) {
  const uint32_t o = swizzle(static_cast<uint32_t>(v.offset + e * (v.elem == Elem::F32 ? 4 : 2)));
  if (v.elem == Elem::F32)
    *reinterpret_cast<float2*>(smem + o) = make_float2(a, b);
  else
    *reinterpret_cast<uint32_t*>(smem + o) = dev::pack_pair<T>(a, b);
}

// One element of a view (rows of an odd width: pairs may straddle two rows).
template <class T>
__device__ __forceinline__ float load_one(const unsigned char* smem, const View& v, int64_t e) {
  const unsigned char* p = smem + swizzle(static_cast<uint32_t>(v.offset + e * elem_bytes(v.elem)));
  return v.elem == Elem::F32 ? *reinterpret_cast<const float*>(p) : dev::to_float(*reinterpret_cast<const T*>(p));
}

template <class T>
__device__ __forceinline__ void store_one(unsigned char* smem, const View& v, int64_t e, float x) {
  unsigned char* p = smem + swizzle(static_cast<uint32_t>(v.offset + e * elem_bytes(v.elem)));
  if (v.elem == Elem::F32)
    *reinterpret_cast<float*>(p) = x;
  else
    *reinterpret_cast<T*>(p) = dev::from_float<T>(x);
}

// The rarer activations out of line: unrolled over a whole accumulator tile for each of them, the kernel's code
// grew to 74,000 instructions and stalled on instruction fetch.
__device__ __noinline__ float activate_any(dev::Act act, float v) { return dev::activate(act, v); }

// The activation over V values: GELU inline (the models' one), the others through one call each.
template <int V>
__device__ __forceinline__ void activate_values(dev::Act act, float (&v)[V]) {
  if (act == dev::Act::None) return;
  if (act == dev::Act::Gelu) {
#pragma unroll
    for (int i = 0; i < V; ++i) v[i] = dev::gelu_erf(v[i]);
    return;
  }
#pragma unroll
  for (int i = 0; i < V; ++i) v[i] = activate_any(act, v[i]);
}

// Bias, RoPE, activation, residual and the store of outputs (r, c) and (r, c + 1) of a Linear; r counts the tile's
// rows, c is even.
template <class T>
__device__ __forceinline__ void finish_pair(const Instr& ins, const Args& a, unsigned char* smem, int r, int c,
                                            float v0, float v1) {
  if (ins.bias >= 0) v0 += *(a.floats + ins.bias + c), v1 += *(a.floats + ins.bias + c + 1);
  if (c < ins.rope_cols) {
    const int half = ins.head_dim >> 1;
    const int t = (r % ins.out.rows) * half + ((c % ins.head_dim) >> 1);
    const float cs = *(a.floats + ins.rope_cos + t), sn = *(a.floats + ins.rope_sin + t);
    const float x0 = v0, x1 = v1;
    v0 = x0 * cs - x1 * sn;
    v1 = x0 * sn + x1 * cs;
  }
  const auto act = static_cast<dev::Act>(ins.act);
  v0 = activate_any(act, v0);
  v1 = activate_any(act, v1);
  const int64_t e = static_cast<int64_t>(r) * ins.n + c;
  if (ins.n & 1) {  // element by element: the pair may end past the row (c + 1 == n) or start an odd element
    const bool second = c + 1 < ins.n;
    if (ins.residual.offset >= 0) {
      v0 += load_one<T>(smem, ins.residual, e);
      if (second) v1 += load_one<T>(smem, ins.residual, e + 1);
    }
    store_one<T>(smem, ins.out, e, v0);
    if (second) store_one<T>(smem, ins.out, e + 1, v1);
    return;
  }
  if (ins.residual.offset >= 0) {
    const float2 res = load_pair<T>(smem, ins.residual, e);
    v0 += res.x, v1 += res.y;
  }
  store_pair<T>(smem, ins.out, e, v0, v1);
}

// Starts the copy of a Linear's W^T into the weight slot at `slot` (complete after cp_async_wait + barrier).
__device__ __forceinline__ void prefetch_weights(const Instr& ins, const Args& a, unsigned char* smem, int slot) {
  const auto* src = static_cast<const unsigned char*>(a.weights) + ins.w * 2;
  const int chunks = ins.w_bytes >> 4;
  for (int i = threadIdx.x; i < chunks; i += blockDim.x)
    dev::cp_async16(smem + swizzle(static_cast<uint32_t>(slot + i * 16)), src + i * 16, true);
}

// swizzle(line + chunk * 16 + low) for a 128-byte-aligned line: one key per line.
__device__ __forceinline__ uint32_t line_address(uint32_t line, int chunk, int low) {
  return line + ((static_cast<uint32_t>(chunk) ^ ((line >> 7) & 7u)) << 4) + low;
}

// Bias, RoPE, activation, residual and store of one warp's 16 x (16 groups) accumulator tile at (m0, n0):
// the instruction's fields read once, the variant's branches resolved at compile time (the epilogue, not the
// MMAs, is most of a Linear's instructions at K = 64: lab, 7.7 ms with a generic per-pair epilogue).
template <class T, bool kOutF32, int kRes, bool kRope>
__device__ __forceinline__ void finish_tile(const Instr& ins, const Args& a, unsigned char* smem, float (&acc)[8][4],
                                            int m0, int n0, int groups) {
  const int lane = threadIdx.x & 31, n = ins.n;
  const bool ragged = (n & 15) != 0;  // the last group's columns past n are W^T's zero padding: not stored
  n0 += ins.col0;  // this instruction's slice of the output's columns
  const int r0 = m0 + (lane >> 2), cq = (lane & 3) * 2;
  const float* bias = ins.bias >= 0 ? a.floats + ins.bias : nullptr;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    if (j >= 2 * groups) break;
    const int c = n0 + j * 8 + cq;
    if (bias) {
      const float2 b = *reinterpret_cast<const float2*>(bias + c);
      acc[j][0] += b.x, acc[j][1] += b.y, acc[j][2] += b.x, acc[j][3] += b.y;
    }
  }
  if constexpr (kRope) {
    const int seq = ins.out.rows, hd_mask = ins.head_dim - 1, half = ins.head_dim >> 1, rope_cols = ins.rope_cols;
    const float* cs = a.floats + ins.rope_cos;
    const float* sn = a.floats + ins.rope_sin;
    const int t0 = (r0 % seq) * half, t1 = ((r0 + 8) % seq) * half;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (j >= 2 * groups) break;
      const int c = n0 + j * 8 + cq;
      if (c >= rope_cols) continue;
      const int i = (c & hd_mask) >> 1;  // head dims are powers of two (builder)
      float x0 = acc[j][0], x1 = acc[j][1], c0 = cs[t0 + i], s0 = sn[t0 + i];
      acc[j][0] = x0 * c0 - x1 * s0, acc[j][1] = x0 * s0 + x1 * c0;
      x0 = acc[j][2], x1 = acc[j][3], c0 = cs[t1 + i], s0 = sn[t1 + i];
      acc[j][2] = x0 * c0 - x1 * s0, acc[j][3] = x0 * s0 + x1 * c0;
    }
  }
  activate_values<32>(static_cast<dev::Act>(ins.act), reinterpret_cast<float(&)[32]>(acc));
  constexpr int kOutBytes = kOutF32 ? 4 : 2, kResBytes = kRes == 1 ? 4 : 2;
  const uint32_t out = ins.out.offset, res = ins.residual.offset;
  // Rows that start on a 128-byte line (n x element size a multiple of 128; buffers and n0 are aligned): the
  // unit's 64 columns of a row are one or two whole lines, so the swizzle is one key per line, not per address.
  const bool lined = (n * kOutBytes) % 128 == 0 && (n0 * kOutBytes) % 128 == 0 &&
                     (kRes == 0 || ((n * kResBytes) % 128 == 0 && (n0 * kResBytes) % 128 == 0));
  // A lane's column pair starts (cq x element size) bytes into the 8-column block: a chunk and a low part.
  const int oc = (cq * kOutBytes) >> 4, ol = (cq * kOutBytes) & 15;
  const int rc = (cq * kResBytes) >> 4, rl = (cq * kResBytes) & 15;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = r0 + 8 * h;
    const uint32_t out_row = out + (r * n + n0) * kOutBytes, res_row = res + (r * n + n0) * kResBytes;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (j >= 2 * groups) break;
      float v0 = acc[j][2 * h], v1 = acc[j][2 * h + 1];
      if (ragged) {
        const int c = n0 + j * 8 + cq;
        if (c >= n) continue;
        if (n & 1) {  // odd rows: the pair path's 4- and 8-byte accesses would straddle rows
          const int64_t e = static_cast<int64_t>(r) * n + c;
          const bool second = c + 1 < n;
          if constexpr (kRes != 0) {
            v0 += load_one<T>(smem, ins.residual, e);
            if (second) v1 += load_one<T>(smem, ins.residual, e + 1);
          }
          store_one<T>(smem, ins.out, e, v0);
          if (second) store_one<T>(smem, ins.out, e + 1, v1);
          continue;
        }
      }
      uint32_t oa, ra = 0;
      if (lined) {
        oa = line_address(out_row + ((j * 8 * kOutBytes) & ~127), (((j * 8 * kOutBytes) & 127) >> 4) + oc, ol);
        if constexpr (kRes != 0)
          ra = line_address(res_row + ((j * 8 * kResBytes) & ~127), (((j * 8 * kResBytes) & 127) >> 4) + rc, rl);
      } else {
        oa = swizzle(out_row + (j * 8 + cq) * kOutBytes);
        if constexpr (kRes != 0) ra = swizzle(res_row + (j * 8 + cq) * kResBytes);
      }
      if constexpr (kRes == 1) {
        const float2 rv = *reinterpret_cast<const float2*>(smem + ra);
        v0 += rv.x, v1 += rv.y;
      } else if constexpr (kRes == 2) {
        const float2 rv = dev::unpack_pair<T>(*reinterpret_cast<const uint32_t*>(smem + ra));
        v0 += rv.x, v1 += rv.y;
      }
      if constexpr (kOutF32)
        *reinterpret_cast<float2*>(smem + oa) = make_float2(v0, v1);
      else
        *reinterpret_cast<uint32_t*>(smem + oa) = dev::pack_pair<T>(v0, v1);
    }
  }
}

// One unit's products over k steps [kb, ke); G: its 16-column groups when known at compile time (4: a whole
// 64-column unit, fully unrolled), else 0 and `groups`.
template <class T, int G>
__device__ __forceinline__ void multiply_unit(float (&acc)[8][4], const unsigned char* smem, uint32_t a_row,
                                              uint32_t b_row, int k, int kb, int ke, int groups) {
  if constexpr (G != 0) groups = G;
#pragma unroll
  for (int j = 0; j < 8; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  for (int kk = kb; kk < ke; ++kk) {
    uint32_t af[4];
    dev::ldmatrix_x4(af, smem_u32(smem + swizzle(a_row + kk * 32)));
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (j >= groups) break;
      uint32_t bf[4];
      dev::ldmatrix_x4(bf, smem_u32(smem + swizzle(b_row + j * 16 * k * 2 + kk * 32)));
      dev::mma_16816<T>(acc[2 * j], af, bf[0], bf[1]);
      dev::mma_16816<T>(acc[2 * j + 1], af, bf[2], bf[3]);
    }
  }
}

template <class T, bool kOutF32, int kRes, bool kRope>
__device__ void run_linear(const Instr& ins, const Args& a, int tile, unsigned char* smem, int slot, float* scratch) {
  const int k = ins.k, n = ins.nc;  // the columns this instruction computes (from col0)
  const int rows = tile * ins.in.rows;
  const int nchunks = (n + 63) / 64;
  const int units = (rows / 16) * nchunks;
  const int ksteps = k / 16, ks = ins.ksplit;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  const uint32_t in_off = ins.in.offset;
  const float inv_ks = 1.f / ks, inv_chunks = 1.f / nchunks;  // exact quotients of these small integers
  for (int u = warp; u < units * ks; u += nwarps) {
    const int unit = ks == 1 ? u : static_cast<int>((u + 0.5f) * inv_ks), part = u - unit * ks;
    const int mt = nchunks == 1 ? unit : static_cast<int>((unit + 0.5f) * inv_chunks);
    const int m0 = mt * 16, n0 = (unit - mt * nchunks) * 64;
    const int groups = min(4, (n - n0) / 16);  // 16-column groups of this unit
    float acc[8][4];
    // ldmatrix rows: A row m0 + lane % 16 at k + 8 (lane / 16); W^T row n0 + lane % 8 + 8 (lane / 16) at
    // k + 8 ((lane / 8) % 2).
    const uint32_t a_row = in_off + ((m0 + (lane & 15)) * k + (lane >> 4) * 8) * 2;
    const uint32_t b_row = slot + ((n0 + (lane & 7) + (lane >> 4) * 8) * k + ((lane >> 3) & 1) * 8) * 2;
    const int kb = ks == 1 ? 0 : part * ksteps / ks, ke = ks == 1 ? ksteps : (part + 1) * ksteps / ks;
    if (groups == 4)
      multiply_unit<T, 4>(acc, smem, a_row, b_row, k, kb, ke, 4);
    else
      multiply_unit<T, 0>(acc, smem, a_row, b_row, k, kb, ke, groups);
    if (ks == 1) {
      finish_tile<T, kOutF32, kRes, kRope>(ins, a, smem, acc, m0, n0, groups);
      continue;
    }
    const int r = m0 + (lane >> 2), cq = (lane & 3) * 2;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (j >= 2 * groups) break;
      const int c = n0 + j * 8 + cq;
      float* slice = scratch + part * rows * n;
      *reinterpret_cast<float2*>(slice + r * n + c) = make_float2(acc[j][0], acc[j][1]);
      *reinterpret_cast<float2*>(slice + (r + 8) * n + c) = make_float2(acc[j][2], acc[j][3]);
    }
  }
  if (ks == 1) return;
  __syncthreads();  // every slice's sums are in the scratch
  for (int i = threadIdx.x; i < rows * n / 2; i += blockDim.x) {
    const int r = (2 * i) / n, c = (2 * i) % n;
    float2 v = make_float2(0.f, 0.f);
    for (int p = 0; p < ks; ++p) {  // in slice order: deterministic
      const float2 s = *reinterpret_cast<const float2*>(scratch + p * rows * n + r * n + c);
      v.x += s.x, v.y += s.y;
    }
    if (ins.col0 + c < ins.n) finish_pair<T>(ins, a, smem, r, ins.col0 + c, v.x, v.y);
  }
}

template <class T, int kRes>
__device__ void linear_by_output(const Instr& ins, const Args& a, int tile, unsigned char* smem, int slot,
                                 float* scratch) {
  if (ins.out.elem == Elem::F32)
    run_linear<T, true, kRes, false>(ins, a, tile, smem, slot, scratch);
  else
    run_linear<T, false, kRes, false>(ins, a, tile, smem, slot, scratch);
}

// The variant for this instruction's output type, residual type and RoPE (RoPE only in the q | k | v projection,
// whose output an MMA reads: the compute type, no residual).
template <class T>
__device__ void dispatch_linear(const Instr& ins, const Args& a, int tile, unsigned char* smem, int slot,
                                float* scratch) {
  if (ins.rope_cols > 0) return run_linear<T, false, 0, true>(ins, a, tile, smem, slot, scratch);
  if (ins.residual.offset < 0) return linear_by_output<T, 0>(ins, a, tile, smem, slot, scratch);
  if (ins.residual.elem == Elem::F32) return linear_by_output<T, 1>(ins, a, tile, smem, slot, scratch);
  linear_by_output<T, 2>(ins, a, tile, smem, slot, scratch);
}

// 8 consecutive values of a row at element e of view offset `off` (16-byte aligned chunks).
template <class T, bool kF32>
__device__ __forceinline__ void load8(const unsigned char* smem, uint32_t off, int e, float (&v)[8]) {
  if constexpr (kF32) {
    const float4 lo = *reinterpret_cast<const float4*>(smem + swizzle(off + e * 4));
    const float4 hi = *reinterpret_cast<const float4*>(smem + swizzle(off + e * 4 + 16));
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
  } else {
    const uint4 u = *reinterpret_cast<const uint4*>(smem + swizzle(off + e * 2));
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 f = dev::unpack_pair<T>(w[i]);
      v[2 * i] = f.x, v[2 * i + 1] = f.y;
    }
  }
}

template <class T, bool kF32>
__device__ __forceinline__ void store8(unsigned char* smem, uint32_t off, int e, const float (&v)[8]) {
  if constexpr (kF32) {
    *reinterpret_cast<float4*>(smem + swizzle(off + e * 4)) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(smem + swizzle(off + e * 4 + 16)) = make_float4(v[4], v[5], v[6], v[7]);
  } else {
    uint4 u;
    u.x = dev::pack_pair<T>(v[0], v[1]), u.y = dev::pack_pair<T>(v[2], v[3]);
    u.z = dev::pack_pair<T>(v[4], v[5]), u.w = dev::pack_pair<T>(v[6], v[7]);
    *reinterpret_cast<uint4*>(smem + swizzle(off + e * 2)) = u;
  }
}

// LayerNorm of rows of 64, 128 or 256: a row per cols / 8 lanes, 8 values each (one or two 16-byte loads),
// gamma and beta in registers for the whole instruction, sums by xor shuffles inside the row's lanes.
template <class T, bool kInF32, bool kOutF32>
__device__ void run_layer_norm_narrow(const Instr& ins, const Args& a, int tile, unsigned char* smem) {
  const int cols = ins.in.cols, lanes = cols / 8, per_warp = 32 / lanes;
  const int rows = tile * ins.in.rows;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  const int c0 = (lane % lanes) * 8;
  float gm[8], bt[8];
  {
    const float4* g4 = reinterpret_cast<const float4*>(a.floats + ins.gamma + c0);
    const float4 g0 = g4[0], g1 = g4[1];
    gm[0] = g0.x, gm[1] = g0.y, gm[2] = g0.z, gm[3] = g0.w, gm[4] = g1.x, gm[5] = g1.y, gm[6] = g1.z, gm[7] = g1.w;
    if (ins.beta >= 0) {
      const float4* b4 = reinterpret_cast<const float4*>(a.floats + ins.beta + c0);
      const float4 b0 = b4[0], b1 = b4[1];
      bt[0] = b0.x, bt[1] = b0.y, bt[2] = b0.z, bt[3] = b0.w, bt[4] = b1.x, bt[5] = b1.y, bt[6] = b1.z, bt[7] = b1.w;
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) bt[i] = 0.f;
    }
  }
  const auto act = static_cast<dev::Act>(ins.act);
  const float inv = 1.f / cols;
  for (int base = warp * per_warp; base < rows; base += nwarps * per_warp) {
    const int r = base + lane / lanes;
    const bool valid = r < rows;
    float v[8];
    if (valid)
      load8<T, kInF32>(smem, ins.in.offset, r * cols + c0, v);
    else
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = 0.f;
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) sum += v[i];
    for (int m = lanes >> 1; m; m >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, m);
    const float mean = sum * inv;
    float var = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) var += (v[i] - mean) * (v[i] - mean);
    for (int m = lanes >> 1; m; m >>= 1) var += __shfl_xor_sync(0xffffffffu, var, m);
    const float rstd = rsqrtf(var * inv + ins.eps);
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = (v[i] - mean) * rstd * gm[i] + bt[i];
    activate_values<8>(act, v);
    if (valid) store8<T, kOutF32>(smem, ins.out.offset, r * cols + c0, v);
  }
}

// Any row of a multiple of 64 up to kMaxLayerNormCols: a warp per row, a float2 per lane per 64 columns.
template <class T>
__device__ void run_layer_norm_wide(const Instr& ins, const Args& a, int tile, unsigned char* smem) {
  constexpr int kMaxPairs = kMaxLayerNormCols / 64;  // a lane holds 2 values of every 64 columns
  const int rows = tile * ins.in.rows, cols = ins.in.cols, pairs = cols / 64;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  const auto act = static_cast<dev::Act>(ins.act);
  for (int r = warp; r < rows; r += nwarps) {
    float2 v[kMaxPairs];
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kMaxPairs; ++j) {
      if (j >= pairs) break;
      v[j] = load_pair<T>(smem, ins.in, static_cast<int64_t>(r) * cols + j * 64 + 2 * lane);
      sum += v[j].x + v[j].y;
    }
#pragma unroll
    for (int m = 16; m; m >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, m);
    const float mean = sum / cols;
    float var = 0.f;
#pragma unroll
    for (int j = 0; j < kMaxPairs; ++j) {
      if (j >= pairs) break;
      const float dx = v[j].x - mean, dy = v[j].y - mean;
      var += dx * dx + dy * dy;
    }
#pragma unroll
    for (int m = 16; m; m >>= 1) var += __shfl_xor_sync(0xffffffffu, var, m);
    const float rstd = rsqrtf(var / cols + ins.eps);
#pragma unroll
    for (int j = 0; j < kMaxPairs; ++j) {
      if (j >= pairs) break;
      const int c = j * 64 + 2 * lane;
      float y0 = (v[j].x - mean) * rstd * *(a.floats + ins.gamma + c);
      float y1 = (v[j].y - mean) * rstd * *(a.floats + ins.gamma + c + 1);
      if (ins.beta >= 0) y0 += *(a.floats + ins.beta + c), y1 += *(a.floats + ins.beta + c + 1);
      store_pair<T>(smem, ins.out, static_cast<int64_t>(r) * cols + c, activate_any(act, y0), activate_any(act, y1));
    }
  }
}

template <class T>
__device__ void run_layer_norm(const Instr& ins, const Args& a, int tile, unsigned char* smem) {
  const int cols = ins.in.cols;
  if (cols != 64 && cols != 128 && cols != 256) return run_layer_norm_wide<T>(ins, a, tile, smem);
  const bool in32 = ins.in.elem == Elem::F32, out32 = ins.out.elem == Elem::F32;
  if (in32 && out32) return run_layer_norm_narrow<T, true, true>(ins, a, tile, smem);
  if (in32) return run_layer_norm_narrow<T, true, false>(ins, a, tile, smem);
  if (out32) return run_layer_norm_narrow<T, false, true>(ins, a, tile, smem);
  run_layer_norm_narrow<T, false, false>(ins, a, tile, smem);
}

template <class T>
__device__ void run_attention(const Instr& ins, int tile, unsigned char* smem, uint32_t zero_row) {
  const int seq = ins.in.rows, width = ins.in.cols, embed = ins.out.cols, dim = ins.head_dim;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  const int g = lane >> 2, cq = (lane & 3) * 2;
  for (int u = warp; u < tile * ins.heads; u += nwarps) {
    const int row0 = (u / ins.heads) * seq, h = u % ins.heads;
    // Lane rows: q (A, and v through .trans) row lane % 16; k (B) row lane % 8 + 8 (lane / 16).
    const int qr = lane & 15, kr = (lane & 7) + (lane >> 4) * 8;
    const uint32_t q_row = qr < seq ? ins.in.offset + ((row0 + qr) * width + h * dim + (lane >> 4) * 8) * 2 : 0u;
    const uint32_t k_row =
        kr < seq ? ins.in.offset + ((row0 + kr) * width + embed + h * dim + ((lane >> 3) & 1) * 8) * 2 : 0u;
    const uint32_t v_row =
        qr < seq ? ins.in.offset + ((row0 + qr) * width + 2 * embed + h * dim + (lane >> 4) * 8) * 2 : 0u;
    float s[2][4] = {};
    for (int k0 = 0; k0 < dim; k0 += 16) {
      uint32_t qa[4], kb[4];
      dev::ldmatrix_x4(qa, qr < seq ? smem_u32(smem + swizzle(q_row + k0 * 2)) : zero_row);
      dev::ldmatrix_x4(kb, kr < seq ? smem_u32(smem + swizzle(k_row + k0 * 2)) : zero_row);
      dev::mma_16816<T>(s[0], qa, kb[0], kb[1]);
      dev::mma_16816<T>(s[1], qa, kb[2], kb[3]);
    }
    // Rows g (values 0, 1 of each key tile) and g + 8 (values 2, 3); keys t * 8 + cq + {0, 1}.
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int t = 0; t < 2; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int key = t * 8 + cq + (i & 1);
        s[t][i] = key < seq ? s[t][i] * ins.scale : -INFINITY;
        mx[i >> 1] = fmaxf(mx[i >> 1], s[t][i]);
      }
    float sum[2] = {0.f, 0.f};
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      mx[i] = fmaxf(mx[i], __shfl_xor_sync(0xffffffffu, mx[i], 1));
      mx[i] = fmaxf(mx[i], __shfl_xor_sync(0xffffffffu, mx[i], 2));
    }
#pragma unroll
    for (int t = 0; t < 2; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        s[t][i] = __expf(s[t][i] - mx[i >> 1]);
        sum[i >> 1] += s[t][i];
      }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      sum[i] += __shfl_xor_sync(0xffffffffu, sum[i], 1);
      sum[i] += __shfl_xor_sync(0xffffffffu, sum[i], 2);
    }
    // The probabilities as the A operand of P v: accumulator tile t is A's key columns 8t .. 8t + 7.
    const uint32_t pa[4] = {dev::pack_pair<T>(s[0][0], s[0][1]), dev::pack_pair<T>(s[0][2], s[0][3]),
                            dev::pack_pair<T>(s[1][0], s[1][1]), dev::pack_pair<T>(s[1][2], s[1][3])};
    const float inv0 = 1.f / sum[0], inv1 = 1.f / sum[1];
    for (int d0 = 0; d0 < dim; d0 += 16) {
      uint32_t vb[4];
      dev::ldmatrix_x4_trans(vb, qr < seq ? smem_u32(smem + swizzle(v_row + d0 * 2)) : zero_row);
      float o[2][4] = {};
      dev::mma_16816<T>(o[0], pa, vb[0], vb[1]);
      dev::mma_16816<T>(o[1], pa, vb[2], vb[3]);
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        const int c = h * dim + d0 + t * 8 + cq;
        if (g < seq)
          store_pair<T>(smem, ins.out, static_cast<int64_t>(row0 + g) * embed + c, o[t][0] * inv0, o[t][1] * inv0);
        if (g + 8 < seq)
          store_pair<T>(smem, ins.out, static_cast<int64_t>(row0 + g + 8) * embed + c, o[t][2] * inv1, o[t][3] * inv1);
      }
    }
  }
}

// Softmax over each row: a warp per row, the lanes across its columns (rows of any width; a classifier's rows
// are short, so a lane holds at most a few values and re-reads them from shared memory rather than keep them).
// A NaN anywhere in a row makes the whole row NaN, as the per-step kernels do.
template <class T>
__device__ void run_softmax(const Instr& ins, int tile, unsigned char* smem) {
  const int rows = tile * ins.in.rows, cols = ins.in.cols;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  for (int r = warp; r < rows; r += nwarps) {
    const int64_t e0 = static_cast<int64_t>(r) * cols;
    float mx = -INFINITY;
    for (int c = lane; c < cols; c += 32) mx = fmaxf(mx, load_one<T>(smem, ins.in, e0 + c));
#pragma unroll
    for (int m = 16; m; m >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, m));
    float sum = 0.f;
    for (int c = lane; c < cols; c += 32) sum += __expf(load_one<T>(smem, ins.in, e0 + c) - mx);
#pragma unroll
    for (int m = 16; m; m >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, m);
    const float inv = 1.f / sum;
    for (int c = lane; c < cols; c += 32)
      store_one<T>(smem, ins.out, e0 + c, __expf(load_one<T>(smem, ins.in, e0 + c) - mx) * inv);
  }
}

// Global -> shared (Load) or shared -> global (Store) of the tile's samples, 2 elements at a time when the
// per-sample size is even, converting between the global tensor's type and the view's.
template <class T>
__device__ void run_copy(const Instr& ins, const Args& a, const Program& prog, int64_t sample0, int tile,
                         unsigned char* smem) {
  const bool load = ins.op == OpCode::Load;
  const View& sv = load ? ins.out : ins.in;
  const View& gv = load ? ins.in : ins.out;
  const Elem ge = prog.io_elem[gv.io];
  const int64_t per = static_cast<int64_t>(sv.rows) * sv.cols;
  const int64_t valid = min(static_cast<int64_t>(tile), a.batch - sample0) * per;
  const int64_t total = static_cast<int64_t>(tile) * per;
  auto* g = static_cast<unsigned char*>(const_cast<void*>(a.io[gv.io])) + sample0 * per * elem_bytes(ge);
  auto gload = [&](int64_t e) -> float {
    if (ge == Elem::F32) return reinterpret_cast<const float*>(g)[e];
    if (ge == Elem::F16) return __half2float(reinterpret_cast<const __half*>(g)[e]);
    return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(g)[e]);
  };
  auto gstore = [&](int64_t e, float v) {
    if (ge == Elem::F32)
      reinterpret_cast<float*>(g)[e] = v;
    else if (ge == Elem::F16)
      reinterpret_cast<__half*>(g)[e] = __float2half_rn(v);
    else
      reinterpret_cast<__nv_bfloat16*>(g)[e] = __float2bfloat16_rn(v);
  };
  // A load in the view's own type whose samples are whole 16-byte chunks: 16-byte copies, read-only path.
  const int64_t bytes = per * elem_bytes(ge);
  if (load && ge == sv.elem && bytes % 16 == 0 && (reinterpret_cast<uintptr_t>(a.io[gv.io]) & 15) == 0) {
    const int64_t chunks = total / per * (bytes / 16), valid_chunks = valid / per * (bytes / 16);
    const uint4* src = reinterpret_cast<const uint4*>(g);
#pragma unroll 4
    for (int64_t i = threadIdx.x; i < chunks; i += blockDim.x) {
      const uint4 v = i < valid_chunks ? __ldg(src + i) : make_uint4(0u, 0u, 0u, 0u);
      *reinterpret_cast<uint4*>(smem + swizzle(static_cast<uint32_t>(sv.offset + i * 16))) = v;
    }
    return;
  }
  if (per % 2 == 0) {
    for (int64_t e = 2 * threadIdx.x; e < (load ? total : valid); e += 2 * blockDim.x) {
      if (load) {
        float x = 0.f, y = 0.f;
        if (e < valid) {
          if (ge == Elem::F32) {
            const float2 f = *reinterpret_cast<const float2*>(reinterpret_cast<const float*>(g) + e);
            x = f.x, y = f.y;
          } else {
            x = gload(e), y = gload(e + 1);
          }
        }
        store_pair<T>(smem, sv, e, x, y);
      } else {
        const float2 f = load_pair<T>(smem, sv, e);
        if (ge == Elem::F32)
          *reinterpret_cast<float2*>(reinterpret_cast<float*>(g) + e) = f;
        else
          gstore(e, f.x), gstore(e + 1, f.y);
      }
    }
    return;
  }
  // Odd per-sample sizes: element by element (a pair may straddle two samples' rows, so no pairs).
  const int esz = elem_bytes(sv.elem);
  for (int64_t e = threadIdx.x; e < (load ? total : valid); e += blockDim.x) {
    unsigned char* p = smem + swizzle(static_cast<uint32_t>(sv.offset + e * esz));
    if (load) {
      const float v = e < valid ? gload(e) : 0.f;
      if (sv.elem == Elem::F32)
        *reinterpret_cast<float*>(p) = v;
      else
        *reinterpret_cast<T*>(p) = dev::from_float<T>(v);
    } else {
      gstore(e,
             sv.elem == Elem::F32 ? *reinterpret_cast<const float*>(p) : dev::to_float(*reinterpret_cast<const T*>(p)));
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kMaxThreads) sample_resident_kernel(Args ga) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const Program& gp = *ga.program;
  const int64_t tiles = (ga.batch + gp.tile - 1) / gp.tile;
  if (static_cast<int64_t>(blockIdx.x) >= tiles) return;
  // The program's header and instructions, and the float blob, into shared memory once: every instruction reads
  // its fields and every epilogue its biases after a barrier (from global memory they were 15% of the stalls).
  Program* sp = reinterpret_cast<Program*>(smem + gp.program_smem);
  {
    const int words = static_cast<int>((offsetof(Program, instr) + gp.count * sizeof(Instr)) / 4);
    const auto* src = reinterpret_cast<const uint32_t*>(&gp);
    for (int i = threadIdx.x; i < words; i += blockDim.x) reinterpret_cast<uint32_t*>(sp)[i] = src[i];
    float* f = reinterpret_cast<float*>(smem + gp.floats_smem);
    for (int i = threadIdx.x; i < gp.floats_count; i += blockDim.x) f[i] = __ldg(ga.floats + i);
    if (threadIdx.x < 4) reinterpret_cast<uint32_t*>(smem + gp.zero)[threadIdx.x] = 0u;
  }
  __syncthreads();
  const Program& prog = *sp;
  Args a = ga;
  a.floats = reinterpret_cast<const float*>(smem + prog.floats_smem);
  const uint32_t zero_row = smem_u32(smem + prog.zero);
  float* scratch = prog.scratch >= 0 ? reinterpret_cast<float*>(smem + prog.scratch) : nullptr;
  int slot = 0;  // the weight slot of the next Linear
  const int first = prog.first_linear;
  if (first >= 0) prefetch_weights(prog.instr[first], a, smem, prog.w_stage);
  dev::cp_async_commit();
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t sample0 = tile * prog.tile;
    const bool last_tile = tile + gridDim.x >= tiles;
    for (int i = 0; i < prog.count; ++i) {
      const Instr& ins = prog.instr[i];
      switch (ins.op) {
        case OpCode::Load:
        case OpCode::Store:
          run_copy<T>(ins, a, prog, sample0, prog.tile, smem);
          break;
        case OpCode::Linear: {
          const int here = prog.w_stage + slot * prog.w_slot_bytes;
          dev::cp_async_wait<0>();
          __syncthreads();  // this Linear's weights (every thread's copies) have landed
          const int next = ins.next_linear;
          if (next >= 0 && !(next <= i && last_tile))
            prefetch_weights(prog.instr[next], a, smem, prog.w_stage + (slot ^ 1) * prog.w_slot_bytes);
          dev::cp_async_commit();
          dispatch_linear<T>(ins, a, prog.tile, smem, here, scratch);
          slot ^= 1;
          break;
        }
        case OpCode::LayerNorm:
          run_layer_norm<T>(ins, a, prog.tile, smem);
          break;
        case OpCode::Attention:
          run_attention<T>(ins, prog.tile, smem, zero_row);
          break;
        case OpCode::Softmax:
          run_softmax<T>(ins, prog.tile, smem);
          break;
      }
      __syncthreads();
    }
  }
  dev::cp_async_wait<0>();
}

}  // namespace ie::sr

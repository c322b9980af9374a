// Resize of [planes, H, W] -> [planes, H', W'] on the fused "cuda" kernel set: one CTA per plane at a time, the
// plane staged in shared memory as float, each output row and column reading its taps (up to 4 source indices and
// weights, computed at plan time; count -1 marks an extrapolated position). Float32, float16 and bfloat16 in and
// out, float arithmetic in the order of the reference kernel (along W for each H tap, then along H). The input may
// also be 8- or 16-bit integers (ie.ScaledResize: an integer image's Cast and scaling folded into the resize), each
// value converted to float and multiplied or divided by a factor as the plane is staged, so the float image never
// goes through memory.
//
// Two passes through shared memory, along W then along H: warps take rows and lanes take columns, so stores
// coalesce without any index division; the row taps sit in shared memory (one broadcast per row), a lane keeps its
// columns' taps in registers across rows and planes.
// Memory-bound: the floor is the output written once (the ConvNet's 28x28 -> 86x86 writes 9.4x what it reads). Depends
// on CUDA alone, like the other kernel headers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "layers/common/float_device.cuh"
#include "layers/common/launch_limits.cuh"

namespace ie::rsz {

struct DevTaps {
  int32_t index[4];
  float weight[4];
  int32_t count;  // -1: outside the crop box (the extrapolation value)
};

/// Taps that read at most two source positions (nearest and linear modes inside the crop box); a tap of weight 0
/// is skipped, as along() skips it.
struct PairTaps {
  int32_t i0, i1;
  float w0, w1;
};

struct Params {
  const void* in = nullptr;
  void* out = nullptr;
  int64_t planes = 0;
  int in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  const DevTaps* rows = nullptr;  // out_h taps along H
  const DevTaps* cols = nullptr;  // out_w taps along W
  float extrapolation = 0.f;
  // Integer inputs only: each value as float, times in_factor (or divided by it when in_divide), as the Cast and
  // the Mul or Div that ie.ScaledResize replaces compute it. Float inputs are read as they are.
  float in_factor = 1.f;
  bool in_divide = false;
  // The same taps as pairs (see PairTaps), when every one reads at most two positions: the pairs kernel then runs
  // where the output's rows have an even length. Null: the plane kernel.
  const PairTaps* row_pairs = nullptr;
  const PairTaps* col_pairs = nullptr;
  // Waves of CTAs the planes are spread over (launch() sets planes_per_cta from it): each CTA takes a run of
  // consecutive planes, prefetching the next of its run. 1 is a persistent grid.
  int waves = 4;
  int64_t planes_per_cta = 1;
};

/// `n` taps as pairs into `out`, or false when one reads more than two positions or extrapolates. Host code.
inline bool pair_taps(const DevTaps* taps, int n, PairTaps* out) {
  for (int i = 0; i < n; ++i) {
    const DevTaps& t = taps[i];
    if (t.count < 1 || t.count > 2) return false;
    out[i] = PairTaps{t.index[0], t.count > 1 ? t.index[1] : t.index[0], t.weight[0], t.count > 1 ? t.weight[1] : 0.f};
  }
  return true;
}

/// One input element as the resize reads it: float inputs as they are, integers scaled. The division is a
/// template argument: a run-time choice kept its registers live in the multiplying kernels too (78 against 64).
template <class In, bool kDivide>
__device__ __forceinline__ float input_value(In v, const Params& p) {
  if constexpr (std::is_integral_v<In>) {
    const float f = static_cast<float>(v);
    return kDivide ? f / p.in_factor : f * p.in_factor;
  } else {
    return dev::to_float(v);
  }
}

/// Interpolation along one axis: the weighted sum of at(i) over the taps in float, zero weights skipped, or the
/// extrapolation value outside the crop box. Fixed loop bounds keep the taps in registers.
template <class At>
__device__ __forceinline__ float along(const DevTaps& t, float extrapolation, At at) {
  if (t.count < 0) return extrapolation;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k >= t.count) break;
    if (t.weight[k] != 0.f) acc += t.weight[k] * at(t.index[k]);
  }
  return acc;
}

/// along() for a pair: v0 and v1 are the values at t.i0 and t.i1 (the same arithmetic, so the same bits).
__device__ __forceinline__ float along_pair(const PairTaps& t, float v0, float v1) {
  float acc = 0.f;
  if (t.w0 != 0.f) acc += t.w0 * v0;
  if (t.w1 != 0.f) acc += t.w1 * v1;
  return acc;
}

/// One output value from its row taps `ty` and column taps `tx`, reading the source through at(iy, ix): along W
/// for each H tap, then along H (the reference kernel's order; the plane kernel computes the same two passes
/// through shared memory, so both give the same bits).
template <class At>
__device__ __forceinline__ float interpolate(const DevTaps& ty, const DevTaps& tx, float extrapolation, At at) {
  return along(ty, extrapolation, [&](int iy) { return along(tx, extrapolation, [&](int ix) { return at(iy, ix); }); });
}

constexpr int kThreads = 256;
// Output columns a lane keeps the taps of in registers (lane, lane + 32, ...): rows up to 128 wide; wider ones
// read their column taps from memory per output.
constexpr int kLaneColumns = 4;
// Input elements per thread prefetched in registers: planes up to 4 x 256 = 1024 elements (32x32).
constexpr int kPrefetch = 4;

/// Shared memory one CTA uses: its plane as float, the plane's rows resampled along W, then the row taps.
inline size_t shared_bytes(int in_h, int in_w, int out_h, int out_w) {
  return (static_cast<size_t>(in_h) * in_w + static_cast<size_t>(in_h) * out_w) * sizeof(float) +
         static_cast<size_t>(out_h) * sizeof(DevTaps);
}
// Within the default 48 KiB (no opt-in); larger planes go to the reference kernel.
constexpr size_t kMaxSharedBytes = 48 * 1024;

/// The pairs kernel's shared memory: the plane, the rows resampled (16-byte aligned), then the row and column taps.
__host__ __device__ inline int pairs_across_offset(int in_h, int in_w) { return (in_h * in_w + 3) / 4 * 4; }
__host__ __device__ inline int pairs_taps_offset(int in_h, int in_w, int out_w) {
  return (pairs_across_offset(in_h, in_w) + in_h * out_w + 3) / 4 * 4;
}
inline size_t pairs_shared_bytes(int in_h, int in_w, int out_h, int out_w) {
  return static_cast<size_t>(pairs_taps_offset(in_h, in_w, out_w)) * sizeof(float) +
         static_cast<size_t>(out_h + out_w) * sizeof(PairTaps);
}

// Two passes per plane through shared memory, as separable filters do: every input row resampled along W (warps on
// input rows), then every output row from its H taps over those (warps on output rows). kCols > 0: out_w <=
// 32 * kCols and each lane holds its columns' taps in registers. In: the input's element type, T the output's;
// kDivide: integer inputs divided by the factor (else multiplied).
template <class In, class T, int kCols, bool kDivide>
__global__ void __launch_bounds__(kThreads) resize_planes_kernel(Params p) {
  extern __shared__ float shared[];
  const int in_hw = p.in_h * p.in_w;
  float* plane = shared;
  float* across = plane + in_hw;  // [in_h, out_w]
  // The row taps follow, 4-byte aligned like DevTaps.
  DevTaps* rows = reinterpret_cast<DevTaps*>(across + p.in_h * p.out_w);
  for (int y = static_cast<int>(threadIdx.x); y < p.out_h; y += static_cast<int>(blockDim.x)) rows[y] = p.rows[y];
  const int64_t out_hw = static_cast<int64_t>(p.out_h) * p.out_w;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  DevTaps cols[kCols > 0 ? kCols : 1];
#pragma unroll
  for (int c = 0; c < kCols; ++c)
    if (lane + 32 * c < p.out_w) cols[c] = p.cols[lane + 32 * c];
  // Calls f(x, taps of column x) for this lane's columns.
  auto each_column = [&](auto&& f) {
    if constexpr (kCols > 0) {
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        if (lane + 32 * c < p.out_w) f(lane + 32 * c, cols[c]);
    } else {
      for (int x = lane; x < p.out_w; x += 32) f(x, p.cols[x]);
    }
  };
  // Small planes: each thread holds its share of the next plane in registers, loaded while this plane is
  // computed, so that the global load's latency hides behind the two passes.
  const bool prefetch = in_hw <= kPrefetch * static_cast<int>(blockDim.x);
  float next[kPrefetch];
  auto fetch = [&](int64_t q) {
    const In* src = static_cast<const In*>(p.in) + q * in_hw;
#pragma unroll
    for (int r = 0; r < kPrefetch; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * static_cast<int>(blockDim.x);
      if (i < in_hw) next[r] = input_value<In, kDivide>(src[i], p);
    }
  };
  const int64_t first = static_cast<int64_t>(blockIdx.x) * p.planes_per_cta;
  const int64_t last = first + p.planes_per_cta < p.planes ? first + p.planes_per_cta : p.planes;
  if (prefetch && first < last) fetch(first);
  for (int64_t q = first; q < last; ++q) {
    __syncthreads();  // every reader of the previous plane is done (and, the first time, the row taps are in)
    if (prefetch) {
#pragma unroll
      for (int r = 0; r < kPrefetch; ++r) {
        const int i = static_cast<int>(threadIdx.x) + r * static_cast<int>(blockDim.x);
        if (i < in_hw) plane[i] = next[r];
      }
    } else {
      const In* src = static_cast<const In*>(p.in) + q * in_hw;
      for (int i = static_cast<int>(threadIdx.x); i < in_hw; i += static_cast<int>(blockDim.x))
        plane[i] = input_value<In, kDivide>(src[i], p);
    }
    __syncthreads();
    if (prefetch && q + 1 < last) fetch(q + 1);
    for (int iy = warp; iy < p.in_h; iy += warps) {
      const float* in_row = plane + iy * p.in_w;
      float* out_row = across + iy * p.out_w;
      each_column([&](int x, const DevTaps& tx) {
        out_row[x] = along(tx, p.extrapolation, [&](int ix) { return in_row[ix]; });
      });
    }
    __syncthreads();
    T* dst = static_cast<T*>(p.out) + q * out_hw;
    for (int y = warp; y < p.out_h; y += warps) {
      const DevTaps ty = rows[y];  // the same for the whole warp: a broadcast
      T* out_row = dst + static_cast<int64_t>(y) * p.out_w;
      each_column([&](int x, const DevTaps&) {
        out_row[x] = dev::from_float<T>(along(ty, p.extrapolation, [&](int iy) { return across[iy * p.out_w + x]; }));
      });
    }
  }
}

// Output column pairs are stored together (out_w even): 4 bytes of a 16-bit type, 8 of float.
template <class T>
struct Pair;
template <>
struct Pair<float> {
  using type = float2;
  static __device__ __forceinline__ float2 make(float a, float b) { return make_float2(a, b); }
};
template <>
struct Pair<__half> {
  using type = __half2;
  static __device__ __forceinline__ __half2 make(float a, float b) { return __floats2half2_rn(a, b); }
};
template <>
struct Pair<__nv_bfloat16> {
  using type = __nv_bfloat162;
  static __device__ __forceinline__ __nv_bfloat162 make(float a, float b) { return __floats2bfloat162_rn(a, b); }
};

// The two passes of resize_planes_kernel for taps of at most two positions (PairTaps) and rows of even length:
// each thread takes two adjacent columns at a time and the threads step over a pass's [rows, out_w / 2] pairs as
// one flat range (no warp waits on a row's last columns, no lane holds taps of columns it lacks); both passes read
// their taps from shared memory and store column pairs (8-byte shared stores, 4- or 8-byte global stores).
template <class In, class T, bool kDivide>
__global__ void __launch_bounds__(kThreads) resize_pairs_kernel(Params p) {
  extern __shared__ float shared[];
  const int in_hw = p.in_h * p.in_w, half_w = p.out_w / 2;
  const int tid = static_cast<int>(threadIdx.x), nthreads = static_cast<int>(blockDim.x);
  float* plane = shared;
  float* across = shared + pairs_across_offset(p.in_h, p.in_w);  // [in_h, out_w]
  PairTaps* rows = reinterpret_cast<PairTaps*>(shared + pairs_taps_offset(p.in_h, p.in_w, p.out_w));
  PairTaps* cols = rows + p.out_h;
  for (int i = tid; i < p.out_h; i += nthreads) rows[i] = p.row_pairs[i];
  for (int i = tid; i < p.out_w; i += nthreads) cols[i] = p.col_pairs[i];
  const int64_t out_hw = static_cast<int64_t>(p.out_h) * p.out_w;
  // A thread's next pair is nthreads pairs on: step_rows rows and step_cols pairs further (one division per CTA).
  const int step_rows = nthreads / half_w, step_cols = nthreads % half_w;
  const int first_row = tid / half_w, first_col = tid % half_w;
  const bool prefetch = in_hw <= kPrefetch * nthreads;
  float next[kPrefetch];
  auto fetch = [&](int64_t q) {
    const In* src = static_cast<const In*>(p.in) + q * in_hw;
#pragma unroll
    for (int r = 0; r < kPrefetch; ++r) {
      const int i = tid + r * nthreads;
      if (i < in_hw) next[r] = input_value<In, kDivide>(src[i], p);
    }
  };
  const int64_t first = static_cast<int64_t>(blockIdx.x) * p.planes_per_cta;
  const int64_t last = first + p.planes_per_cta < p.planes ? first + p.planes_per_cta : p.planes;
  if (prefetch && first < last) fetch(first);
  for (int64_t q = first; q < last; ++q) {
    __syncthreads();  // every reader of the previous plane is done (and, the first time, the taps are in)
    if (prefetch) {
#pragma unroll
      for (int r = 0; r < kPrefetch; ++r) {
        const int i = tid + r * nthreads;
        if (i < in_hw) plane[i] = next[r];
      }
    } else {
      const In* src = static_cast<const In*>(p.in) + q * in_hw;
      for (int i = tid; i < in_hw; i += nthreads) plane[i] = input_value<In, kDivide>(src[i], p);
    }
    __syncthreads();
    if (prefetch && q + 1 < last) fetch(q + 1);
    // Along W: input row y, output columns 2c and 2c + 1.
    for (int y = first_row, c = first_col; y < p.in_h;) {
      const float* in_row = plane + y * p.in_w;
      const PairTaps a = cols[2 * c], b = cols[2 * c + 1];
      *reinterpret_cast<float2*>(across + y * p.out_w + 2 * c) =
          make_float2(along_pair(a, in_row[a.i0], in_row[a.i1]), along_pair(b, in_row[b.i0], in_row[b.i1]));
      y += step_rows, c += step_cols;
      if (c >= half_w) c -= half_w, ++y;
    }
    __syncthreads();
    // Along H: output row y, columns 2c and 2c + 1.
    typename Pair<T>::type* dst = reinterpret_cast<typename Pair<T>::type*>(static_cast<T*>(p.out) + q * out_hw);
    for (int y = first_row, c = first_col; y < p.out_h;) {
      const PairTaps t = rows[y];
      const float2 u = *reinterpret_cast<const float2*>(across + t.i0 * p.out_w + 2 * c);
      const float2 v = *reinterpret_cast<const float2*>(across + t.i1 * p.out_w + 2 * c);
      dst[y * half_w + c] = Pair<T>::make(along_pair(t, u.x, v.x), along_pair(t, u.y, v.y));
      y += step_rows, c += step_cols;
      if (c >= half_w) c -= half_w, ++y;
    }
  }
}

/// Launches on `stream` with p.waves waves of as many CTAs as fit on the device at once, each CTA looping over a
/// run of planes. The caller has checked shared_bytes() against kMaxSharedBytes. In is the input's element type (T
/// by default).
template <class T, class In = T>
cudaError_t launch(const Params& p, cudaStream_t stream) {
  if (p.planes == 0 || p.out_h == 0 || p.out_w == 0) return cudaSuccess;
  const bool pairs = p.row_pairs && p.col_pairs && p.out_w % 2 == 0 &&
                     reinterpret_cast<uintptr_t>(p.out) % (2 * sizeof(T)) == 0 &&
                     pairs_shared_bytes(p.in_h, p.in_w, p.out_h, p.out_w) <= kMaxSharedBytes;
  const int smem = static_cast<int>(pairs ? pairs_shared_bytes(p.in_h, p.in_w, p.out_h, p.out_w)
                                          : shared_bytes(p.in_h, p.in_w, p.out_h, p.out_w));
  const bool cols = p.out_w <= 32 * kLaneColumns;
  auto kernel = cols ? resize_planes_kernel<In, T, kLaneColumns, false> : resize_planes_kernel<In, T, 0, false>;
  if constexpr (std::is_integral_v<In>)
    if (p.in_divide)
      kernel = cols ? resize_planes_kernel<In, T, kLaneColumns, true> : resize_planes_kernel<In, T, 0, true>;
  if (pairs) {
    kernel = resize_pairs_kernel<In, T, false>;
    if constexpr (std::is_integral_v<In>)
      if (p.in_divide) kernel = resize_pairs_kernel<In, T, true>;
  }
  dev::DeviceLimits limits;
  cudaError_t err = dev::device_limits(&limits);
  int per_sm = 0;
  if (err == cudaSuccess) err = dev::resident_blocks(kernel, kThreads, smem, limits.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  // Runs of planes per CTA for `waves` waves of resident CTAs: with several waves the hardware hands out CTAs as
  // SMs free up, so the kernel shares the GPU with another stream's kernels without a CTA that started late
  // holding a whole persistent share of the planes.
  const int64_t resident = static_cast<int64_t>(limits.sms) * (per_sm > 0 ? per_sm : 1);
  const int64_t target = resident * (p.waves > 0 ? p.waves : 1);
  Params run = p;
  run.planes_per_cta = (p.planes + target - 1) / target;
  const unsigned grid = static_cast<unsigned>((p.planes + run.planes_per_cta - 1) / run.planes_per_cta);
  kernel<<<grid, kThreads, smem, stream>>>(run);
  return cudaGetLastError();
}

}  // namespace ie::rsz

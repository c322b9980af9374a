// LayerNormalization on the device (cuda-reference): rows of n normalized elements (the dims from `axis` on).
//
//  - n <= 1024: one warp per row (4 warps per block, grid-stride over rows). Each lane keeps its ITERS x VEC
//    values in registers: VEC = a 16-byte pack (4 floats, 8 halves) when n and the pointers allow, else 1, lane l
//    owning elements (it * 32 + l) * VEC ... + VEC - 1, so every load is coalesced. Two-pass statistics from the
//    registers: mean by warp shuffle, then the mean of squared deviations, so no cancellation.
//  - n > 1024: one block of 256 threads per row, the same two passes over global memory with block sums, then
//    the write pass.
// Statistics and arithmetic are float (float16 in and out); inv = 1 / sqrt(var + epsilon) as on the CPU.
// Scale and B must hold n elements (any shape with that count, as broadcasting to the normalized shape then
// leaves the data unchanged) of X's type; the optional Mean / InvStdDev outputs are written when float32.
#include <algorithm>

#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/layer_norm/layer_norm_setup.h"

namespace ie::cuda {
namespace {

constexpr int kMaxWarpRow = 1024;

struct NormArgs {
  int64_t rows;
  int n;
  float epsilon;
  float* mean_out;  // optional
  float* inv_out;   // optional
};

template <class T, int VEC, int ITERS>
__global__ void layer_norm_warp_kernel(const T* __restrict__ x, const T* __restrict__ scale, const T* __restrict__ bias,
                                       T* __restrict__ y, NormArgs a) {
  const int lane = threadIdx.x & 31;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  const int64_t step = static_cast<int64_t>(gridDim.x) * kWarpsPerBlock;
  for (int64_t row = first; row < a.rows; row += step) {
    const T* xr = x + row * a.n;
    float v[ITERS][VEC];
    float sum = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int base = (it * 32 + lane) * VEC;
      if (base < a.n) {
        Pack<T, VEC> p = *reinterpret_cast<const Pack<T, VEC>*>(xr + base);
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
          v[it][k] = convert<float>(p.v[k]);
          sum += v[it][k];
        }
      }
    }
    const float mean = warp_sum(sum) / static_cast<float>(a.n);
    float sq = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      if ((it * 32 + lane) * VEC < a.n) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
          const float d = v[it][k] - mean;
          sq += d * d;
        }
      }
    }
    const float inv = 1.f / sqrtf(warp_sum(sq) / static_cast<float>(a.n) + a.epsilon);
    T* yr = y + row * a.n;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int base = (it * 32 + lane) * VEC;
      if (base < a.n) {
        const Pack<T, VEC> s = *reinterpret_cast<const Pack<T, VEC>*>(scale + base);
        Pack<T, VEC> b{};
        if (bias) b = *reinterpret_cast<const Pack<T, VEC>*>(bias + base);
        Pack<T, VEC> o;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
          float r = (v[it][k] - mean) * inv * convert<float>(s.v[k]);
          if (bias) r += convert<float>(b.v[k]);
          o.v[k] = convert<T>(r);
        }
        *reinterpret_cast<Pack<T, VEC>*>(yr + base) = o;
      }
    }
    if (lane == 0) {
      if (a.mean_out) a.mean_out[row] = mean;
      if (a.inv_out) a.inv_out[row] = inv;
    }
  }
}

template <class T>
__global__ void layer_norm_block_kernel(const T* __restrict__ x, const T* __restrict__ scale,
                                        const T* __restrict__ bias, T* __restrict__ y, NormArgs a) {
  __shared__ float shared[32];
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    const T* xr = x + row * a.n;
    float sum = 0.f;
    for (int i = threadIdx.x; i < a.n; i += blockDim.x) sum += convert<float>(xr[i]);
    const float mean = block_sum(sum, shared) / static_cast<float>(a.n);
    float sq = 0.f;
    for (int i = threadIdx.x; i < a.n; i += blockDim.x) {
      const float d = convert<float>(xr[i]) - mean;
      sq += d * d;
    }
    const float inv = 1.f / sqrtf(block_sum(sq, shared) / static_cast<float>(a.n) + a.epsilon);
    T* yr = y + row * a.n;
    for (int i = threadIdx.x; i < a.n; i += blockDim.x) {
      float r = (convert<float>(xr[i]) - mean) * inv * convert<float>(scale[i]);
      if (bias) r += convert<float>(bias[i]);
      yr[i] = convert<T>(r);
    }
    if (threadIdx.x == 0) {
      if (a.mean_out) a.mean_out[row] = mean;
      if (a.inv_out) a.inv_out[row] = inv;
    }
  }
}

template <class T, int VEC, int ITERS>
void launch_warp(const T* x, const T* scale, const T* bias, T* y, const NormArgs& a, cudaStream_t stream) {
  const unsigned grid = blocks_for(a.rows, kWarpsPerBlock);
  layer_norm_warp_kernel<T, VEC, ITERS><<<grid, kWarpsPerBlock * 32, 0, stream>>>(x, scale, bias, y, a);
}

// ITERS = the smallest power of two with 32 * VEC * ITERS >= n (n <= 1024).
template <class T, int VEC>
void launch_warp_iters(const T* x, const T* scale, const T* bias, T* y, const NormArgs& a, cudaStream_t stream) {
  const int iters = (a.n + 32 * VEC - 1) / (32 * VEC);
  if (iters <= 1) return launch_warp<T, VEC, 1>(x, scale, bias, y, a, stream);
  if (iters <= 2) return launch_warp<T, VEC, 2>(x, scale, bias, y, a, stream);
  if (iters <= 4) return launch_warp<T, VEC, 4>(x, scale, bias, y, a, stream);
  if constexpr (VEC <= 4) {
    if (iters <= 8) return launch_warp<T, VEC, 8>(x, scale, bias, y, a, stream);
  }
  if constexpr (VEC == 1) {
    if (iters <= 16) return launch_warp<T, VEC, 16>(x, scale, bias, y, a, stream);
    return launch_warp<T, VEC, 32>(x, scale, bias, y, a, stream);
  }
}

template <class T>
void launch_layer_norm(const T* x, const T* scale, const T* bias, T* y, const NormArgs& a, cudaStream_t stream) {
  if (a.rows == 0 || a.n == 0) return;
  constexpr int P = pack_of<T>();
  if (a.n <= kMaxWarpRow) {
    const bool packed = a.n % P == 0 && aligned_to(x, 16) && aligned_to(y, 16) && aligned_to(scale, 16) &&
                        (!bias || aligned_to(bias, 16));
    if (packed)
      launch_warp_iters<T, P>(x, scale, bias, y, a, stream);
    else
      launch_warp_iters<T, 1>(x, scale, bias, y, a, stream);
  } else {
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(a.rows, 65535 * 32));
    layer_norm_block_kernel<T><<<grid, kRowThreads, 0, stream>>>(x, scale, bias, y, a);
  }
  IE_CUDA_CHECK_LAUNCH();
}

std::unique_ptr<Kernel> make_layer_norm(const KernelInit& init) {
  const LayerNormSetup s = resolve_layer_norm(init.node, init.inputs[0].shape, nullptr);
  const DType t = init.inputs[0].dtype;
  const bool has_bias = init.has_input(2);
  auto fits = [&](size_t i) {
    return init.inputs[i].dtype == t && numel_range(init.inputs[i].shape, 0, init.inputs[i].shape.size()) == s.n;
  };
  if (s.n > INT32_MAX || !fits(1) || (has_bias && !fits(2))) return nullptr;
  bool stats[2] = {false, false};
  for (size_t i = 1; i < 3 && i < init.node.outputs.size(); ++i) {
    if (init.node.outputs[i].empty()) continue;
    if (init.outputs[i].dtype != DType::Float32) return nullptr;
    stats[i - 1] = true;
  }
  std::unique_ptr<Kernel> k;
  dispatch_device<float, __half>(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_kernel([s, has_bias, stats](KernelContext& ctx) {
      auto stat = [&](size_t i) {
        return stats[i - 1] && ctx.outputs.size() > i && ctx.outputs[i].present() ? ctx.outputs[i].as<float>()
                                                                                  : nullptr;
      };
      NormArgs a{s.rows, static_cast<int>(s.n), s.epsilon, stat(1), stat(2)};
      launch_layer_norm(ctx.inputs[0].as<const T>(), ctx.inputs[1].as<const T>(),
                        has_bias ? ctx.inputs[2].as<const T>() : nullptr, ctx.outputs[0].as<T>(), a, stream_of(ctx));
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(layer_norm_cuda) {
  OpRegistry::get().add_kernel("", "LayerNormalization", kernel_set::kCudaReference, make_layer_norm);
}

}  // namespace ie::cuda

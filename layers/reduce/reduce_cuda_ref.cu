// ReduceSum and ReduceMean on the device (cuda-reference), float32 and float16 (accumulated in float).
//
// The CPU op's plan_reduce() coalesces the dims at plan time into rows of `inner` outputs and a run of `count`
// reduced values per output; kernels exist for the single-stride forms of that plan (every reduction over one
// run of neighbouring axes, trailing or not):
//  - inner == 1 and the reduced values contiguous (trailing axes): one warp per output row for count <= 2048
//    (lanes stride the row, shuffle sum), one 256-thread block per row above;
//  - otherwise one thread per output, walking its `count` values at the reduced stride; neighbouring threads
//    read neighbouring elements, so the loads coalesce.
// Plans that need offset tables (reduced axes that are not neighbours after coalescing) are left to the CPU.
// Empty axes with noop_with_empty_axes copy the input.
#include <algorithm>

#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/init_context.h"
#include "layers/common/reduce_axes_plan.h"
#include "layers/reduce/reduce_setup.h"

namespace ie::cuda {
namespace {

constexpr int64_t kMaxWarpRow = 2048;

struct ReduceArgs {
  int64_t rows, row_stride;  // output rows and their input offset step
  int64_t count, stride;     // reduced values per output and their step
  int64_t inner;             // outputs per row, contiguous in input and output
  float scale;               // 1 for Sum, 1 / count for Mean
};

template <class T>
__global__ void reduce_rows_warp_kernel(const T* __restrict__ in, T* __restrict__ out, ReduceArgs a) {
  const int lane = threadIdx.x & 31;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  for (int64_t row = first; row < a.rows; row += static_cast<int64_t>(gridDim.x) * kWarpsPerBlock) {
    const T* r = in + row * a.row_stride;
    float sum = 0.f;
    for (int64_t i = lane; i < a.count; i += 32) sum += convert<float>(r[i]);
    sum = warp_sum(sum);
    if (lane == 0) out[row] = convert<T>(sum * a.scale);
  }
}

template <class T>
__global__ void reduce_rows_block_kernel(const T* __restrict__ in, T* __restrict__ out, ReduceArgs a) {
  __shared__ float shared[32];
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    const T* r = in + row * a.row_stride;
    float sum = 0.f;
    for (int64_t i = threadIdx.x; i < a.count; i += blockDim.x) sum += convert<float>(r[i]);
    sum = block_sum(sum, shared);
    if (threadIdx.x == 0) out[row] = convert<T>(sum * a.scale);
  }
}

template <class T>
__global__ void reduce_strided_kernel(const T* __restrict__ in, T* __restrict__ out, ReduceArgs a) {
  const int64_t n = a.rows * a.inner;
  for (int64_t i = grid_start<int64_t>(); i < n; i += grid_step<int64_t>()) {
    const int64_t o = i / a.inner, j = i - o * a.inner;
    const T* p = in + o * a.row_stride + j;
    float sum = 0.f;
    for (int64_t r = 0; r < a.count; ++r) sum += convert<float>(p[r * a.stride]);
    out[i] = convert<T>(sum * a.scale);
  }
}

template <class T>
void launch_reduce(const T* in, T* out, const ReduceArgs& a, cudaStream_t stream) {
  if (a.rows * a.inner == 0) return;
  if (a.inner == 1 && a.stride == 1 && a.count <= kMaxWarpRow)
    reduce_rows_warp_kernel<T><<<blocks_for(a.rows, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(in, out, a);
  else if (a.inner == 1 && a.stride == 1)
    reduce_rows_block_kernel<T>
        <<<static_cast<unsigned>(std::min<int64_t>(a.rows, 65535 * 32)), kRowThreads, 0, stream>>>(in, out, a);
  else
    reduce_strided_kernel<T><<<grid_for(a.rows * a.inner), kThreads, 0, stream>>>(in, out, a);
  IE_CUDA_CHECK_LAUNCH();
}

std::unique_ptr<Kernel> make_reduce(const KernelInit& init, bool mean) {
  const ReduceAxes r = plan_axes(InitContext(init).ctx);
  if (r.noop) {
    return make_kernel([](KernelContext& ctx) {
      const TensorRef& in = ctx.inputs[0];
      if (ctx.outputs[0].data != in.data && in.nbytes())
        IE_CUDA_CHECK(
            cudaMemcpyAsync(ctx.outputs[0].data, in.data, in.nbytes(), cudaMemcpyDeviceToDevice, stream_of(ctx)));
    });
  }
  const ReducePlan plan = plan_reduce(init.inputs[0].shape, r.axes);
  if (!plan.rows.table.empty() || !plan.reduced.table.empty()) return nullptr;
  const int64_t count = plan.reduced.count;
  // Mean over zero values is 0/0 = NaN, as on the CPU.
  const float scale = mean ? (count ? 1.f / static_cast<float>(count) : NAN) : 1.f;
  ReduceArgs a{plan.rows.count, plan.rows.stride, count, plan.reduced.stride, plan.inner, scale};
  if (a.rows == 1) a.row_stride = 0;
  std::unique_ptr<Kernel> k;
  dispatch_device<float, __half>(init.inputs[0].dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_kernel([a](KernelContext& ctx) {
      launch_reduce(ctx.inputs[0].as<const T>(), ctx.outputs[0].as<T>(), a, stream_of(ctx));
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(reduce_cuda) {
  OpRegistry::get().add_kernel("", "ReduceSum", kernel_set::kCudaReference,
                               [](const KernelInit& init) { return make_reduce(init, false); });
  OpRegistry::get().add_kernel("", "ReduceMean", kernel_set::kCudaReference,
                               [](const KernelInit& init) { return make_reduce(init, true); });
}

}  // namespace ie::cuda

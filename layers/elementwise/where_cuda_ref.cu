// Where on the device (cuda-reference): out = cond ? x : y with three-way numpy broadcasting. The plan from
// plan_broadcast() merges dims at plan time; one thread per output element finds its three input offsets with the
// divide chain (32-bit when the output has fewer than 2^31 elements). Only the element size of x and y matters,
// so every 1/2/4/8-byte type is handled as raw bits.
#include "engine/registry/op_def.h"
#include "layers/common/broadcast_plan.h"
#include "layers/common/cuda_util.cuh"

namespace ie::cuda {
namespace {

template <class U, class I>
__global__ void where_kernel(const bool* c, const U* x, const U* y, U* out, I n, StridedMap<I, 3> map) {
  for (I i = grid_start<I>(); i < n; i += grid_step<I>()) {
    I off[3];
    map.offsets(i, off);
    out[i] = c[off[0]] ? x[off[1]] : y[off[2]];
  }
}

template <class U, class I>
void launch_where(const BroadcastPlan& plan, const KernelContext& ctx) {
  StridedMap<I, 3> map;
  const std::vector<int64_t>* lists[3] = {&plan.strides[0], &plan.strides[1], &plan.strides[2]};
  make_strided_map(plan.dims, lists, map);
  where_kernel<U, I><<<grid_for(plan.numel), kThreads, 0, stream_of(ctx)>>>(
      ctx.inputs[0].as<const bool>(), ctx.inputs[1].as<const U>(), ctx.inputs[2].as<const U>(), ctx.outputs[0].as<U>(),
      static_cast<I>(plan.numel), map);
  IE_CUDA_CHECK_LAUNCH();
}

std::unique_ptr<Kernel> make_where(const KernelInit& init) {
  BroadcastPlan plan =
      plan_broadcast({init.inputs[0].shape, init.inputs[1].shape, init.inputs[2].shape}, init.outputs[0].shape);
  if (static_cast<int>(plan.dims.size()) > kMaxDims) return nullptr;
  std::unique_ptr<Kernel> k;
  dispatch_bytes(dtype_size(init.inputs[1].dtype), [&](auto tag) {
    using U = typename decltype(tag)::type;
    k = make_kernel([plan](KernelContext& ctx) {
      if (plan.numel == 0) return;
      fits_int32(plan.numel) ? launch_where<U, int32_t>(plan, ctx) : launch_where<U, int64_t>(plan, ctx);
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(where_cuda) { OpRegistry::get().add_kernel("", "Where", kernel_set::kCudaReference, make_where); }

}  // namespace ie::cuda

// Softmax and LogSoftmax on the fused "cuda" kernel set (softmax_rows.cuh): float32, float16 and bfloat16 with float
// arithmetic, so that in the 16-bit modes a classifier's Softmax runs in the storage type instead of in float32
// between two Casts on the reference set. Rows along the last axis of up to 1024 elements; other layouts and
// longer rows are declined with the reason (the reference set then runs them).
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/softmax/softmax_rows.cuh"
#include "layers/softmax/softmax_setup.h"

namespace ie {
namespace {

template <bool kLog>
std::unique_ptr<Kernel> make_softmax_rows(const KernelInit& init) {
  const SoftSetup s = resolve_soft(init.node, init.inputs[0].shape, init.opset);
  const DType t = init.inputs[0].dtype;
  if (t != DType::Float32 && t != DType::Float16 && t != DType::BFloat16)
    return init.decline("element type ", dtype_name(t), " (the kernel takes float32, float16 and bfloat16)");
  if (s.inner != 1) return init.decline("an axis other than the last one");
  if (s.n > soft::kMaxRow) return init.decline("rows of ", s.n, " elements (at most ", soft::kMaxRow, ")");
  const int sms = cuda::state_of(init.backend_state).props.multiProcessorCount;
  std::unique_ptr<Kernel> k;
  cuda::dispatch_device<float, __half, __nv_bfloat16>(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_kernel([s, sms](KernelContext& ctx) {
      soft::Params p;
      p.x = ctx.inputs[0].data;
      p.y = ctx.outputs[0].data;
      p.rows = s.outer;
      p.n = static_cast<int>(s.n);
      IE_CUDA_CHECK((soft::launch<T, T, kLog>(p, sms, cuda::stream_of(ctx))));
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(softmax_fused) {
  auto& r = OpRegistry::get();
  r.add_kernel("", "Softmax", kernel_set::kCuda, make_softmax_rows<false>);
  r.add_kernel("", "LogSoftmax", kernel_set::kCuda, make_softmax_rows<true>);
}

}  // namespace ie

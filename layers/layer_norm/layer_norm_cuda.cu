// LayerNormalization and ie.LayerNorm (LayerNorm + activation) on the fused "cuda" kernel set: the kernels of
// layer_norm_fused.cuh in float32, float16 and bfloat16 (statistics in float), Mean / InvStdDev written when
// asked for in float32. Declines, with the reason, what they do not take; the reference set then runs the node.
#include "engine/backend/cuda/cuda_check.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/layer_norm/layer_norm_fused.cuh"
#include "layers/layer_norm/layer_norm_setup.h"

namespace ie {
namespace {

std::unique_ptr<Kernel> make_layer_norm_fused(const KernelInit& init) {
  const LayerNormSetup s = resolve_layer_norm(init.node, init.inputs[0].shape, nullptr);
  const DType t = init.inputs[0].dtype;
  if (t != DType::Float32 && t != DType::Float16 && t != DType::BFloat16)
    return init.decline("element type ", dtype_name(t), " (the kernels take float32, float16 and bfloat16)");
  if (s.n > INT32_MAX) return init.decline("rows of more than 2^31 - 1 elements");
  const bool has_bias = init.has_input(2);
  for (size_t i = 1; i < 3; ++i) {
    if (i == 2 && !has_bias) continue;
    if (init.inputs[i].dtype != t) return init.decline("Scale and B of another type than X");
    if (numel_range(init.inputs[i].shape, 0, init.inputs[i].shape.size()) != s.n)
      return init.decline("Scale and B broadcast (the kernels read one value per normalized element)");
  }
  bool stats[2] = {false, false};
  for (size_t i = 1; i < 3 && i < init.node.outputs.size(); ++i) {
    if (init.node.outputs[i].empty()) continue;
    if (init.outputs[i].dtype != DType::Float32) return init.decline("Mean / InvStdDev in another type than float32");
    stats[i - 1] = true;
  }
  const ln::Act act = cuda::device_activation(s.activation);
  std::unique_ptr<Kernel> k;
  cuda::dispatch_device<float, __half, __nv_bfloat16>(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_kernel([s, has_bias, stats, act](KernelContext& ctx) {
      auto stat = [&](size_t i) {
        return stats[i - 1] && ctx.outputs.size() > i && ctx.outputs[i].present() ? ctx.outputs[i].as<float>()
                                                                                  : nullptr;
      };
      ln::Params p;
      p.x = ctx.inputs[0].data;
      p.scale = ctx.inputs[1].data;
      p.bias = has_bias ? ctx.inputs[2].data : nullptr;
      p.y = ctx.outputs[0].data;
      p.mean = stat(1);
      p.inv_std = stat(2);
      p.rows = s.rows;
      p.n = static_cast<int>(s.n);
      p.eps = s.epsilon;
      p.act = act;
      IE_CUDA_CHECK(ln::launch<T>(p, cuda::stream_of(ctx)));
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(layer_norm_fused) {
  OpRegistry::get().add_kernel("", "LayerNormalization", kernel_set::kCuda, make_layer_norm_fused);
  OpRegistry::get().add_kernel("ie", "LayerNorm", kernel_set::kCuda, make_layer_norm_fused);
}

}  // namespace ie

// Resize on the fused "cuda" kernel set: the plane kernel of resize_planes.cuh for float32, float16 and bfloat16
// (so that in fp16/bf16 modes the ConvNet's pre-processing needs no casts around it), and ie.ScaledResize, the same
// kernel reading 8- or 16-bit integers and scaling them as it stages each plane. Taps of at most two positions
// (nearest, linear) also go to the kernels as pairs, so that rows of even length take the pairs kernel. Declines,
// with the reason, resizes of other dims than the last two and planes larger than its shared memory; the reference
// set then runs the node (ie.ScaledResize: its parts).
#include <algorithm>
#include <memory>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/init_context.h"
#include "layers/resize/resize_planes.cuh"
#include "layers/resize/resize_setup.h"
#include "layers/resize/resize_tap_table.h"

namespace ie {
namespace {

// The plane kernel for resize `s` from X of type `in` (a float type, or an integer type scaled as `scaled` says)
// to `out`, or a decline with the reason.
std::unique_ptr<Kernel> make_planes_fused(const KernelInit& init, const ResizeSetup& s, DType in, DType out,
                                          const ScaledInput& scaled) {
  ResizePlanes planes;
  if (!resize_as_planes(s, &planes)) return init.decline("a resize of other dims than the last two");
  if (std::max({planes.in_h, planes.in_w, planes.out_h, planes.out_w}) > 65536 ||
      rsz::shared_bytes(static_cast<int>(planes.in_h), static_cast<int>(planes.in_w), static_cast<int>(planes.out_h),
                        static_cast<int>(planes.out_w)) > rsz::kMaxSharedBytes)
    return init.decline("input planes of ", planes.in_h, "x", planes.in_w, " into ", planes.out_h, "x", planes.out_w,
                        " (the plane, its rows resampled and the row taps must fit ", rsz::kMaxSharedBytes / 1024,
                        " KiB of shared memory)");
  cudaStream_t stream = cuda::state_of(init.backend_state).stream;
  auto rows = std::make_shared<cuda::TapTable>(planes.rows, stream, true);
  auto cols = std::make_shared<cuda::TapTable>(planes.cols, stream, true);
  rsz::Params p;
  p.planes = planes.planes;
  p.in_h = static_cast<int>(planes.in_h);
  p.in_w = static_cast<int>(planes.in_w);
  p.out_h = static_cast<int>(planes.out_h);
  p.out_w = static_cast<int>(planes.out_w);
  p.rows = rows->data();
  p.cols = cols->data();
  if (rows->pairs() && cols->pairs()) p.row_pairs = rows->pairs(), p.col_pairs = cols->pairs();
  p.extrapolation = static_cast<float>(s.extrapolation);
  p.in_factor = scaled.factor;
  p.in_divide = scaled.divide;
  std::unique_ptr<Kernel> k;
  auto make = [&](auto out_tag, auto in_tag) {
    using T = typename decltype(out_tag)::type;
    using In = typename decltype(in_tag)::type;
    k = make_kernel([p, rows, cols](KernelContext& ctx) mutable {
      p.in = ctx.inputs[0].data;
      p.out = ctx.outputs[0].data;
      IE_CUDA_CHECK((rsz::launch<T, In>(p, cuda::stream_of(ctx))));
    });
  };
  cuda::dispatch_device<float, __half, __nv_bfloat16>(out, [&](auto out_tag) {
    if (!scaled.integer) return make(out_tag, out_tag);
    switch (in) {
      case DType::UInt8: return make(out_tag, cuda::DevTag<uint8_t>{});
      case DType::Int8: return make(out_tag, cuda::DevTag<int8_t>{});
      case DType::UInt16: return make(out_tag, cuda::DevTag<uint16_t>{});
      case DType::Int16: return make(out_tag, cuda::DevTag<int16_t>{});
      default: return;
    }
  });
  if (!k) return init.decline("input type ", dtype_name(in), " into ", dtype_name(out));
  return k;
}

std::unique_ptr<Kernel> make_resize_fused(const KernelInit& init) {
  const DType t = init.inputs[0].dtype;
  if (t != DType::Float32 && t != DType::Float16 && t != DType::BFloat16)
    return init.decline("element type ", dtype_name(t), " (the kernel takes float32, float16 and bfloat16)");
  return make_planes_fused(init, resolve_resize(InitContext(init).ctx), t, t, ScaledInput{});
}

std::unique_ptr<Kernel> make_scaled_resize_fused(const KernelInit& init) {
  const InitContext ic(init);
  const Shape seen = scaled_resize_input_shape(ic.ctx);
  return make_planes_fused(init, resolve_resize(ic.ctx, &seen), init.inputs[0].dtype, init.outputs[0].dtype,
                           scaled_input_of(init.node));
}

}  // namespace

IE_REGISTER_OPS(resize_fused) {
  OpRegistry::get().add_kernel("", "Resize", kernel_set::kCuda, make_resize_fused);
  OpRegistry::get().add_kernel("ie", "ScaledResize", kernel_set::kCuda, make_scaled_resize_fused);
}

}  // namespace ie

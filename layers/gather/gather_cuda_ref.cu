// Gather on the device (cuda-reference): out[o, t, j] = data[o, idx[t], j] over [outer, count, inner].
//
// One thread per output unit, grid-stride; a unit is one element widened to 16, 8 or 4 bytes when each slice of
// `inner` elements and both pointers allow it, so contiguous slices move in wide, coalesced accesses. Indices are
// int32 or int64, read on the device; negative ones count from the back. Constant indices are range-checked at
// plan time (the error names the node); indices computed at run time cannot raise an error without a sync, so an
// out-of-range one yields zeros.
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/indices.h"
#include "layers/common/strided_copy_cuda.h"

namespace ie::cuda {
namespace {

template <class U, class Idx, class I>
__global__ void gather_kernel(const U* data, const Idx* indices, U* out, I n, I count, I inner, I dim) {
  for (I i = grid_start<I>(); i < n; i += grid_step<I>()) {
    const I j = i % inner, rest = i / inner;
    const I t = rest % count, o = rest / count;
    int64_t k = static_cast<int64_t>(indices[t]);
    if (k < 0) k += dim;
    out[i] = k >= 0 && k < dim ? data[(o * dim + static_cast<I>(k)) * inner + j] : U{};
  }
}

struct GatherShape {
  int64_t outer, count, inner, dim;  // inner in elements
};

template <class U, class Idx>
void launch_gather(const GatherShape& g, int64_t inner, const KernelContext& ctx) {
  const int64_t n = g.outer * g.count * inner;
  const U* data = ctx.inputs[0].as<const U>();
  const Idx* idx = ctx.inputs[1].as<const Idx>();
  U* out = ctx.outputs[0].as<U>();
  if (fits_int32(g.outer * g.dim * inner) && fits_int32(n))
    gather_kernel<U, Idx, int32_t><<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(
        data, idx, out, static_cast<int32_t>(n), static_cast<int32_t>(g.count), static_cast<int32_t>(inner),
        static_cast<int32_t>(g.dim));
  else
    gather_kernel<U, Idx, int64_t>
        <<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(data, idx, out, n, g.count, inner, g.dim);
  IE_CUDA_CHECK_LAUNCH();
}

template <class Idx>
void run_gather(const GatherShape& g, size_t elem, const KernelContext& ctx) {
  // Widest unit that divides a slice and suits both pointers.
  size_t unit = elem;
  for (size_t w : {size_t(16), size_t(8), size_t(4)}) {
    if (w > elem && (static_cast<size_t>(g.inner) * elem) % w == 0 && aligned_to(ctx.inputs[0].data, w) &&
        aligned_to(ctx.outputs[0].data, w)) {
      unit = w;
      break;
    }
  }
  const int64_t inner = static_cast<int64_t>(static_cast<size_t>(g.inner) * elem / unit);
  if (unit == 16) return launch_gather<uint4, Idx>(g, inner, ctx);
  dispatch_bytes(unit, [&](auto tag) { launch_gather<typename decltype(tag)::type, Idx>(g, inner, ctx); });
}

std::unique_ptr<Kernel> make_gather(const KernelInit& init) {
  const Shape& data = init.inputs[0].shape;
  const int64_t axis = axis_attr(init.node, data.size());
  const size_t elem = dtype_size(init.inputs[0].dtype);
  const DType idx_type = init.inputs[1].dtype;
  if (!copyable_size(elem) || (idx_type != DType::Int32 && idx_type != DType::Int64)) return nullptr;
  GatherShape g{numel_range(data, 0, axis), numel_range(init.inputs[1].shape, 0, init.inputs[1].shape.size()),
                numel_range(data, axis + 1, data.size()), data[axis]};
  if (init.constants.size() > 1 && init.constants[1]) {
    const Tensor& c = *init.constants[1];
    checked_indices(TensorRef{const_cast<void*>(c.data()), c.dtype(), c.shape()}, g.dim, init.node.label());
  }
  return make_kernel([g, elem, idx_type](KernelContext& ctx) {
    if (g.outer * g.count * g.inner == 0) return;
    if (idx_type == DType::Int32)
      run_gather<int32_t>(g, elem, ctx);
    else
      run_gather<int64_t>(g, elem, ctx);
  });
}

}  // namespace

IE_REGISTER_OPS(gather_cuda) { OpRegistry::get().add_kernel("", "Gather", kernel_set::kCudaReference, make_gather); }

}  // namespace ie::cuda

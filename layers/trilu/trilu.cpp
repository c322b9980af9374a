// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims, zeroing the rest.
#include <algorithm>
#include <cstring>

#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"

namespace ie {
namespace {

void infer_trilu(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  ctx.expect(in.shape.size() >= 2, "input must have rank >= 2, got ", shape_to_string(in.shape));
  if (ctx.has_input(1))
    ctx.expect(numel_range(ctx.input(1).shape, 0, ctx.input(1).shape.size()) == 1 && ctx.input(1).dtype == DType::Int64,
               "k must be an int64 scalar");
  ctx.set_output(0, in.dtype, in.shape);
}

std::unique_ptr<Kernel> make_trilu_cpu(const KernelInit& init) {
  const bool upper = init.node.attrs.get_int("upper", 1) != 0;
  return make_kernel([upper](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const size_t r = in.shape.size();
    const int64_t rows = in.shape[r - 2], cols = in.shape[r - 1];
    int64_t k = ctx.inputs.size() > 1 && ctx.inputs[1].present() ? *ctx.inputs[1].as<int64_t>() : 0;
    k = std::clamp<int64_t>(k, -rows - 1, cols + 1);  // beyond that nothing changes; keeps i + k from overflowing
    const int64_t mats = numel_range(in.shape, 0, r - 2);
    dispatch_by_size(in.dtype, "Trilu", [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* src = in.as<U>();
      U* dst = ctx.outputs[0].as<U>();
      parallel_for(mats * rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t i = t % rows;
          // Columns [lo, hi) are kept.
          const int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
          const int64_t hi = upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
          U* out = dst + t * cols;
          const U* row = src + t * cols;
          std::fill(out, out + cols, U(0));
          if (hi > lo) std::copy(row + lo, row + hi, out + lo);
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(trilu) {
  OpRegistry::get().add(OpDef("", "Trilu", infer_trilu));
  OpRegistry::get().add_kernel("", "Trilu", kernel_set::kCpu, make_trilu_cpu);
}

}  // namespace ie

// Softmax, LogSoftmax, Hardmax (ONNX). Opset < 13 flattens the input to 2-D at `axis` (default 1) and normalizes
// each row; opset >= 13 normalizes along `axis` alone (default -1).
#include <cmath>
#include <type_traits>

#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/softmax/softmax_setup.h"

namespace ie {
namespace {

enum class SoftKind { Softmax, LogSoftmax, Hardmax };

void infer_soft(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  ctx.expect(is_float(x.dtype), "input must be a float tensor, got ", dtype_name(x.dtype));
  resolve_soft(ctx.node(), x.shape, ctx.opset());
  ctx.set_output(0, x.dtype, x.shape);
}

template <SoftKind kKind, class T>
void soft_line(const T* x, T* y, int64_t n, int64_t stride) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  Acc mx = static_cast<Acc>(x[0]);
  int64_t arg = 0;
  for (int64_t i = 1; i < n; ++i)
    if (static_cast<Acc>(x[i * stride]) > mx) mx = static_cast<Acc>(x[i * stride]), arg = i;
  if constexpr (kKind == SoftKind::Hardmax) {
    for (int64_t i = 0; i < n; ++i) y[i * stride] = T(i == arg ? 1 : 0);
  } else {
    Acc sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<Acc>(x[i * stride]) - mx);
    if constexpr (kKind == SoftKind::Softmax) {
      const Acc inv = Acc(1) / sum;
      for (int64_t i = 0; i < n; ++i) y[i * stride] = static_cast<T>(std::exp(static_cast<Acc>(x[i * stride]) - mx) * inv);
    } else {
      const Acc log_sum = std::log(sum) + mx;
      for (int64_t i = 0; i < n; ++i) y[i * stride] = static_cast<T>(static_cast<Acc>(x[i * stride]) - log_sum);
    }
  }
}

template <SoftKind kKind>
std::unique_ptr<Kernel> make_soft_cpu(const KernelInit& init) {
  SoftSetup s = resolve_soft(init.node, init.inputs[0].shape, init.opset);
  if (!is_float(init.inputs[0].dtype)) return nullptr;
  return dispatch_float(init.inputs[0].dtype, "Softmax", [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    return make_kernel([s](KernelContext& ctx) {
      const T* x = ctx.inputs[0].as<const T>();
      T* y = ctx.outputs[0].as<T>();
      if (s.n == 0) return;
      const int64_t lines = s.outer * s.inner;
      parallel_for(lines, std::max<int64_t>(1, 4096 / s.n), [&](int64_t b, int64_t e) {
        for (int64_t l = b; l < e; ++l) {
          const int64_t o = l / s.inner, i = l % s.inner, off = o * s.n * s.inner + i;
          soft_line<kKind>(x + off, y + off, s.n, s.inner);
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(softmax) {
  auto& r = OpRegistry::get();
  // max, subtract, exp, sum, divide: about 5 operations per element.
  r.add(OpDef("", "Softmax", infer_soft).with_cost(per_element_cost(5)));
  r.add(OpDef("", "LogSoftmax", infer_soft).with_cost(per_element_cost(5)));
  r.add(OpDef("", "Hardmax", infer_soft).with_cost(per_element_cost(2)));
  r.add_kernel("", "Softmax", kernel_set::kCpu, make_soft_cpu<SoftKind::Softmax>);
  r.add_kernel("", "LogSoftmax", kernel_set::kCpu, make_soft_cpu<SoftKind::LogSoftmax>);
  r.add_kernel("", "Hardmax", kernel_set::kCpu, make_soft_cpu<SoftKind::Hardmax>);
}

}  // namespace ie

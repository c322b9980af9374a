// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp: one definition, one shared loop (layers/common/reduce_axes.h), one small functor per op.
// Axes are an attribute, or an input from opset 13 (ReduceSum) or 18 (the others); empty axes mean all axes
// unless noop_with_empty_axes is set.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/init_context.h"
#include "layers/common/reduce_axes.h"
#include "layers/reduce/reduce_setup.h"

namespace ie {
namespace {

enum class Kind { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };

struct ReduceSpec {
  const char* name;
  Kind kind;
  int64_t axes_input_since;  // opset from which axes come as input 1
};

constexpr ReduceSpec kSpecs[] = {
    {"ReduceSum", Kind::Sum, 13},       {"ReduceMean", Kind::Mean, 18},
    {"ReduceMax", Kind::Max, 18},       {"ReduceMin", Kind::Min, 18},
    {"ReduceProd", Kind::Prod, 18},     {"ReduceSumSquare", Kind::SumSquare, 18},
    {"ReduceL1", Kind::L1, 18},         {"ReduceL2", Kind::L2, 18},
    {"ReduceLogSum", Kind::LogSum, 18}, {"ReduceLogSumExp", Kind::LogSumExp, 18},
};

const ReduceSpec& spec_of(const std::string& op) {
  for (auto& s : kSpecs)
    if (op == s.name) return s;
  fail(ErrorKind::Usage, "no reduction named ", op);
}

}  // namespace

ReduceAxes plan_axes(const InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  const ReduceSpec& spec = spec_of(ctx.node().op_type);
  std::vector<int64_t> axes;
  if (ctx.opset() >= spec.axes_input_since) {
    if (ctx.has_input(1)) axes = ctx.constant_ints(1, "axes");
  } else {
    axes = ctx.attrs().get_ints("axes");
  }
  ReduceAxes r;
  if (axes.empty()) {
    r.noop = ctx.attrs().get_int("noop_with_empty_axes", 0) != 0;
    if (r.noop) {
      r.out = in;
      return r;
    }
    for (int64_t i = 0; i < rank; ++i) r.axes.push_back(i);
  } else {
    r.axes = normalize_axes(axes, rank, ctx.node().label());
  }
  const bool keepdims = ctx.attrs().get_int("keepdims", 1) != 0;
  std::vector<bool> reduced(in.size(), false);
  for (int64_t a : r.axes) reduced[a] = true;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i])
      r.out.push_back(in[i]);
    else if (keepdims)
      r.out.push_back(1);
  }
  return r;
}

namespace {

void infer_reduce(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  ctx.expect(in.dtype == DType::Bool ? ctx.node().op_type == "ReduceMax" || ctx.node().op_type == "ReduceMin"
                                     : is_float(in.dtype) || is_integer(in.dtype),
             "unsupported element type ", dtype_name(in.dtype));
  ctx.set_output(0, in.dtype, plan_axes(ctx).out);
}

// Accumulate half in float and integers in 64 bits (wrapping on output as the narrow type would).
template <class T>
using AccOf = std::conditional_t<
    is_half_like_v<T>, float,
    std::conditional_t<std::is_integral_v<T>, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, T>>;

template <class T, Kind K>
struct ReduceOp {
  using Acc = AccOf<T>;
  Acc init() const {
    if constexpr (K == Kind::Prod) return Acc(1);
    if constexpr (K == Kind::Max)
      return std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                    : std::numeric_limits<Acc>::lowest();
    if constexpr (K == Kind::Min)
      return std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                    : std::numeric_limits<Acc>::max();
    return Acc(0);
  }
  Acc step(Acc a, T t) const {
    const Acc x = static_cast<Acc>(t);
    if constexpr (K == Kind::Max) return x > a ? x : a;
    if constexpr (K == Kind::Min) return x < a ? x : a;
    if constexpr (K == Kind::Prod) return a * x;
    if constexpr (K == Kind::SumSquare || K == Kind::L2) return a + x * x;
    if constexpr (K == Kind::L1) {
      if constexpr (std::is_unsigned_v<Acc>)
        return a + x;
      else
        return a + (x < 0 ? -x : x);
    }
    return a + x;
  }
  T finish(Acc a, int64_t n) const {
    if constexpr (K == Kind::Mean) {
      if constexpr (std::is_integral_v<Acc>)
        return static_cast<T>(n ? a / static_cast<Acc>(n) : 0);
      else
        return static_cast<T>(a / static_cast<Acc>(n));
    }
    if constexpr (K == Kind::L2) return static_cast<T>(std::sqrt(static_cast<double>(a)));
    if constexpr (K == Kind::LogSum) return static_cast<T>(std::log(static_cast<double>(a)));
    return static_cast<T>(a);
  }
};

// log(sum(exp(x))) kept stable by tracking the running maximum.
template <class T>
struct LogSumExpOp {
  struct Acc {
    double max = -std::numeric_limits<double>::infinity();
    double sum = 0;
  };
  Acc init() const { return {}; }
  Acc step(Acc a, T t) const {
    const double x = static_cast<double>(t);
    if (x == -std::numeric_limits<double>::infinity()) return a;
    if (x > a.max) {
      a.sum = a.sum * std::exp(a.max - x) + 1;
      a.max = x;
    } else {
      a.sum += std::exp(x - a.max);
    }
    return a;
  }
  T finish(Acc a, int64_t) const { return static_cast<T>(a.max + std::log(a.sum)); }
};

template <class T>
void run_reduce(Kind kind, const T* in, T* out, const ReducePlan& plan) {
  switch (kind) {
    case Kind::Sum:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::Sum>{});
    case Kind::Mean:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::Mean>{});
    case Kind::Max:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::Max>{});
    case Kind::Min:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::Min>{});
    case Kind::Prod:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::Prod>{});
    case Kind::SumSquare:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::SumSquare>{});
    case Kind::L1:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::L1>{});
    case Kind::L2:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::L2>{});
    case Kind::LogSum:
      return reduce_axes(in, out, plan, ReduceOp<T, Kind::LogSum>{});
    case Kind::LogSumExp:
      return reduce_axes(in, out, plan, LogSumExpOp<T>{});
  }
}

std::unique_ptr<Kernel> make_reduce_cpu(const KernelInit& init) {
  ReduceAxes r = plan_axes(InitContext(init).ctx);
  const Kind kind = spec_of(init.node.op_type).kind;
  // Bool max/min are any/all: the same as uint8 max/min over 0/1 bytes.
  const DType dtype = init.inputs[0].dtype == DType::Bool ? DType::UInt8 : init.inputs[0].dtype;
  const ReducePlan plan = plan_reduce(init.inputs[0].shape, r.axes);
  const bool noop = r.noop;
  return make_kernel([kind, dtype, plan, noop](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const TensorRef& out = ctx.outputs[0];
    if (noop) {
      if (out.data != in.data && out.nbytes()) std::memcpy(out.data, in.data, out.nbytes());
      return;
    }
    dispatch_numeric(dtype, "Reduce", [&](auto tag) {
      using T = typename decltype(tag)::type;
      run_reduce<T>(kind, in.as<T>(), out.as<T>(), plan);
    });
  });
}

}  // namespace

IE_REGISTER_OPS(reduce) {
  for (auto& spec : kSpecs) {
    OpRegistry::get().add(OpDef("", spec.name, infer_reduce));
    OpRegistry::get().add_kernel("", spec.name, kernel_set::kCpu, make_reduce_cpu);
  }
}

}  // namespace ie

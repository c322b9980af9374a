// Cast (attribute `to`) and CastLike (the type of input 1) between every fixed-size type: floats, bfloat16,
// integers and bool. Floats to integers truncate toward zero through int64 (so -1.0 to uint8 gives 255, as numpy
// does); anything to bool is "!= 0"; float to bfloat16 truncates the mantissa like ONNX's reference. String
// casts are not supported.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "layers/common/elementwise.h"

namespace ie {
namespace {

struct BFloat16 {
  uint16_t bits;
};

template <class T>
struct IsBf16 : std::false_type {};
template <>
struct IsBf16<BFloat16> : std::true_type {};

// Every source value goes through one of three carriers: bool, int64 / uint64 (integers), or double (floats).
template <class S>
auto widen(S v) {
  if constexpr (IsBf16<S>::value) {
    uint32_t u = uint32_t(v.bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return static_cast<double>(f);
  } else if constexpr (std::is_same_v<S, half>) {
    return static_cast<double>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<S, bool> || std::is_floating_point_v<S>) {
    return v;
  } else if constexpr (std::is_unsigned_v<S>) {
    return static_cast<uint64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

template <class D, class W>
D narrow(W w) {
  if constexpr (std::is_same_v<D, bool>) {
    return w != W(0);  // NaN is true, as in numpy
  } else if constexpr (std::is_same_v<W, bool>) {
    return narrow<D>(static_cast<int64_t>(w));
  } else if constexpr (IsBf16<D>::value) {
    float f = static_cast<float>(w);
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if (std::isnan(f)) return BFloat16{static_cast<uint16_t>((u >> 16) | 0x40)};  // keep it a NaN
    return BFloat16{static_cast<uint16_t>(u >> 16)};
  } else if constexpr (std::is_same_v<D, half>) {
    return half(static_cast<float>(w));
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(w);
  } else if constexpr (std::is_floating_point_v<W>) {
    // Float to integer: NaN and out-of-range values are undefined in C++; pin them like x86 does.
    if (!(w > -9.2233720368547758e18 && w < 9.2233720368547758e18)) {
      if (std::is_same_v<D, uint64_t> && w >= 9.2233720368547758e18 && w < 1.8446744073709552e19)
        return static_cast<D>(static_cast<uint64_t>(w));
      return static_cast<D>(INT64_MIN);
    }
    return static_cast<D>(static_cast<int64_t>(w));
  } else {
    return static_cast<D>(w);  // integer to integer wraps modulo 2^bits
  }
}

template <class Fn>
decltype(auto) dispatch_cast(DType t, const char* where, Fn&& fn) {
  if (t == DType::BFloat16) return fn(TypeTag<BFloat16>{});
  if (t == DType::String) fail_input(where, ": casts from or to string are not supported");
  return dispatch_all(t, where, std::forward<Fn>(fn));
}

bool castable(DType t) { return t == DType::BFloat16 || type_in(TypeClass::All, t); }

void infer_cast_to(InferContext& ctx, DType to) {
  ctx.expect(ctx.has_input(0), "expects input 0");
  DType from = ctx.input(0).dtype;
  ctx.expect(from != DType::String && to != DType::String, "casts from or to string are not supported (",
             dtype_name(from), " to ", dtype_name(to), ")");
  ctx.expect(castable(from), "cannot cast from element type ", dtype_name(from));
  ctx.expect(castable(to), "cannot cast to element type ", dtype_name(to));
  ctx.set_output(0, to, ctx.input(0).shape);
}

void infer_cast(InferContext& ctx) {
  ctx.expect(ctx.attrs().has("to"), "attribute 'to' is required");
  int64_t to = ctx.attrs().get_int("to", 0);
  ctx.expect(to == 16 || (to >= 1 && to <= 13), "attribute to=", to, " is not a supported element type code");
  infer_cast_to(ctx, static_cast<DType>(to));
}

void infer_cast_like(InferContext& ctx) {
  ctx.expect(ctx.has_input(1), "expects input 1 (target_type)");
  infer_cast_to(ctx, ctx.input(1).dtype);
}

std::unique_ptr<Kernel> make_cast_cpu(const KernelInit& init) {
  const DType from = init.inputs[0].dtype, to = init.outputs[0].dtype;
  if (from == to) {
    return make_kernel([](KernelContext& ctx) {
      if (ctx.outputs[0].data != ctx.inputs[0].data)
        std::memcpy(ctx.outputs[0].data, ctx.inputs[0].data, ctx.inputs[0].nbytes());
    });
  }
  const std::string where = init.node.label();
  return dispatch_cast(from, where.c_str(), [&](auto src) -> std::unique_ptr<Kernel> {
    using S = typename decltype(src)::type;
    return dispatch_cast(to, where.c_str(), [&](auto dst) -> std::unique_ptr<Kernel> {
      using D = typename decltype(dst)::type;
      return make_kernel([](KernelContext& ctx) {
        const S* in = ctx.inputs[0].as<S>();
        D* out = ctx.outputs[0].as<D>();
        parallel_for(ctx.inputs[0].numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = narrow<D>(widen(in[i]));
        });
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(cast) {
  OpRegistry::get().add(OpDef("", "Cast", infer_cast));
  OpRegistry::get().add_kernel("", "Cast", kernel_set::kCpu, make_cast_cpu);
  OpRegistry::get().add(OpDef("", "CastLike", infer_cast_like));
  OpRegistry::get().add_kernel("", "CastLike", kernel_set::kCpu, make_cast_cpu);
}

}  // namespace ie

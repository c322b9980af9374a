// Mod: fmod=0 gives the remainder with the divisor's sign (Python's %, integers only); fmod=1 gives C's fmod
// (the dividend's sign), required for floats. A zero divisor gives 0 for integers instead of trapping.
#include <cmath>
#include <type_traits>

#include "layers/common/binary.h"
#include "layers/common/int_math.h"

namespace ie {
namespace {

struct Fmod {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return int_divmod(a, b).second;
    } else {
      return C(std::fmod(a, b));
    }
  }
};

struct FloorMod {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      C r = int_divmod(a, b).second;
      if constexpr (std::is_signed_v<C>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
      }
      return r;
    } else {
      return a;  // not reached: float inputs require fmod=1 (checked in inference)
    }
  }
};

int64_t fmod_attr(const InferContext& ctx) {
  int64_t fmod = ctx.attrs().get_int("fmod", 0);
  ctx.expect(fmod == 0 || fmod == 1, "attribute fmod must be 0 or 1, got ", fmod);
  ctx.expect(fmod == 1 || !is_float(ctx.input(0).dtype), "floating-point inputs (", dtype_name(ctx.input(0).dtype),
             ") require attribute fmod=1");
  return fmod;
}

std::unique_ptr<Kernel> make_mod_cpu(const KernelInit& init) {
  if (init.node.attrs.get_int("fmod", 0) == 1) return make_binary_kernel<TypeClass::Numeric, false>(init, Fmod{});
  return make_binary_kernel<TypeClass::Integer, false>(init, FloorMod{});
}

}  // namespace

IE_REGISTER_OPS(mod) {
  OpRegistry::get().add(OpDef("", "Mod", [](InferContext& ctx) {
    infer_binary(ctx, TypeClass::Numeric);
    fmod_attr(ctx);
  }));
  OpRegistry::get().add_kernel("", "Mod", kernel_set::kCpu, make_mod_cpu);
}

}  // namespace ie

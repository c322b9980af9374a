#include "engine/core/float_convert.h"

#include <cstring>

#include "engine/core/dtype_dispatch.h"

namespace ie {

bool is_float_dtype(DType dtype) { return is_float(dtype); }

uint16_t float_to_bfloat16_bits(float f) { return Eigen::numext::bit_cast<uint16_t>(bfloat16(f)); }

float bfloat16_bits_to_float(uint16_t bits) { return static_cast<float>(Eigen::numext::bit_cast<bfloat16>(bits)); }

Tensor convert_floats(const Tensor& t, DType to) {
  if (!is_float(t.dtype()) || !is_float(to))
    fail(ErrorKind::Usage, "convert_floats: ", dtype_name(t.dtype()), " to ", dtype_name(to),
         " is not a conversion between float types");
  Tensor out(to, t.shape());
  dispatch_float(t.dtype(), "convert_floats", [&](auto from_tag) {
    using S = typename decltype(from_tag)::type;
    dispatch_float(to, "convert_floats", [&](auto to_tag) {
      using D = typename decltype(to_tag)::type;
      const S* src = t.data_as<S>();
      D* dst = out.data_as<D>();
      // Through float, except float64 to float64; Eigen's half and bfloat16 round to nearest even.
      for (int64_t i = 0; i < t.numel(); ++i) {
        if constexpr (std::is_same_v<S, double> && std::is_same_v<D, double>)
          dst[i] = src[i];
        else if constexpr (std::is_same_v<S, double>)
          dst[i] = static_cast<D>(static_cast<float>(src[i]));
        else
          dst[i] = static_cast<D>(static_cast<float>(src[i]));
      }
    });
  });
  return out;
}

}  // namespace ie

// The B operand of mma.sync m16n8k16 in the order the lanes read it: for each pair of 8-column tiles and 16-long
// k-step, 32 lanes x 8 16-bit values (b0, b1 of the first tile, then of the second), so that a lane's B fragments
// of two products are one 16-byte load with no address arithmetic and no bank conflicts. Host code; used by the
// row-tile kernel's builder and the split float32 Linear.
#pragma once

#include <cstdint>
#include <vector>

namespace ie {

/// W^T [n][k] (16-bit elements) in fragment order (n and k multiples of 16).
inline std::vector<uint16_t> fragment_order(const std::vector<uint16_t>& wt, int n, int k) {
  std::vector<uint16_t> out(static_cast<size_t>(n) * k);
  size_t o = 0;
  for (int j2 = 0; j2 < n / 16; ++j2)
    for (int kk = 0; kk < k / 16; ++kk)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, q = lane % 4;
        for (int half = 0; half < 2; ++half) {
          const int row = 16 * j2 + 8 * half + g;
          for (int hi = 0; hi < 2; ++hi)
            for (int e = 0; e < 2; ++e) out[o++] = wt[static_cast<size_t>(row) * k + 16 * kk + 8 * hi + 2 * q + e];
        }
      }
  return out;
}

}  // namespace ie

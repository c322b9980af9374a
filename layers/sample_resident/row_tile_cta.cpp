#include "layers/sample_resident/row_tile_cta.h"

#include <algorithm>

namespace ie::sr {

double rt_estimate_us(const RtCtaShape& shape, const RtModel& m, int64_t batch, int64_t slots) {
  const int64_t tiles = (batch + m.tile - 1) / m.tile;
  const int64_t waves = (tiles + slots - 1) / slots;
  const int64_t first = std::min<int64_t>(batch, m.tile);
  const int owners = m.warps / std::max(1, m.group);  // warps or warp groups with rows of their own
  const int busy = static_cast<int>(std::min<int64_t>(owners, (first + m.spw - 1) / m.spw));
  // One owner a CTA: its figures are one CTA alone and a wave of several.
  const double share = owners == 1 ? (tiles > 1 ? 1.0 : 0.0) : static_cast<double>(busy - 1) / (owners - 1);
  const double first_us = shape.one_warp_us + (shape.full_wave_us - shape.one_warp_us) * share;
  return first_us + static_cast<double>(waves - 1) * shape.next_wave_us;
}

}  // namespace ie::sr

// Two fused convolutions in one kernel: a pool-on-M conv (fused_conv_poolm.cuh: up to 4 channels, 2x2 pool)
// feeding a shared-rows conv (fused_conv_stacked.cuh: 9 to 16 channels, 2x2 or 4x4 pool), image by image, the
// first one's pooled map never leaving shared memory. The conv net's conv1 + pool1 + conv2 + pool2.
//
// Why: run apart, the second conv reads the first one's map back from memory and rebuilds its operand layout
// (pair-expanded words: word x of a row holds elements x and x + 1) in a staging pass, about half of its
// instructions. Here the first conv's epilogue writes that layout directly: a lane holding the pooled pair
// (px, px + 1) stores it as word px, and its twin lane (g ^ 4, which holds the same pair after the pool's
// shuffle) stores the pair's halves into the neighbouring words' (px - 1: high half, px + 1: low half).
//
// Per image and CTA (persistent over images): the first conv's staging (bulk copy of the next image in flight, or
// loads), a barrier, its MMAs with the epilogue into the second conv's staged map, a barrier, the second conv's
// units (a pool window's conv rows x the kept columns) pooled in registers and written to y. The second conv's
// weights stay in registers for the whole kernel; the first one's are loaded per image (conv2's phase needs the
// registers). Only the first conv's pooled rows that the second reads are computed (the conv net: 38 of 40).
// Depends on CUDA alone (tests/kernels/conv_pair_lab.cu builds it with nvcc).
#pragma once

#include <string>

#include "layers/fused_conv/fused_conv_poolm.cuh"
#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie::fused_conv {

struct PairPlan {
  int n;
  PoolMPlan a;    // the first conv, whole images per tile
  StackedPlan b;  // the second, one image per tile, staged from the first one's map (ws >= its width)
  int rows1;      // pooled rows of the first conv that the second reads
  int off_s2;     // the second conv's staged map in shared memory (after the first one's staging)
  int smem_bytes;
};

// Tile configurations: warps per CTA, the first conv's n-tiles per pass, the second conv's n-tiles per unit, CTAs
// per SM the registers must allow (the second conv's phase holds 64 weight and 64 accumulator registers).
// kKeepW2: the second conv's weights stay in registers for the whole kernel (else loaded per image, from L1).
// kShuffleStore: the map's words stored by pair_store_map_shfl (else pair_store_map).
struct PairW4 {
  static constexpr const char* kName = "pair_w4";
  static constexpr int kWarps = 4, kNT = 5, kNW = 4, kMinBlocks = 3;
  static constexpr bool kKeepW2 = true, kShuffleStore = false;
};
struct PairW4Reload {
  static constexpr const char* kName = "pair_w4_reload";
  static constexpr int kWarps = 4, kNT = 5, kNW = 4, kMinBlocks = 3;
  static constexpr bool kKeepW2 = false, kShuffleStore = false;
};
struct PairW8 {
  static constexpr const char* kName = "pair_w8";
  static constexpr int kWarps = 8, kNT = 5, kNW = 4, kMinBlocks = 1;
  static constexpr bool kKeepW2 = true, kShuffleStore = false;
};
struct PairW4Shfl {
  static constexpr const char* kName = "pair_w4_shfl";
  static constexpr int kWarps = 4, kNT = 5, kNW = 4, kMinBlocks = 3;
  static constexpr bool kKeepW2 = true, kShuffleStore = true;
};
struct PairW8Shfl {
  static constexpr const char* kName = "pair_w8_shfl";
  static constexpr int kWarps = 8, kNT = 5, kNW = 4, kMinBlocks = 1;
  static constexpr bool kKeepW2 = true, kShuffleStore = true;
};
struct PairW4N2Shfl {  // two n-tiles per pass: pass boundaries inside a row (the lab checks their stores)
  static constexpr const char* kName = "pair_w4_n2_shfl";
  static constexpr int kWarps = 4, kNT = 2, kNW = 4, kMinBlocks = 3;
  static constexpr bool kKeepW2 = true, kShuffleStore = true;
};

// Why the pair does not take two shapes ("" when it does): each conv must be taken by its own kernel, and the
// second must read the first one's whole output.
inline std::string pair_unsupported(const ConvPoolShape& s1, const ConvPoolShape& s2, Variant v) {
  if (std::string no = poolm_unsupported(s1, v); !no.empty()) return "the first conv: " + no;
  if (std::string no = shared_rows_unsupported(s2, v); !no.empty()) return "the second conv: " + no;
  if (s2.n != s1.n || s2.c != s1.k || s2.h != pooled_h(s1) || s2.w != pooled_w(s1))
    return "the second conv does not read the first one's output";
  if (s2.pad != 0) return "the second conv is padded";
  return "";
}

// Plans the pair for a configuration (nw: the second conv's n-tiles per unit); in_elem: the input's element size,
// bulk: stage the first conv by bulk copies (whole images of whole 16-byte chunks). False with the reason.
inline bool make_pair_plan(const ConvPoolShape& s1, const ConvPoolShape& s2, Variant v, int nw, int smem_limit,
                           int in_elem, bool bulk, PairPlan* out, std::string* why) {
  const std::string no = pair_unsupported(s1, s2, v);
  if (!no.empty()) {
    if (why) *why = no;
    return false;
  }
  PairPlan pp{};
  pp.n = s1.n;
  if (!make_poolm_plan(s1, v, smem_limit, &pp.a, why, 0, bulk ? in_elem : 0)) return false;
  if (!make_stacked_plan(s2, v, nw, 1, 1 << 30, &pp.b, why, 2, true)) return false;
  StackedPlan& b = pp.b;
  // One image per tile, every pooled output; staged rows as long as the map's rows or the columns read, whichever
  // is more (words past the map stay zero, as do rows past it).
  stacked_tile_geometry(b, 1, b.ph, b.pw);
  b.flat = 0, b.prefetch = 0, b.raw_band_bytes = 0;
  b.ws = std::max(s2.w, b.cols_alloc + b.rp - b.e);
  b.plane = b.irb * b.ws;
  b.img_words = b.c * b.plane;
  b.off_kofs = b.off_in = b.off_raw = b.off_ct = 0;
  b.smem_bytes = b.img_words * 4;
  set_stacked_divisors(b);
  pp.rows1 = std::min(b.irb, pp.a.ph);
  pp.off_s2 = round_up(pp.a.smem_bytes, 16);
  pp.smem_bytes = pp.off_s2 + b.smem_bytes;
  if (pp.smem_bytes > smem_limit) {
    if (why) *why = "one image's two staged maps (" + std::to_string(pp.smem_bytes) + " bytes) exceed shared memory";
    return false;
  }
  *out = pp;
  return true;
}

#ifdef __CUDACC__

// The first conv's pooled pairs of one n-tile pass into the second conv's staged row `dst` (pair-expanded words,
// TOut bits): lanes g < 4 store word px, their twins g + 4 the halves of words px - 1 and px + 1.
template <class TOut, int NT>
__device__ __forceinline__ void pair_store_map(const uint32_t (&m)[NT], int nt0, int ntiles, int width, int lane,
                                               uint32_t* dst) {
  unsigned short* half = reinterpret_cast<unsigned short*>(dst);
  const bool twin = (lane & 16) != 0;
  FUSED_CONV_UNROLL
  for (int j = 0; j < NT; ++j) {
    if (nt0 + j >= ntiles) break;
    const int px = (nt0 + j) * 8 + 2 * (lane & 3);
    if (px >= width) continue;
    if (!twin) {
      dst[px] = m[j];
    } else {
      if (px > 0) half[2 * (px - 1) + 1] = static_cast<unsigned short>(m[j]);  // element px, high half of px - 1
      if (px + 1 < width) half[2 * (px + 1)] = static_cast<unsigned short>(m[j] >> 16);  // px + 1, low of px + 1
    }
  }
}

// The same with one 32-bit store per lane: lanes g < 4 store word px (their pair), their twins word px + 1
// = (element px + 1, element px + 2), the second half fetched from the next lane's pair (lane t + 1, or for t = 3
// lane t = 0's pair of the next n-tile) by one shuffle that every lane takes part in (`on`: whether this lane's
// channel exists and it stores). At a pass boundary with n-tiles after it, the last word's high half is left to
// the next pass (a 16-bit store there), since the next pair is not computed yet.
template <class TOut, int NT>
__device__ __forceinline__ void pair_store_map_shfl(const uint32_t (&m)[NT], int nt0, int ntiles, int width, int lane,
                                                    bool on, uint32_t* dst) {
  const int t = lane & 3;
  const bool twin = (lane & 16) != 0;
  const int src = t == 3 ? lane - 3 : lane + 1;
  unsigned short* half = reinterpret_cast<unsigned short*>(dst);
  FUSED_CONV_UNROLL
  for (int j = 0; j < NT; ++j) {
    if (nt0 + j >= ntiles) break;
    const uint32_t next_tile = j + 1 < NT ? m[j + 1] : 0u;
    const uint32_t nb = __shfl_sync(0xffffffffu, t == 0 ? next_tile : m[j], src);
    const int px = (nt0 + j) * 8 + 2 * t;
    if (!on || px >= width) continue;
    if (!twin) {
      dst[px] = m[j];
    } else if (px + 1 < width) {
      if (j + 1 < NT || nt0 + NT >= ntiles || t < 3)
        dst[px + 1] = byte_perm(m[j], nb, 0x5432);
      else
        half[2 * (px + 1)] = static_cast<unsigned short>(m[j] >> 16);  // the next pass writes the high half
    }
    if (twin && j == 0 && nt0 > 0 && t == 0)  // the previous pass's last word: its high half is this pair's first
      half[2 * (px - 1) + 1] = static_cast<unsigned short>(m[j]);
  }
}

template <class Cfg, class Word, class TIn, class TOut, int KS1, int R, int JK>
__global__ void __launch_bounds__(Cfg::kWarps * 32, Cfg::kMinBlocks)
    fused_conv_pair_kernel(const PairPlan P, const TIn* __restrict__ x, const uint4* __restrict__ w1,
                           const float* __restrict__ b1, const uint4* __restrict__ w2, const float* __restrict__ b2,
                           TOut* __restrict__ y) {
  static_assert(sizeof(TOut) == 2, "the first conv's map is stored in the 16-bit operand type");
  constexpr int kThreads = Cfg::kWarps * 32, NT = Cfg::kNT, NW = Cfg::kNW;
  extern __shared__ __align__(16) uint32_t pair_smem[];
  const PoolMPlan& p1 = P.a;
  const StackedPlan& p2 = P.b;
  uint32_t* s1 = pair_smem;
  uint32_t* s2 = pair_smem + P.off_s2 / 4;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;

  uint32_t a2[16][4];  // the second conv's weights
  auto load_w2 = [&] {
    FUSED_CONV_UNROLL
    for (int ks = 0; ks < 16; ++ks) {
      const uint4 v = ks < p2.ksteps ? __ldg(w2 + ks * 32 + lane) : make_uint4(0, 0, 0, 0);
      a2[ks][0] = v.x, a2[ks][1] = v.y, a2[ks][2] = v.z, a2[ks][3] = v.w;
    }
  };
  if constexpr (Cfg::kKeepW2) load_w2();
  for (int i = tid; i < p2.img_words; i += kThreads) s2[i] = 0u;  // what the first conv never writes stays zero

  const size_t img_elems = static_cast<size_t>(p1.c) * p1.h * p1.w;
  TIn* raw = nullptr;
  uint64_t* bar = nullptr;
  uint32_t phase = 0;
  if (p1.bulk) {
    unsigned char* base = reinterpret_cast<unsigned char*>(pair_smem);
    raw = reinterpret_cast<TIn*>(base + p1.raw_off);
    bar = reinterpret_cast<uint64_t*>(base + p1.bar_off);
    if (tid == 0) {
      dev::mbar_init(bar);
      if (blockIdx.x < P.n) dev::bulk_copy_g2s(raw, x + blockIdx.x * img_elems, p1.raw_bytes, bar);
    }
  }
  __syncthreads();  // the barrier's init and the zeroed map

  const int ch = g & 3;
  const float bias1 = ch < p1.k && b1 ? b1[ch] : 0.f;
  const int wpr = p1.pitch / 2;
  for (int img = blockIdx.x; img < P.n; img += gridDim.x) {
    // The first conv's staging. Its previous reads of s1 ended before the last barrier of the previous image.
    if (p1.bulk) {
      dev::mbar_wait(bar, phase);
      phase ^= 1u;
      poolm_convert<Word>(p1, raw, s1, tid, kThreads);
    } else {
      poolm_stage<Word>(p1, x + static_cast<size_t>(img) * img_elems, 0, s1, tid, kThreads);
    }
    __syncthreads();  // s1 staged, the raw buffer free, and every warp done reading s2 for the previous image
    if (p1.bulk && tid == 0 && img + static_cast<int>(gridDim.x) < P.n) {
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      dev::bulk_copy_g2s(raw, x + static_cast<size_t>(img + gridDim.x) * img_elems, p1.raw_bytes, bar);
    }
    {  // the first conv into the second one's staged map
      uint32_t a1[KS1][4];
      int koff[KS1];
      poolm_load_weights(p1, w1, lane, a1, koff);
      for (int ly = warp; ly < P.rows1; ly += Cfg::kWarps) {
        const uint32_t* row = s1 + 2 * ly * wpr + 2 * (g + t);
        uint32_t* dst = s2 + (ch < p1.k ? ch : 0) * p2.plane + ly * p2.ws;
        for (int nt0 = 0; nt0 < p1.ntiles; nt0 += NT) {
          float acc[NT][4];
          uint32_t m[NT];
          if (nt0 + NT <= p1.ntiles)
            poolm_mma_pass<Word, NT, KS1, true>(p1, a1, a1, koff, row, nt0, bias1, acc);
          else
            poolm_mma_pass<Word, NT, KS1, false>(p1, a1, a1, koff, row, nt0, bias1, acc);
          FUSED_CONV_UNROLL
          for (int j = 0; j < NT; ++j) m[j] = poolm_pool_pair<TOut>(acc[j]);
          if constexpr (Cfg::kShuffleStore)
            pair_store_map_shfl<TOut>(m, nt0, p1.ntiles, p1.pw, lane, ch < p1.k, dst);
          else if (ch < p1.k)
            pair_store_map<TOut>(m, nt0, p1.ntiles, p1.pw, lane, dst);
        }
      }
    }
    __syncthreads();  // the map is complete
    if constexpr (!Cfg::kKeepW2) load_w2();
    const TileCoord tc = stacked_tile_coord(p2, img);
    for (int u = warp; u < p2.units; u += Cfg::kWarps) {
      const StackedUnit su = stacked_unit(p2, u, lane);
      const PoolDst<TOut> dst = pool_dst(p2, tc, su, lane, b2, y);
      for (int q = 0; q < p2.groups; ++q) {
        const int col0 = q * NW * 8;
        float pm[NW][4];
        shared_rows_mma<Word, 16, NW, R, JK>(p2, a2, s2 + su.base + col0 + 2 * (lane & 3), nullptr, pm);
        register_epilogue(p2, dst, col0, lane, pm);
      }
    }
  }
}

template <class Cfg, class Word, class TIn, class TOut, int KS1, int R, int JK>
cudaError_t launch_pair_ks(const PairPlan& p, const TIn* x, const uint4* w1, const float* b1, const uint4* w2,
                           const float* b2, TOut* y, cudaStream_t stream) {
  return launch_persistent(fused_conv_pair_kernel<Cfg, Word, TIn, TOut, KS1, R, JK>, Cfg::kWarps * 32, p.smem_bytes,
                           p.n, stream, p, x, w1, b1, w2, b2, y);
}

template <class Cfg, class Word, class TIn, class TOut, int R, int JK>
cudaError_t launch_pair_r(const PairPlan& p, const TIn* x, const uint4* w1, const float* b1, const uint4* w2,
                          const float* b2, TOut* y, cudaStream_t stream) {
  if (p.a.ksteps <= 4) return launch_pair_ks<Cfg, Word, TIn, TOut, 4, R, JK>(p, x, w1, b1, w2, b2, y, stream);
  if (p.a.ksteps <= 8) return launch_pair_ks<Cfg, Word, TIn, TOut, 8, R, JK>(p, x, w1, b1, w2, b2, y, stream);
  return launch_pair_ks<Cfg, Word, TIn, TOut, 16, R, JK>(p, x, w1, b1, w2, b2, y, stream);
}

// x: [n][c1][h][w] TIn; w1: poolm_pack_weights of the first conv, w2: stacked_pack_weights(s2, v, ..., share) of
// the second, both with Word's type, on the device; b1, b2: fp32 or nullptr; y: [n][k2][ph2][pw2] TOut (Word's
// 16-bit type). `plan` from make_pair_plan with Cfg::kNW.
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_pair(const PairPlan& plan, const TIn* x, const void* w1, const float* b1, const void* w2,
                                   const float* b2, TOut* y, cudaStream_t stream) {
  if (plan.n < 1) return cudaSuccess;
  if (plan.b.nw != Cfg::kNW || plan.a.ksteps > kPoolMMaxKSteps || plan.b.ksteps > 16 || plan.b.e != Word::kE)
    return cudaErrorInvalidValue;
  PairPlan p = plan;
  if ((reinterpret_cast<uintptr_t>(x) & (2 * sizeof(TIn) - 1)) != 0) p.a.vec2 = 0;
  if ((reinterpret_cast<uintptr_t>(x) & 15) != 0) p.a.bulk = 0;
  const uint4* u1 = static_cast<const uint4*>(w1);
  const uint4* u2 = static_cast<const uint4*>(w2);
  const int r = p.b.share, jk = (r + p.b.r - 1) / 2;
  if (r == 4 && jk == 5) return launch_pair_r<Cfg, Word, TIn, TOut, 4, 5>(p, x, u1, b1, u2, b2, y, stream);
  if (r == 4 && jk == 4) return launch_pair_r<Cfg, Word, TIn, TOut, 4, 4>(p, x, u1, b1, u2, b2, y, stream);
  if (r == 2 && jk == 4) return launch_pair_r<Cfg, Word, TIn, TOut, 2, 4>(p, x, u1, b1, u2, b2, y, stream);
  if (r == 2 && jk == 3) return launch_pair_r<Cfg, Word, TIn, TOut, 2, 3>(p, x, u1, b1, u2, b2, y, stream);
  return cudaErrorInvalidValue;
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv

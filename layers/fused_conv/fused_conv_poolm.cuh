// The "pool on M" fused Conv + bias + ReLU + 2x2 MaxPool kernel for few output channels (k <= 4): the M side of
// the m16n8k16 product holds the four positions of the pool window for each channel, the N side holds pooled
// pixels, K the taps of the input patch that one pooled output reads.
//
// Formulation. Pooled pixel (py, px) reads input rows 2py .. 2py + r and columns 2px .. 2px + r: an (r + 1)-square
// patch, padded to rp = r + 1 rounded up to even rows and to 8 columns (r <= 7). Row m = pos * 4 + ch of A is
// channel ch at pool position pos = dy * 2 + dx:
//   A[(dy, dx, ch)][(ci, prow, pcol)] = w[ch][ci][prow - dy][pcol - dx]   (zero outside the kernel)
// and B[(ci, prow, pcol)][n] is input (ci, 2py + prow, 2(px0 + n) + pcol). One k-step of 16 is two patch rows of 8
// taps; a lane's B registers are two aligned element pairs of a plain staged image (column 2(px0 + g) + 2t is
// even), so B needs no expanded copy, and the pool is the max over M: rows g and g + 8 of the accumulator (dy) sit
// in the lane, dx is lane bit 4 (one shuffle). The conv net's conv1 (1 -> 4 channels, 7x7, 2x2 pool): K = 64 taps
// per patch of which 49 are kernel taps per position (77% of the products useful, against 61% for the stacked
// kernel), 800 MMAs per 86x86 image against 1000, two 32-bit loads per MMA, and an epilogue of four instructions
// per output pair instead of the stacked kernel's register pool.
//
// Work split: a CTA stages one image at a time (every input channel, rounded to the operand type, zero past the
// image so that padded taps never meet garbage), then its warps take pooled rows, each row ntiles n-tiles of 8
// pooled pixels, the A fragments of every k-step in registers for the whole kernel. Persistent grid over images.
// Depends on CUDA alone (tests/kernels/conv_poolm_lab.cu builds it with nvcc).
#pragma once

#include <string>

#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie::fused_conv {

constexpr int kPoolMMaxKSteps = 16;  // c * rp / 2 k-steps whose A fragments stay in registers

struct PoolMPlan {
  int n, c, h, w, k, r;
  int ph, pw;       // pooled outputs
  int rp;           // patch rows, padded to even (two per k-step)
  int ksteps;       // c * rp / 2
  int ntiles;       // n-tiles of 8 pooled pixels per pooled row
  int pitch;        // staged row length in elements (even; zeros past w)
  int rows;         // staged rows per channel (zeros past h)
  int pb, bands;    // pooled rows per tile, tiles per image
  int plane_words;  // rows * pitch / 2
  int img_words;    // c * plane_words
  int tiles;        // n * bands
  int smem_bytes;
  int vec2;                   // input rows start on even elements (w even): staged by element-pair loads
  FastDiv div_wpr, div_rows;  // staged word -> staged row -> input channel
};

// Why the kernel does not take a shape ("" when it does).
inline std::string poolm_unsupported(const ConvPoolShape& s, Variant v) {
  if (v != Variant::kMmaBf16 && v != Variant::kMmaF16) return "pool-on-M runs on bf16/fp16 Tensor Cores only";
  if (s.pool_window != 2 || s.pool_stride != 2) return "pool-on-M needs a 2x2 pool of stride 2";
  if (s.k > 4) return "pool-on-M takes at most 4 output channels (4 pool positions x 4 channels in M)";
  if (s.r > 7) return "pool-on-M needs a kernel of at most 7x7 (its patch is 8 columns)";
  if (s.pad != 0) return "pool-on-M takes unpadded convolutions";
  if (s.c * ((s.r + 2) / 2) > kPoolMMaxKSteps)
    return "pool-on-M keeps at most 16 k-steps of weights in registers (input channels x patch rows / 2)";
  return "";
}

// Plans a shape, a tile being `pb` pooled rows of one image (0: the whole image); false with the reason when the
// kernel does not take the shape or a tile does not fit in `smem_limit`.
inline bool make_poolm_plan(const ConvPoolShape& s, Variant v, int smem_limit, PoolMPlan* out, std::string* why,
                            int pb = 0) {
  std::string no = poolm_unsupported(s, v);
  PoolMPlan p{};
  p.n = s.n, p.c = s.c, p.h = s.h, p.w = s.w, p.k = s.k, p.r = s.r;
  p.ph = pooled_h(s), p.pw = pooled_w(s);
  if (no.empty() && (p.ph < 1 || p.pw < 1)) no = "the pool leaves no output";
  if (!no.empty()) {
    if (why) *why = no;
    return false;
  }
  p.rp = round_up(s.r + 1, 2);
  p.ksteps = s.c * p.rp / 2;
  p.ntiles = ceil_div(p.pw, 8);
  // The last n-tile reads columns up to 2 (8 ntiles - 1) + 7, the last pooled row rows up to 2 (ph - 1) + rp - 1.
  p.pitch = round_up(std::max(s.w, 16 * p.ntiles + 6), 2);
  p.pb = pb > 0 && pb < p.ph ? pb : p.ph;
  p.bands = ceil_div(p.ph, p.pb);
  p.tiles = s.n * p.bands;
  p.rows = 2 * (p.pb - 1) + p.rp;  // staged rows of a band (zeros past the image)
  p.plane_words = p.rows * p.pitch / 2;
  p.img_words = s.c * p.plane_words;
  p.smem_bytes = p.img_words * 4;
  p.vec2 = s.w % 2 == 0;
  p.div_wpr = FastDiv(p.pitch / 2);
  p.div_rows = FastDiv(p.rows);
  if (p.smem_bytes > smem_limit) {
    if (why) *why = "one staged tile (" + std::to_string(p.smem_bytes) + " bytes) exceeds shared memory";
    return false;
  }
  *out = p;
  return true;
}

// A[m][kk] of the pool-on-M weight matrix, zero in the padding. w is ONNX's fp32 [k][c][r][r].
inline float poolm_weight(const PoolMPlan& p, const float* w, int m, int kk) {
  const int pos = m >> 2, ch = m & 3, dy = pos >> 1, dx = pos & 1;
  const int per_ci = p.rp * 8, ci = kk / per_ci, rem = kk - ci * per_ci;
  const int ky = rem / 8 - dy, kx = rem % 8 - dx;
  if (ch >= p.k || ci >= p.c || ky < 0 || ky >= p.r || kx < 0 || kx >= p.r) return 0.f;
  return w[((static_cast<size_t>(ch) * p.c + ci) * p.r + ky) * p.r + kx];
}

inline size_t poolm_weight_bytes(const PoolMPlan& p) { return static_cast<size_t>(p.ksteps) * 32 * 16; }

// The packed A fragments (pack_a_fragments) of poolm_weight, rounded to the Word's type. Host, once per engine.
template <class Word>
inline void poolm_pack_weights(const PoolMPlan& p, const float* w, uint4* out) {
  pack_a_fragments<Word>(
      p.ksteps, [&](int m, int k) { return poolm_weight(p, w, m, k); }, out);
}

// Tile configurations: warps per CTA (each warp takes pooled rows in turn), n-tiles per pass (independent
// accumulators), pooled rows per tile (0: the whole image; fewer give a small batch more CTAs).
struct PoolMW4N5 {
  static constexpr const char* kName = "poolm_w4_n5";
  static constexpr int kWarps = 4, kNT = 5, kRows = 0;
};
struct PoolMW8N5 {
  static constexpr const char* kName = "poolm_w8_n5";
  static constexpr int kWarps = 8, kNT = 5, kRows = 0;
};
struct PoolMW4N1 {  // one n-tile at a time (the first version)
  static constexpr const char* kName = "poolm_w4_n1";
  static constexpr int kWarps = 4, kNT = 1, kRows = 0;
};
struct PoolMW4N5R4 {  // bands of 4 pooled rows: one warp-row each, 10 tiles per conv1 image
  static constexpr const char* kName = "poolm_w4_n5_r4";
  static constexpr int kWarps = 4, kNT = 5, kRows = 4;
};

#ifdef __CUDACC__

// Input rows y0 .. y0 + rows - 1 of every channel of one image (x) into shared memory as operand words (two
// elements of T per word), zero past the image. Staged word i is s_img[i]; every thread loads kStageUnroll words'
// inputs before it stores any, so that many loads are in flight (one at a time, the staging's latency was most of
// the kernel's time: lab, tools/results/h200/conv_poolm/).
constexpr int kStageUnroll = 8;
template <class Word, class TIn>
__device__ __forceinline__ void poolm_stage(const PoolMPlan& p, const TIn* __restrict__ x, int y0, uint32_t* s_img,
                                            int tid, int nthreads) {
  // The operand's own 16-bit type is copied as it is (bits); zeros past the image are zero bits either way.
  constexpr bool kCopy = sizeof(TIn) == 2 && std::is_same_v<Word, Word16<TIn>>;
  const int wpr = p.pitch / 2, total = p.c * p.rows * wpr;
  for (int base = tid; base < total; base += kStageUnroll * nthreads) {
    float f[kStageUnroll][2];
    uint32_t bits[kStageUnroll];
    FUSED_CONV_UNROLL
    for (int u = 0; u < kStageUnroll; ++u) {
      const int i = base + u * nthreads;
      f[u][0] = f[u][1] = 0.f;
      bits[u] = 0u;
      if (i >= total) continue;
      const int row = p.div_wpr.div(i), xw = i - row * wpr, ci = p.div_rows.div(row);
      const int yy = y0 + row - ci * p.rows, x0 = 2 * xw;
      if (yy >= p.h) continue;
      const TIn* src = x + (static_cast<size_t>(ci) * p.h + yy) * p.w + x0;
      if (p.vec2 && x0 + 1 < p.w) {
        if constexpr (kCopy) {
          bits[u] = *reinterpret_cast<const uint32_t*>(src);
        } else if constexpr (sizeof(TIn) == 2) {  // another 16-bit type: converted
          f[u][0] = to_float(src[0]), f[u][1] = to_float(src[1]);
        } else {
          const float2 v = *reinterpret_cast<const float2*>(src);
          f[u][0] = v.x, f[u][1] = v.y;
        }
      } else {
        if (x0 < p.w) f[u][0] = to_float(src[0]);
        if (x0 + 1 < p.w) f[u][1] = to_float(src[1]);
      }
    }
    FUSED_CONV_UNROLL
    for (int u = 0; u < kStageUnroll; ++u) {
      const int i = base + u * nthreads;
      if (i >= total) break;
      s_img[i] = kCopy && p.vec2 ? bits[u] : Word::pack(f[u]);
    }
  }
}

// Writes the pair of pooled outputs (px, px + 1) of one row, bias and ReLU after the max (as every fused kernel).
template <class TOut>
__device__ __forceinline__ void poolm_store(TOut* row, int px, int pw, float v0, float v1, float bias) {
  const float o0 = nan_relu(v0 + bias), o1 = nan_relu(v1 + bias);
  if (px + 1 < pw) {
    if constexpr (sizeof(TOut) == 2) {
      if ((pw & 1) == 0) {  // px even: an aligned pair
        const uint32_t bits = static_cast<uint32_t>(bits16(from_float<TOut>(o0))) |
                              static_cast<uint32_t>(bits16(from_float<TOut>(o1))) << 16;
        *reinterpret_cast<uint32_t*>(row + px) = bits;
        return;
      }
    }
    row[px] = from_float<TOut>(o0);
    row[px + 1] = from_float<TOut>(o1);
  } else if (px < pw) {
    row[px] = from_float<TOut>(o0);
  }
}

template <class Cfg, class Word, class TIn, class TOut, int KS>
__global__ void __launch_bounds__(Cfg::kWarps * 32)
    fused_conv_poolm_kernel(const PoolMPlan p, const TIn* __restrict__ x, const uint4* __restrict__ wpk,
                            const float* __restrict__ bias, TOut* __restrict__ y) {
  constexpr int NT = Cfg::kNT;
  extern __shared__ __align__(16) uint32_t s_img[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  uint32_t a[KS][4];
  int koff[KS];  // word offset of the k-step's first patch row: input channel and row pair
  FUSED_CONV_UNROLL
  for (int ks = 0; ks < KS; ++ks) {
    const uint4 v = ks < p.ksteps ? __ldg(wpk + ks * 32 + lane) : make_uint4(0, 0, 0, 0);
    a[ks][0] = v.x, a[ks][1] = v.y, a[ks][2] = v.z, a[ks][3] = v.w;
    const int half = p.rp / 2, ci = ks / half;
    koff[ks] = ci * p.plane_words + (ks - ci * half) * p.pitch;  // two rows of pitch / 2 words
  }
  const int ch = g & 3;
  const bool writer = (g & 4) == 0 && ch < p.k;  // after the dx shuffle, lanes g and g ^ 4 hold the same maxima
  const float b = writer && bias ? bias[ch] : 0.f;
  const int wpr = p.pitch / 2;
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const int img = tile / p.bands, py0 = (tile - img * p.bands) * p.pb, rows = imin(p.pb, p.ph - py0);
    __syncthreads();  // the previous tile's reads are done
    poolm_stage<Word>(p, x + static_cast<size_t>(img) * p.c * p.h * p.w, 2 * py0, s_img, threadIdx.x, Cfg::kWarps * 32);
    __syncthreads();
    TOut* yt = y + ((static_cast<size_t>(img) * p.k + ch) * p.ph + py0) * p.pw;
    for (int ly = warp; ly < rows; ly += Cfg::kWarps) {
      const uint32_t* row = s_img + 2 * ly * wpr + g + t;  // word (px0 + g) + t of staged row 2 ly
      // NT n-tiles at once: independent accumulators keep NT MMAs in flight behind each k-step's loads.
      for (int nt0 = 0; nt0 < p.ntiles; nt0 += NT) {
        float acc[NT][4];
        FUSED_CONV_UNROLL
        for (int j = 0; j < NT; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
        FUSED_CONV_UNROLL
        for (int ks = 0; ks < KS; ++ks) {
          if (ks >= p.ksteps) break;
          uint32_t b0[NT], b1[NT];
          FUSED_CONV_UNROLL
          for (int j = 0; j < NT; ++j) {
            const uint32_t* col = row + (nt0 + j) * 8 + koff[ks];
            const bool on = nt0 + j < p.ntiles;  // the same for the whole warp
            b0[j] = on ? col[0] : 0u, b1[j] = on ? col[wpr] : 0u;
          }
          FUSED_CONV_UNROLL
          for (int j = 0; j < NT; ++j)
            if (nt0 + j < p.ntiles) Word::mma(acc[j], a[ks], make_uint2(b0[j], b1[j]));
        }
        FUSED_CONV_UNROLL
        for (int j = 0; j < NT; ++j) {
          if (nt0 + j >= p.ntiles) break;
          float v0 = nan_max(acc[j][0], acc[j][2]), v1 = nan_max(acc[j][1], acc[j][3]);  // dy: rows g and g + 8
          v0 = nan_max(v0, __shfl_xor_sync(0xffffffffu, v0, 16));                        // dx: lane bit 4
          v1 = nan_max(v1, __shfl_xor_sync(0xffffffffu, v1, 16));
          if (writer) poolm_store(yt + ly * p.pw, (nt0 + j) * 8 + 2 * t, p.pw, v0, v1, b);
        }
      }
    }
  }
}

template <class Cfg, class Word, class TIn, class TOut, int KS>
cudaError_t launch_poolm_ks(const PoolMPlan& p, const TIn* x, const uint4* w, const float* bias, TOut* y,
                            cudaStream_t stream) {
  return launch_persistent(fused_conv_poolm_kernel<Cfg, Word, TIn, TOut, KS>, Cfg::kWarps * 32, p.smem_bytes, p.tiles,
                           stream, p, x, w, bias, y);
}

// x: [n][c][h][w] TIn; packed_w: poolm_pack_weights with Word (WordBf16 or WordF16) on the device; bias: [k] fp32
// or nullptr; y: [n][k][ph][pw] TOut, 4-byte aligned; accumulation is fp32. `plan` from make_poolm_plan.
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_poolm(const PoolMPlan& plan, const TIn* x, const void* packed_w, const float* bias,
                                    TOut* y, cudaStream_t stream) {
  if (plan.n < 1) return cudaSuccess;
  if (plan.ksteps > kPoolMMaxKSteps) return cudaErrorInvalidValue;
  PoolMPlan p = plan;
  // Pair loads need each row to start on an even element and the tensor on a pair's boundary (8 bytes for float).
  if ((reinterpret_cast<uintptr_t>(x) & (2 * sizeof(TIn) - 1)) != 0) p.vec2 = 0;
  const uint4* w = static_cast<const uint4*>(packed_w);
  if (p.ksteps <= 4) return launch_poolm_ks<Cfg, Word, TIn, TOut, 4>(p, x, w, bias, y, stream);
  if (p.ksteps <= 8) return launch_poolm_ks<Cfg, Word, TIn, TOut, 8>(p, x, w, bias, y, stream);
  return launch_poolm_ks<Cfg, Word, TIn, TOut, 16>(p, x, w, bias, y, stream);
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv

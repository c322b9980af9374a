// Fused Conv + bias + ReLU + MaxPool on Hopper's warpgroup MMA (wgmma): the shared-rows idea with the weights
// on M and one product per 64 output pixels. Depends on CUDA alone (the lab builds it with nvcc); sm_90a.
//
// The product of a tile: D[m][n] = sum_k A[m][k] B[k][n] with
//   M = 64 = 16 output channels x 4 consecutive conv rows (m = 16 w + 4 cl + r: warp w holds channels 4w + cl
//       for cl = 0..3 and rows r = 0..3, so a lane's accumulators are rows g & 3 of channels 4w + g / 4 and
//       4w + 2 + g / 4: the pool's rows combine across lanes g ^ 1, g ^ 2);
//   K = the input rows the 4 conv rows read, 8 taps each: k = 8 (ci IY + iy) + kx, IY = 4 + r - 1, kx < 8
//       (taps past r have zero weights); A[m][k] = w[co][ci][iy - r_m][kx] where 0 <= iy - r_m < r, else 0;
//   N = 64 output columns of one or more (image, row group) segments of XW columns (XW: the kept conv columns
//       rounded up to a power of two <= 64): B[k][n] = x[img][ci][4 rg + iy][x_n + kx].
// A is constant: each thread keeps its fragments (KS k-steps x 4 registers) for the whole kernel. B is built per
// tile in shared memory in the 128-byte-swizzled K-major layout wgmma reads: one thread per (K chunk of 8, 8
// columns) loads the 16 input elements x0 .. x0 + 15 of its row (two 16-byte loads) and writes the 8 columns'
// 16-byte rows (each the same elements shifted by one more: byte permutes), so the im2col exists only in
// shared memory, once per 4 conv rows (the 7 taps of a kernel column are read by 4 rows' products).
// Pipeline per CTA (persistent over tiles): the next tile's loads are issued, this tile's 20 wgmmas start
// (asynchronous), the next tile's B is built into the other buffer under them, then the accumulators are pooled
// (in registers and by shuffles), biased, ReLU'd and stored.
// H200, conv2 of the conv net in bf16 (lab, same process; tools/results/h200/conv_wgmma/call_g): batch 10000 0.264 ms
// (one buffer) against the shared-rows kernel's 0.294, 1000 0.0315 against 0.0403.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "layers/common/bulk_copy.cuh"
#include "layers/fused_conv/fused_conv_cuda.cuh"
#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie::fused_conv {

constexpr int kWgRows = 4;      // conv rows per product (M = 16 channels x 4 rows)
constexpr int kWgN = 64;        // columns per tile (the wgmma's N)
constexpr int kWgMaxKS = 24;    // k-steps the register-held A fragments allow (96 registers)
constexpr int kWgBlock = 8192;  // one 64-element K block of B: 64 columns x 128 bytes

// Tile configurations: B buffers (2: the next tile's built under this one's products; 1: built after them, more
// CTAs per SM hide it) and the CTAs per SM the registers must allow.
struct WgmmaTile2 {
  static constexpr const char* kName = "wg_m64n64";
  static constexpr int kStages = 2, kMinBlocks = 2;
};
struct WgmmaTile1 {
  static constexpr const char* kName = "wg_m64n64_s1";
  static constexpr int kStages = 1, kMinBlocks = 3;
};

struct WgmmaPlan {
  int n, c, h, w, k, r, ps;  // shape; ps: the pool's window = stride (2 or 4)
  int ph, pw;                // pooled output
  int iy;                    // input rows per row group (4 + r - 1)
  int kc;                    // K chunks of 8 taps (c x iy)
  int ks;                    // k-steps (ceil(kc / 2))
  int lxw;                   // log2 of the columns per segment (XW)
  int rg;                    // row groups per image (ceil(kept rows / 4))
  FastDiv rg_div;            // segment -> (image, row group)
  int tiles;                 // ceil(segments x XW / 64)
  int image_elems;           // c x h x w
  int rg_elems;              // 4 w: a row group's first row after the last one's
  int buf_bytes;             // one B buffer (a multiple of kWgBlock)
  bool aligned16;            // every row starts 16-byte aligned (16-byte loads)
};

// Why this kernel does not take the shape ("" when it does).
inline std::string wgmma_unsupported(const ConvPoolShape& s, Variant v) {
  if (v != Variant::kMmaBf16 && v != Variant::kMmaF16) return "bf16/fp16 products only";
  if (s.pad != 0) return "padded";
  if (s.k > 16) return "more than 16 output channels";
  if (s.r > 8) return "kernel wider than 8";
  if (s.pool_window != s.pool_stride || (s.pool_window != 2 && s.pool_window != 4))
    return "pool window and stride not both 2 or both 4";
  if (pooled_h(s) < 1 || pooled_w(s) < 1) return "no pooled output";
  if (kept_conv_cols(s) > kWgN) return "more than 64 kept conv columns";
  if ((s.c * (kWgRows + s.r - 1) + 1) / 2 > kWgMaxKS) return "input channels x rows exceed the register-held weights";
  return "";
}

inline bool make_wgmma_plan(const ConvPoolShape& s, Variant v, WgmmaPlan* p, std::string* why) {
  if (std::string no = wgmma_unsupported(s, v); !no.empty()) {
    *why = no;
    return false;
  }
  WgmmaPlan q{};
  q.n = s.n, q.c = s.c, q.h = s.h, q.w = s.w, q.k = s.k, q.r = s.r, q.ps = s.pool_window;
  q.ph = pooled_h(s), q.pw = pooled_w(s);
  q.iy = kWgRows + s.r - 1;
  q.kc = s.c * q.iy;
  q.ks = (q.kc + 1) / 2;
  q.lxw = 3;
  while ((1 << q.lxw) < kept_conv_cols(s)) ++q.lxw;
  q.rg = (kept_conv_rows(s) + kWgRows - 1) / kWgRows;
  q.rg_div = FastDiv(q.rg);
  const int64_t cols = static_cast<int64_t>(s.n) * q.rg << q.lxw;
  if ((cols + kWgN - 1) / kWgN > (1LL << 30)) {
    *why = "too many tiles";
    return false;
  }
  q.tiles = static_cast<int>((cols + kWgN - 1) / kWgN);
  if (static_cast<int64_t>(s.c) * s.h * s.w > INT32_MAX) {
    *why = "images beyond 32 bits";
    return false;
  }
  q.image_elems = s.c * s.h * s.w;
  q.rg_elems = kWgRows * s.w;
  q.buf_bytes = (q.ks + 3) / 4 * kWgBlock;
  q.aligned16 = s.w % 8 == 0;
  *p = q;
  return true;
}

// The A fragments: [k-step][thread of the warpgroup][4 words], each word two 16-bit weights (wgmma's m64nNk16
// register layout = mma.m16n8k16's per warp: rows g, g + 8; columns 2q, 2q + 1 and + 8).
inline size_t wgmma_weight_bytes(const ConvPoolShape& s) {
  const int ks = (s.c * (kWgRows + s.r - 1) + 1) / 2;
  return static_cast<size_t>(ks) * 128 * 16;
}

template <class T>
void wgmma_pack_weights(const ConvPoolShape& s, const float* w, void* out) {
  const int iy_n = kWgRows + s.r - 1, kc_n = s.c * iy_n, ks = (kc_n + 1) / 2;
  uint32_t* dst = static_cast<uint32_t*>(out);
  auto weight = [&](int m, int k) -> float {
    const int wi = m / 16, l = m % 16, r_row = l & 3, co = 4 * wi + (l >> 2);
    const int kc = k / 8, kx = k % 8, ci = kc / iy_n, ky = kc % iy_n - r_row;
    if (kc >= kc_n || co >= s.k || kx >= s.r || ky < 0 || ky >= s.r) return 0.f;
    return w[((static_cast<size_t>(co) * s.c + ci) * s.r + ky) * s.r + kx];
  };
  for (int st = 0; st < ks; ++st)
    for (int t = 0; t < 128; ++t) {
      const int wi = t / 32, g = (t % 32) / 4, q = t % 4;
      const int rows[4] = {g, g + 8, g, g + 8}, cols[4] = {2 * q, 2 * q, 2 * q + 8, 2 * q + 8};
      for (int i = 0; i < 4; ++i) {
        const float pair[2] = {weight(16 * wi + rows[i], 16 * st + cols[i]),
                               weight(16 * wi + rows[i], 16 * st + cols[i] + 1)};
        dst[(static_cast<size_t>(st) * 128 + t) * 4 + i] = Word16<T>::pack(pair);
      }
    }
}

// ---- device side -------------------------------------------------------------------------------------------
#if defined(__CUDACC__)

namespace wg {

// The shared-memory matrix descriptor of a 128-byte-swizzled K-major operand: rows of 128 bytes (64 elements of
// K), 8-row groups 1024 bytes apart; the start advances by 32 bytes per k-step inside a 64-element block.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  return static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(1) << 16) |
         (static_cast<uint64_t>(1024 >> 4) << 32) | (static_cast<uint64_t>(1) << 62);
}

__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Generic-proxy writes of shared memory made visible to the async proxy (wgmma's operand reads).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Keeps the compiler from moving accumulator reads or writes across a wgmma boundary.
__device__ __forceinline__ void pin(float (&d)[32]) {
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// d (+)= A (registers) x B (descriptor), m64n64k16, fp32 accumulation; accumulate = false starts from zero.
template <class T>
__device__ __forceinline__ void mma_m64n64k16(float (&d)[32], const uint32_t (&a)[4], uint64_t desc, int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define IE_WG_D                                                                                               \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define IE_WG_ASM(TYPE)                                                                                    \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %38, 0;\n"                                                             \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE                                              \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, " \
  "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
  if constexpr (std::is_same_v<T, __half>)
    asm volatile(IE_WG_ASM("f16")
                 : IE_WG_D
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(0), "r"(accumulate));
  else
    asm volatile(IE_WG_ASM("bf16")
                 : IE_WG_D
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(0), "r"(accumulate));
#undef IE_WG_ASM
#undef IE_WG_D
#else
  __trap();  // sm_90a only
#endif
}

// One build item: K chunk kc (input channel ci, input row iy of the row group) x 8 columns starting at n0.
struct Item {
  int off;   // ci x h x w + iy x w + x0: the element offset inside an image from its row group's first row
  int iy;    // input row inside the row group
  int x0;    // the first column's column inside its segment
  int dseg;  // its segment after the tile's first (n0 >> lxw)
  int dst;   // byte offset of the chunk in a B buffer, row n0 (before the swizzle)
  int cc;    // the chunk's 16-byte position in its 128-byte row (kc % 8)
  bool live;
};

// Where a tile's columns come from: tile x 64 is a multiple of XW (<= 64), so column o of the tile lies in segment
// seg0 + (o >> lxw) at column o & (XW - 1); seg0 = img0 x rg + rg0.
struct TileOrigin {
  int img0, rg0;
};
__device__ __forceinline__ TileOrigin tile_origin(const WgmmaPlan& p, int tile) {
  const int seg0 = (tile * kWgN) >> p.lxw;
  const int img0 = p.rg_div.div(seg0);
  return {img0, p.rg_div.mod(seg0, img0)};
}
// The image and row group of the tile's segment seg0 + dseg.
__device__ __forceinline__ void column_segment(const WgmmaPlan& p, const TileOrigin& t, int dseg, int* img, int* rg) {
  int r = t.rg0 + dseg, i = t.img0;
  while (r >= p.rg) r -= p.rg, ++i;  // at most 64 / XW segments past seg0
  *img = i, *rg = r;
}

// The 16 elements of x[img][ci][y][x0 ..] (zero past the row, the image or the batch).
template <class T>
__device__ __forceinline__ void load_item(const WgmmaPlan& p, const T* __restrict__ x, const Item& it,
                                          const TileOrigin& t, uint4 (&v)[2]) {
  int img, rg;
  column_segment(p, t, it.dseg, &img, &rg);
  const int x0 = it.x0, y = rg * kWgRows + it.iy;
  if (!it.live || img >= p.n || y >= p.h || x0 >= p.w) {
    v[0] = v[1] = make_uint4(0, 0, 0, 0);
    return;
  }
  const T* src = x + static_cast<int64_t>(img) * p.image_elems + rg * p.rg_elems + it.off;
  if (p.aligned16 && x0 + 16 <= p.w) {
    v[0] = __ldg(reinterpret_cast<const uint4*>(src));
    v[1] = __ldg(reinterpret_cast<const uint4*>(src) + 1);
    return;
  }
  uint16_t e[16];
  const uint16_t* s16 = reinterpret_cast<const uint16_t*>(src);
#pragma unroll
  for (int i = 0; i < 16; ++i) e[i] = x0 + i < p.w ? s16[i] : uint16_t(0);
  uint32_t wd[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) wd[i] = e[2 * i] | (static_cast<uint32_t>(e[2 * i + 1]) << 16);
  v[0] = make_uint4(wd[0], wd[1], wd[2], wd[3]);
  v[1] = make_uint4(wd[4], wd[5], wd[6], wd[7]);
}

// The item's 8 columns: column n0 + s holds elements x0 + s .. x0 + s + 7 (taps 0..7), swizzled chunk cc ^ s.
__device__ __forceinline__ void build_item(unsigned char* buf, const Item& it, const uint4 (&v)[2]) {
  const uint32_t wd[8] = {v[0].x, v[0].y, v[0].z, v[0].w, v[1].x, v[1].y, v[1].z, v[1].w};
  unsigned char* row = buf + it.dst;
#pragma unroll
  for (int s = 0; s < 8; ++s) {
    const int k = s / 2;
    uint4 o;
    if (s % 2 == 0) {
      o = make_uint4(wd[k], wd[k + 1], wd[k + 2], wd[k + 3]);
    } else {
      o = make_uint4(__byte_perm(wd[k], wd[k + 1], 0x5432), __byte_perm(wd[k + 1], wd[k + 2], 0x5432),
                     __byte_perm(wd[k + 2], wd[k + 3], 0x5432), __byte_perm(wd[k + 3], wd[k + 4], 0x5432));
    }
    *reinterpret_cast<uint4*>(row + s * 128 + ((it.cc ^ s) << 4)) = o;
  }
}

}  // namespace wg

// KS: the k-steps the A fragments are compiled for (p.ks rounded up to 4: the ones past p.ks multiply zero weights
// by never-written, zeroed chunks inside the buffer); PS: the pool.
template <class Cfg, class T, class TOut, int KS, int PS>
__global__ void __launch_bounds__(128, Cfg::kMinBlocks)
    fused_conv_wgmma_kernel(const WgmmaPlan p, const T* __restrict__ x, const uint4* __restrict__ wfrag,
                            const float* __restrict__ bias, TOut* __restrict__ y) {
  constexpr int NI = (KS * 16 + 127) / 128;  // build items per thread (KS x 2 chunks x 8 column groups / 128)
  extern __shared__ unsigned char smem_raw[];
  // 1024-byte aligned (the swizzle's atoms), by pointer arithmetic on the shared array (its stores stay STS)
  unsigned char* smem = smem_raw + ((1024 - (dev::smem_addr(smem_raw) & 1023)) & 1023);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, q = lane & 3;

  uint32_t a[KS][4];
#pragma unroll
  for (int s = 0; s < KS; ++s) {
    const uint4 f = s < p.ks ? __ldg(wfrag + s * 128 + tid) : make_uint4(0, 0, 0, 0);
    a[s][0] = f.x, a[s][1] = f.y, a[s][2] = f.z, a[s][3] = f.w;
  }
  // The buffers zeroed once: K chunks past kc (an odd count) are never written and must read as zero.
  for (int i = tid * 16; i < Cfg::kStages * p.buf_bytes; i += 128 * 16)
    *reinterpret_cast<uint4*>(smem + i) = make_uint4(0, 0, 0, 0);

  wg::Item items[NI];
#pragma unroll
  for (int j = 0; j < NI; ++j) {
    const int i = tid + 128 * j;
    wg::Item& it = items[j];
    it.live = i < p.kc * 8;
    const int kc = it.live ? i % p.kc : 0, nb = it.live ? i / p.kc : 0;
    const int ci = kc / p.iy;
    it.iy = kc - ci * p.iy;
    it.x0 = (nb * 8) & ((1 << p.lxw) - 1);
    it.dseg = (nb * 8) >> p.lxw;
    it.off = (ci * p.h + it.iy) * p.w + it.x0;
    it.cc = kc & 7;
    it.dst = (kc >> 3) * kWgBlock + nb * 8 * 128;
  }
  float bias_v[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int co = 4 * warp + 2 * h + (g >> 2);
    bias_v[h] = co < p.k ? bias[co] : 0.f;
  }
  __syncthreads();

  int tile = blockIdx.x;
  uint4 v[NI][2];
  if (tile < p.tiles) {
#pragma unroll
    for (int j = 0; j < NI; ++j) wg::load_item(p, x, items[j], wg::tile_origin(p, tile), v[j]);
    if constexpr (Cfg::kStages == 2) {
#pragma unroll
      for (int j = 0; j < NI; ++j)
        if (items[j].live) wg::build_item(smem, items[j], v[j]);
    }
  }
  if constexpr (Cfg::kStages == 2) {
    wg::fence_proxy_async();
    __syncthreads();
  }

  const uint64_t desc_a = wg::desc_sw128(dev::smem_addr(smem)),
                 desc_b = wg::desc_sw128(dev::smem_addr(smem + p.buf_bytes));
  float d[32];
  for (int it = 0; tile < p.tiles; ++it, tile += gridDim.x) {
    unsigned char* cur = smem + (Cfg::kStages == 2 ? (it & 1) * p.buf_bytes : 0);
    unsigned char* nxt = smem + ((it & 1) ^ 1) * p.buf_bytes;
    const int next = tile + gridDim.x;
    if constexpr (Cfg::kStages == 1) {  // one buffer: this tile's B from the registers loaded under the last tile
#pragma unroll
      for (int j = 0; j < NI; ++j)
        if (items[j].live) wg::build_item(cur, items[j], v[j]);
      wg::fence_proxy_async();
      __syncthreads();
    }
    uint64_t desc0 = Cfg::kStages == 2 && (it & 1) ? desc_b : desc_a;
    asm volatile("" : "+l"(desc0));  // one 64-bit add per k-step below, not the descriptor rebuilt from an address
    wg::fence();
#pragma unroll
    for (int s = 0; s < KS; ++s)  // k-steps past p.ks: zero weights and zero B chunks (inside the buffer)
      wg::mma_m64n64k16<T>(d, a[s], desc0 + (((s >> 2) * kWgBlock + (s & 3) * 32) >> 4), s > 0);
    wg::commit();
    // The next tile's loads after the products are issued: issued before, the wgmma fence waited for them.
    if (next < p.tiles) {
      const wg::TileOrigin on = wg::tile_origin(p, next);
#pragma unroll
      for (int j = 0; j < NI; ++j) wg::load_item(p, x, items[j], on, v[j]);
    }
    if (Cfg::kStages == 2 && next < p.tiles) {
#pragma unroll
      for (int j = 0; j < NI; ++j)
        if (items[j].live) wg::build_item(nxt, items[j], v[j]);
    }
    wg::wait_all();
    wg::pin(d);

    // Epilogue. d[4j + e]: row g + 8 (e >> 1) of the warp's 16 (conv row g & 3; channel 4 warp + g / 4 + 2 (e >> 1)),
    // column 8j + 2q + (e & 1). The columns of a pool window: in the lane (2) and across lanes q ^ 1 (4); its rows
    // across lanes g ^ 1 (lane bit 2) and g ^ 2 (bit 3). Value v = 2j + h; each shuffle stage halves the values a
    // lane holds (reduce-scatter: a lane keeps the half whose value bit matches its lane bit, sends the other).
    float m1[16];
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) m1[2 * j + h] = nan_max(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
    const int b0 = lane & 1, b2 = (lane >> 2) & 1, b3 = (lane >> 3) & 1;
    float m2[8];
    const int bs = PS == 4 ? b0 : b2;  // the first stage: columns (4) or rows (2)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const float send = bs ? m1[i] : m1[i | 8], keep = bs ? m1[i | 8] : m1[i];
      m2[i] = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, PS == 4 ? 1 : 4));
    }
    const wg::TileOrigin org = wg::tile_origin(p, tile);
    auto store = [&](int o, int row, int h, float val) {  // o: the window's first column in the tile
      int img, rg;
      wg::column_segment(p, org, o >> p.lxw, &img, &rg);
      const int px = (o & ((1 << p.lxw) - 1)) / PS, py = (rg * kWgRows + row) / PS;
      const int co = 4 * warp + 2 * h + (g >> 2);
      if (img < p.n && py < p.ph && px < p.pw && co < p.k)
        y[((static_cast<int64_t>(img) * p.k + co) * p.ph + py) * p.pw + px] =
            from_float<TOut>(nan_relu(val + bias_v[h]));
    };
    if constexpr (PS == 4) {
      float m3[4], m4[2];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float send = b2 ? m2[i] : m2[i | 4], keep = b2 ? m2[i | 4] : m2[i];
        m3[i] = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, 4));
      }
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const float send = b3 ? m3[i] : m3[i | 2], keep = b3 ? m3[i | 2] : m3[i];
        m4[i] = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, 8));
      }
      const int js = 4 * b0 + 2 * b2 + b3;  // the lane's j; window columns 8 js + 4 (q >> 1) ..
      store(8 * js + 2 * (q & 2), 0, 0, m4[0]);
      store(8 * js + 2 * (q & 2), 0, 1, m4[1]);
    } else {  // j = 4 b2 + i / 2, h = i & 1; rows g & 2, g & 2 + 1
#pragma unroll
      for (int i = 0; i < 8; ++i) store(8 * (4 * b2 + i / 2) + 2 * q, g & 2, i & 1, m2[i]);
    }
    if constexpr (Cfg::kStages == 2) wg::fence_proxy_async();  // the next buffer, built above
    __syncthreads();  // every warp's part of this tile's products done: its buffer may be written again
  }
}

template <class Cfg, class T, class TOut, int KS>
cudaError_t launch_wgmma_ks(const WgmmaPlan& p, const T* x, const uint4* w, const float* bias, TOut* y,
                            cudaStream_t stream) {
  auto kernel = p.ps == 4 ? fused_conv_wgmma_kernel<Cfg, T, TOut, KS, 4> : fused_conv_wgmma_kernel<Cfg, T, TOut, KS, 2>;
  const int smem_bytes = Cfg::kStages * p.buf_bytes + 1024;
  return launch_persistent(kernel, 128, smem_bytes, p.tiles, stream, p, x, w, bias, y);
}

// T: the product's 16-bit type (the input's type too); weights from wgmma_pack_weights<T>.
template <class Cfg, class T, class TOut>
cudaError_t launch_fused_conv_wgmma(const WgmmaPlan& plan, const T* x, const void* packed_w, const float* bias, TOut* y,
                                    cudaStream_t stream) {
  const uint4* w = static_cast<const uint4*>(packed_w);
  WgmmaPlan p = plan;  // 16-byte loads only from a 16-byte-aligned input
  p.aligned16 = p.aligned16 && reinterpret_cast<uintptr_t>(x) % 16 == 0;
  if (p.ks <= 4) return launch_wgmma_ks<Cfg, T, TOut, 4>(p, x, w, bias, y, stream);
  if (p.ks <= 8) return launch_wgmma_ks<Cfg, T, TOut, 8>(p, x, w, bias, y, stream);
  if (p.ks <= 12) return launch_wgmma_ks<Cfg, T, TOut, 12>(p, x, w, bias, y, stream);
  if (p.ks <= 16) return launch_wgmma_ks<Cfg, T, TOut, 16>(p, x, w, bias, y, stream);
  if (p.ks <= 20) return launch_wgmma_ks<Cfg, T, TOut, 20>(p, x, w, bias, y, stream);
  return launch_wgmma_ks<Cfg, T, TOut, 24>(p, x, w, bias, y, stream);
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv

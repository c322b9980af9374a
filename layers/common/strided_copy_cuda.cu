// Strided N-d copy on the device.
//
// The box is first simplified on the host (size-1 dims dropped, contiguous neighbours merged; shared with the
// CPU copy). Then:
//  - one contiguous run: cudaMemcpyAsync;
//  - rows contiguous on both sides: elements are widened to 16, 8 or 4 bytes where sizes and alignment allow,
//    so each thread moves one 16-byte unit;
//  - a transpose-like box (the source is contiguous along some other dim than the destination's last one):
//    32x32 tiles through shared memory, block (32, 8); reads coalesced along the source's contiguous dim, writes
//    along the destination's; grid z walks the outer dims;
//  - anything else: one thread per element of the box (grid-stride), offsets from a divide chain over up to
//    kMaxDims dims in 32-bit arithmetic when everything fits. Writes are coalesced when the destination is
//    contiguous innermost, which is the usual case.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "engine/core/error.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/strided_copy.h"
#include "layers/common/strided_copy_cuda.h"

namespace ie::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;

template <class U, class I>
__global__ void copy_strided_kernel(U* dst, const U* src, I n, StridedMap<I, 2> map) {
  for (I i = grid_start<I>(); i < n; i += grid_step<I>()) {
    I off[2];
    map.offsets(i, off);
    dst[off[0]] = src[off[1]];
  }
}

// Box [outer..., rows, cols]: src is contiguous along rows, dst along cols.
template <class U, class I>
__global__ void copy_tiled_kernel(U* dst, const U* src, I rows, I cols, I dst_row, I src_col, I outer_n,
                                  StridedMap<I, 2> outer) {
  __shared__ U tile[kTile][kTile + 1];
  const I r0 = static_cast<I>(blockIdx.y) * kTile, c0 = static_cast<I>(blockIdx.x) * kTile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (I o = blockIdx.z; o < outer_n; o += gridDim.z) {
    I off[2];
    outer.offsets(o, off);
#pragma unroll
    for (int j = 0; j < kTile; j += kTileRows) {
      const I r = r0 + tx, c = c0 + ty + j;
      if (r < rows && c < cols) tile[ty + j][tx] = src[off[1] + r + c * src_col];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kTile; j += kTileRows) {
      const I r = r0 + ty + j, c = c0 + tx;
      if (r < rows && c < cols) dst[off[0] + r * dst_row + c] = tile[tx][ty + j];
    }
    __syncthreads();
  }
}

template <class U, class I>
void launch_strided(const StridedBox& b, void* dst, const void* src, cudaStream_t stream) {
  const int64_t n = numel_range(b.shape, 0, b.shape.size());
  StridedMap<I, 2> map;
  const std::vector<int64_t>* lists[2] = {&b.dst, &b.src};
  make_strided_map(b.shape, lists, map);
  copy_strided_kernel<U, I>
      <<<grid_for(n), kThreads, 0, stream>>>(static_cast<U*>(dst), static_cast<const U*>(src), static_cast<I>(n), map);
  IE_CUDA_CHECK_LAUNCH();
}

template <class U, class I>
void launch_tiled(const StridedBox& b, void* dst, const void* src, cudaStream_t stream) {
  const size_t r = b.shape.size();
  StridedBox outer{Shape(b.shape.begin(), b.shape.end() - 2), std::vector<int64_t>(b.dst.begin(), b.dst.end() - 2),
                   std::vector<int64_t>(b.src.begin(), b.src.end() - 2)};
  StridedMap<I, 2> map;
  const std::vector<int64_t>* lists[2] = {&outer.dst, &outer.src};
  make_strided_map(outer.shape, lists, map);
  const int64_t rows = b.shape[r - 2], cols = b.shape[r - 1];
  const int64_t outer_n = numel_range(outer.shape, 0, outer.shape.size());
  dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile),
            static_cast<unsigned>(std::min<int64_t>(outer_n, 65535)));
  copy_tiled_kernel<U, I><<<grid, dim3(kTile, kTileRows), 0, stream>>>(
      static_cast<U*>(dst), static_cast<const U*>(src), static_cast<I>(rows), static_cast<I>(cols),
      static_cast<I>(b.dst[r - 2]), static_cast<I>(b.src[r - 1]), static_cast<I>(outer_n), map);
  IE_CUDA_CHECK_LAUNCH();
}

// Reorders the box for the tiled kernel when it applies: dst contiguous innermost, src contiguous along another
// dim, both tile dims big enough to matter. The chosen dim moves next to the innermost one.
bool as_tiled(StridedBox& b) {
  const size_t r = b.shape.size();
  if (r < 2 || b.dst[r - 1] != 1 || std::abs(b.src[r - 1]) <= 1 || b.shape[r - 1] < 8) return false;
  for (size_t k = 0; k + 1 < r; ++k) {
    if (b.src[k] != 1 || b.shape[k] < 8) continue;
    std::swap(b.shape[k], b.shape[r - 2]);
    std::swap(b.dst[k], b.dst[r - 2]);
    std::swap(b.src[k], b.src[r - 2]);
    return (b.shape[r - 2] + kTile - 1) / kTile <= 65535;
  }
  return false;
}

// Widens elements of rows contiguous on both sides to `wide` bytes when every size, stride and pointer allows.
bool widen(StridedBox& b, size_t& elem, size_t wide, const void* dst, const void* src) {
  const size_t r = b.shape.size();
  if (wide <= elem || r == 0 || b.dst[r - 1] != 1 || b.src[r - 1] != 1) return false;
  const int64_t k = static_cast<int64_t>(wide / elem);
  if (b.shape[r - 1] % k != 0 || !aligned_to(dst, wide) || !aligned_to(src, wide)) return false;
  for (size_t d = 0; d + 1 < r; ++d)
    if (b.dst[d] % k != 0 || b.src[d] % k != 0) return false;
  b.shape[r - 1] /= k;
  for (size_t d = 0; d + 1 < r; ++d) {
    b.dst[d] /= k;
    b.src[d] /= k;
  }
  elem = wide;
  return true;
}

template <class Fn>
void dispatch_unit(size_t size, Fn&& fn) {
  if (size == 16) return fn(DevTag<uint4>{});
  if (!dispatch_bytes(size, fn)) fail(ErrorKind::Usage, "strided_copy (CUDA): unsupported element size ", size);
}

// Largest |offset| reachable in either view, to pick 32-bit indexing.
int64_t extent(const StridedBox& b) {
  int64_t e = numel_range(b.shape, 0, b.shape.size());
  for (size_t d = 0; d < b.shape.size(); ++d)
    e = std::max({e, std::abs(b.dst[d]) * b.shape[d], std::abs(b.src[d]) * b.shape[d]});
  return e;
}

void copy_box(size_t elem, StridedBox b, char* dst, const char* src, cudaStream_t stream) {
  const size_t r = b.shape.size();
  if (r == 0 || (r == 1 && b.dst[0] == 1 && b.src[0] == 1)) {
    const size_t n = r == 0 ? 1 : static_cast<size_t>(b.shape[0]);
    IE_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * elem, cudaMemcpyDeviceToDevice, stream));
    return;
  }
  if (static_cast<int>(r) > kMaxDims) {
    // Too many dims for one map: one launch per index of the outermost dim.
    StridedBox rest{Shape(b.shape.begin() + 1, b.shape.end()), std::vector<int64_t>(b.dst.begin() + 1, b.dst.end()),
                    std::vector<int64_t>(b.src.begin() + 1, b.src.end())};
    for (int64_t i = 0; i < b.shape[0]; ++i)
      copy_box(elem, rest, dst + i * b.dst[0] * static_cast<int64_t>(elem),
               src + i * b.src[0] * static_cast<int64_t>(elem), stream);
    return;
  }
  const bool small = fits_int32(extent(b));
  if (as_tiled(b)) {
    dispatch_unit(elem, [&](auto tag) {
      using U = typename decltype(tag)::type;
      small ? launch_tiled<U, int32_t>(b, dst, src, stream) : launch_tiled<U, int64_t>(b, dst, src, stream);
    });
    return;
  }
  for (size_t wide : {size_t(16), size_t(8), size_t(4)})
    if (widen(b, elem, wide, dst, src)) break;
  dispatch_unit(elem, [&](auto tag) {
    using U = typename decltype(tag)::type;
    small ? launch_strided<U, int32_t>(b, dst, src, stream) : launch_strided<U, int64_t>(b, dst, src, stream);
  });
}

}  // namespace

void strided_copy(size_t elem_size, const Shape& shape, void* dst, const std::vector<int64_t>& dst_strides,
                  const void* src, const std::vector<int64_t>& src_strides, cudaStream_t stream) {
  for (int64_t s : shape)
    if (s == 0) return;
  copy_box(elem_size, simplify_box(shape, dst_strides, src_strides), static_cast<char*>(dst),
           static_cast<const char*>(src), stream);
}

}  // namespace ie::cuda

// Broadcasting binary ops on the device (Add, Less, Pow ...), written once over an op functor.
//
// The broadcast plan comes from plan_broadcast() at plan time (dims merged, stride 0 where broadcast), so the
// common cases arrive as one merged dim:
//  - same shape: each thread loads one 16-byte pack of each input (grid-stride over packs, scalar tail);
//  - one input a single element: it is read once per thread, the other moves in 16-byte packs;
//  - anything else: one thread per output element, input offsets from the divide chain over the merged dims
//    (32-bit when the output has fewer than 2^31 elements). A row broadcast ([R, N] + [N]) is two merged dims.
// Unaligned pointers take the strided kernel. The functor sees dev_compute_t values (float for __half).
#pragma once

#include <memory>

#include "layers/common/broadcast_plan.h"
#include "layers/common/cuda_util.cuh"

namespace ie::cuda {

// kMoves: 3 = both inputs move, 1 = only a moves (b is one element), 2 = only b moves.
template <class TA, class TB, class TO, int N, int kMoves, class Op>
__global__ void binary_packed_kernel(const TA* a, const TB* b, TO* out, int64_t n, Op op) {
  using CA = dev_compute_t<TA>;
  using CB = dev_compute_t<TB>;
  const int64_t packs = n / N;
  for (int64_t p = grid_start<int64_t>(); p < packs; p += grid_step<int64_t>()) {
    Pack<TA, N> va;
    Pack<TB, N> vb;
    if constexpr (kMoves & 1) va = reinterpret_cast<const Pack<TA, N>*>(a)[p];
    if constexpr (kMoves & 2) vb = reinterpret_cast<const Pack<TB, N>*>(b)[p];
    Pack<TO, N> vo;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const CA x = convert<CA>((kMoves & 1) ? va.v[k] : a[0]);
      const CB y = convert<CB>((kMoves & 2) ? vb.v[k] : b[0]);
      vo.v[k] = convert<TO>(op(x, y));
    }
    reinterpret_cast<Pack<TO, N>*>(out)[p] = vo;
  }
  for (int64_t i = packs * N + grid_start<int64_t>(); i < n; i += grid_step<int64_t>()) {
    const CA x = convert<CA>(a[(kMoves & 1) ? i : 0]);
    const CB y = convert<CB>(b[(kMoves & 2) ? i : 0]);
    out[i] = convert<TO>(op(x, y));
  }
}

template <class TA, class TB, class TO, class I, class Op>
__global__ void binary_strided_kernel(const TA* a, const TB* b, TO* out, I n, StridedMap<I, 2> map, Op op) {
  for (I i = grid_start<I>(); i < n; i += grid_step<I>()) {
    I off[2];
    map.offsets(i, off);
    out[i] = convert<TO>(op(convert<dev_compute_t<TA>>(a[off[0]]), convert<dev_compute_t<TB>>(b[off[1]])));
  }
}

/// Launches out = op(a, b) for a plan made by plan_broadcast({a.shape, b.shape}, out.shape).
template <class TA, class TB, class TO, class Op>
void launch_binary(const BroadcastPlan& plan, const TA* a, const TB* b, TO* out, Op op, cudaStream_t stream) {
  const int64_t n = plan.numel;
  if (n == 0) return;
  constexpr int N = pack_of<TA>() < pack_of<TB>() ? pack_of<TA>() : pack_of<TB>();
  if (plan.dims.size() == 1) {
    const bool ma = plan.strides[0][0] != 0, mb = plan.strides[1][0] != 0;
    const bool ok = (!ma || aligned_to(a, sizeof(TA) * N)) && (!mb || aligned_to(b, sizeof(TB) * N)) &&
                    aligned_to(out, sizeof(TO) * N);
    if (ok && (ma || mb)) {
      const unsigned grid = grid_for((n + N - 1) / N);
      if (ma && mb)
        binary_packed_kernel<TA, TB, TO, N, 3><<<grid, kThreads, 0, stream>>>(a, b, out, n, op);
      else if (ma)
        binary_packed_kernel<TA, TB, TO, N, 1><<<grid, kThreads, 0, stream>>>(a, b, out, n, op);
      else
        binary_packed_kernel<TA, TB, TO, N, 2><<<grid, kThreads, 0, stream>>>(a, b, out, n, op);
      IE_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  const std::vector<int64_t>* lists[2] = {&plan.strides[0], &plan.strides[1]};
  if (fits_int32(n)) {
    StridedMap<int32_t, 2> map;
    make_strided_map(plan.dims, lists, map);
    binary_strided_kernel<<<grid_for(n), kThreads, 0, stream>>>(a, b, out, static_cast<int32_t>(n), map, op);
  } else {
    StridedMap<int64_t, 2> map;
    make_strided_map(plan.dims, lists, map);
    binary_strided_kernel<<<grid_for(n), kThreads, 0, stream>>>(a, b, out, n, map, op);
  }
  IE_CUDA_CHECK_LAUNCH();
}

/// Kernel for one type combination; the plan is made once here. nullptr when the merged rank exceeds kMaxDims.
template <class TA, class TB, class TO, class Op>
std::unique_ptr<Kernel> make_binary_cuda(const KernelInit& init, Op op) {
  BroadcastPlan plan = plan_broadcast({init.inputs[0].shape, init.inputs[1].shape}, init.outputs[0].shape);
  if (static_cast<int>(plan.dims.size()) > kMaxDims) return nullptr;
  return make_kernel([plan, op](KernelContext& ctx) {
    launch_binary(plan, ctx.inputs[0].as<const TA>(), ctx.inputs[1].as<const TB>(), ctx.outputs[0].as<TO>(), op,
                  stream_of(ctx));
  });
}

}  // namespace ie::cuda

// ie.Attention (see attention_setup.h): shape inference and the CPU kernel. The CPU kernel is also the reference
// the CUDA kernel is checked against: RoPE, the scores, the softmax and the product with v in the compute type
// (float for float16/bfloat16 storage), one (batch, head) pair at a time.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/attention/attention_setup.h"
#include "layers/common/activation.h"
#include "layers/common/compute_type.h"
#include "layers/common/gemm.h"

namespace ie {

AttentionSetup resolve_attention(const Node& node, const std::vector<Shape>& in) {
  const std::string label = node.label();
  if (in.size() < 3) fail_input(label, ": expected inputs q, k and v");
  AttentionSetup s;
  s.projection = node.attrs.get_int("projection", 0) != 0;
  const Shape& q = in[0];
  if (q.size() != 3)
    fail_input(label, ": ", s.projection ? "x" : "q", " must be [batch, sequence, width], got ", shape_to_string(q));
  s.batch = q[0];
  s.seq = q[1];
  if (s.projection) {
    s.k = q[2];
    if (in[1].size() != 2 || in[1][0] != s.k || in[1][1] % 3 != 0)
      fail_input(label, ": w ", shape_to_string(in[1]), " must be [", s.k, ", 3 * embedding]");
    s.embed = in[1][1] / 3;
    if (in[2] != Shape{3 * s.embed})
      fail_input(label, ": bias ", shape_to_string(in[2]), " must be [", 3 * s.embed, "]");
  } else {
    for (size_t i = 1; i < 3; ++i)
      if (in[i] != q)
        fail_input(label, ": input ", i, " ", shape_to_string(in[i]), " must have q's shape ", shape_to_string(q));
    s.embed = q[2];
  }
  s.heads = node.attrs.get_int("heads", 0);
  if (s.heads <= 0 || s.embed % s.heads != 0)
    fail_input(label, ": heads = ", s.heads, " must be positive and divide the embedding width ", s.embed);
  s.dim = s.embed / s.heads;
  s.scale = node.attrs.get_float("scale", 1.f);
  const std::string rope = node.attrs.get_string("rope", "none");
  if (rope == "none")
    s.rope = RopeMode::None;
  else if (rope == "interleaved")
    s.rope = RopeMode::Interleaved;
  else
    fail_input(label, ": rope must be \"none\" or \"interleaved\", got \"", rope, "\"");
  if (s.rope != RopeMode::None) {
    if (s.dim % 2 != 0) fail_input(label, ": RoPE needs an even head dim, got ", s.dim);
    const Shape table = {s.seq, s.dim / 2};
    if (in.size() < 5) fail_input(label, ": RoPE needs inputs cos and sin of shape ", shape_to_string(table));
    for (size_t i = 3; i < 5; ++i)
      if (in[i] != table)
        fail_input(label, ": input ", i, " ", shape_to_string(in[i]), " must be the table ", shape_to_string(table));
  }
  return s;
}

AttentionSetup resolve_attention(const Node& node, const std::vector<TensorInfo>& inputs) {
  std::vector<Shape> shapes;
  for (const TensorInfo& info : inputs) {
    if (info.dtype == DType::Undefined) break;
    shapes.push_back(info.shape);
  }
  return resolve_attention(node, shapes);
}

namespace {

void infer_attention(InferContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) break;
    shapes.push_back(ctx.input(i).shape);
  }
  const TensorInfo& q = ctx.input(0);
  ctx.expect(is_float(q.dtype), "q must be a float tensor, got ", dtype_name(q.dtype));
  ctx.expect(ctx.input(1).dtype == q.dtype && ctx.input(2).dtype == q.dtype,
             "q, k and v (x, w and bias) must share one type");
  const AttentionSetup s = resolve_attention(ctx.node(), shapes);
  if (s.rope != RopeMode::None)
    for (size_t i = 3; i < 5; ++i) ctx.expect(is_float(ctx.input(i).dtype), "the RoPE tables must be float tensors");
  ctx.set_output(0, q.dtype, {s.batch, s.seq, s.embed});
}

// Scores: 2 D flops per pair, the softmax about 4 per pair, the product with v 2 D per pair; RoPE 6 per element;
// the projections 2 K per output of x w.
OpCost attention_cost(const Node& node, const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs) {
  const AttentionSetup s = resolve_attention(node, inputs);
  const double pairs = static_cast<double>(s.batch) * s.heads * s.seq * s.seq;
  const double rope = s.rope == RopeMode::None ? 0.0 : 6.0 * 2 * s.batch * s.seq * s.embed;
  const double projection = s.projection ? 2.0 * s.batch * s.seq * s.k * 3 * s.embed : 0.0;
  return {pairs * (4.0 * s.dim + 4) + rope + projection, io_bytes(inputs, outputs)};
}

// Rotates the pairs (2i, 2i+1) of one head's row at position `pos`.
template <class C>
void rotate(C* row, int64_t dim, const C* cos, const C* sin, int64_t pos) {
  for (int64_t i = 0; i < dim / 2; ++i) {
    const C c = cos[pos * (dim / 2) + i], sn = sin[pos * (dim / 2) + i];
    const C x0 = row[2 * i], x1 = row[2 * i + 1];
    row[2 * i] = x0 * c - x1 * sn;
    row[2 * i + 1] = x0 * sn + x1 * c;
  }
}

// Lanes of the CPU kernel's register blocks: sums are kept in Eigen arrays of 8 (a vector register) rather than in
// memory, where each product's add waited for the previous one's store (a plain array of 8 compiled to 8 scalar
// registers).
constexpr int64_t kLanes = 8;
inline int64_t round_to_lanes(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }
template <class C>
using Lanes = Eigen::Array<C, kLanes, 1>;
template <class C>
using LanesAt = Eigen::Map<const Lanes<C>>;  // 8 values anywhere (unaligned loads)

// One batch element's attention: q, k, v rows of `ld` elements of type Src (the inputs, or the float products of
// the projection), heads rotated and attended one at a time, y's rows written in T. Per head, k is held transposed
// and v with rows padded to whole blocks of 8 (zeros), so that a query row's scores build up 8 keys at a time and
// its output 8 dims at a time in registers; every sum still adds its terms in the order of the reference loops
// (the head dim for a score, the keys for an output). The exponentials of all the head's scores run in one pass.
template <class T, class C, class Src>
void attend_element(const AttentionSetup& s, const Src* q, const Src* k, const Src* v, int64_t ld, const C* cos,
                    const C* sin, T* y, ComputeBuffer<C>& scratch) {
  const int64_t S = s.seq, D = s.dim, Sp = round_to_lanes(S), Dp = round_to_lanes(D);
  const int64_t Pp = round_to_lanes(S * S);
  scratch.assign(Pp + 2 * S * D + D * Sp + S * Dp, C(0));
  C* p = scratch.data();  // [S, S] scores, then their exponentials: aligned, whole packets
  C* qh = p + Pp;
  C* kh = qh + S * D;
  C* kt = kh + S * D;   // [D, Sp]
  C* vh = kt + D * Sp;  // [S, Dp]
  const C scale = static_cast<C>(s.scale);
  for (int64_t h = 0; h < s.heads; ++h) {
    for (int64_t r = 0; r < S; ++r) {
      for (int64_t d = 0; d < D; ++d) {
        qh[r * D + d] = static_cast<C>(q[r * ld + h * D + d]);
        kh[r * D + d] = static_cast<C>(k[r * ld + h * D + d]);
        vh[r * Dp + d] = static_cast<C>(v[r * ld + h * D + d]);
      }
      if (cos) {
        rotate(&qh[r * D], D, cos, sin, r);
        rotate(&kh[r * D], D, cos, sin, r);
      }
      for (int64_t d = 0; d < D; ++d) kt[d * Sp + r] = kh[r * D + d];
    }
    for (int64_t i = 0; i < S; ++i) {
      C* pi = p + i * S;
      for (int64_t j0 = 0; j0 < S; j0 += kLanes) {
        Lanes<C> a = Lanes<C>::Zero();
        for (int64_t d = 0; d < D; ++d) a += qh[i * D + d] * LanesAt<C>(kt + d * Sp + j0);
        for (int64_t l = 0; l < kLanes && j0 + l < S; ++l) pi[j0 + l] = a[l] * scale;
      }
      C top = -std::numeric_limits<C>::infinity();
      for (int64_t j = 0; j < S; ++j) top = std::max(top, pi[j]);
      for (int64_t j = 0; j < S; ++j) pi[j] = pi[j] - top;
    }
    // The exponentials of every row at once, in whole aligned packets (the padding's exponentials are unused), so
    // every value takes Eigen's packet exp (std::exp one at a time dominated the kernel).
    if constexpr (std::is_same_v<C, float>) {
      Eigen::Map<Eigen::Array<float, Eigen::Dynamic, 1>, Eigen::AlignedMax> all(p, Pp);
      all = all.exp();
    } else {
      for (int64_t j = 0; j < S * S; ++j) p[j] = std::exp(p[j]);
    }
    for (int64_t i = 0; i < S; ++i) {
      const C* pi = p + i * S;
      C sum = 0;
      for (int64_t j = 0; j < S; ++j) sum += pi[j];
      T* out = y + i * s.embed + h * D;
      for (int64_t d0 = 0; d0 < D; d0 += kLanes) {
        Lanes<C> a = Lanes<C>::Zero();
        for (int64_t j = 0; j < S; ++j) a += pi[j] * LanesAt<C>(vh + j * Dp + d0);
        for (int64_t l = 0; l < kLanes && d0 + l < D; ++l) out[d0 + l] = static_cast<T>(a[l] / sum);
      }
    }
  }
}

std::unique_ptr<Kernel> make_attention_cpu(const KernelInit& init) {
  const AttentionSetup s = resolve_attention(init.node, init.inputs);
  const DType t = init.inputs[0].dtype;
  return dispatch_float(t, "ie.Attention", [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    using C = ComputeOf<T>;
    WeightInput<C> cos_in(init, 3), sin_in(init, 4), w_in(init, 1), bias_in(init, 2);
    return make_kernel([s, cos_in, sin_in, w_in, bias_in](KernelContext& ctx) {
      ComputeBuffer<C> cs, ss, ws, bs;
      const C* cos = s.rope == RopeMode::None ? nullptr : cos_in.get(ctx, cs);
      const C* sin = s.rope == RopeMode::None ? nullptr : sin_in.get(ctx, ss);
      const C* w = s.projection ? w_in.get(ctx, ws) : nullptr;
      const C* bias = s.projection ? bias_in.get(ctx, bs) : nullptr;
      T* y = ctx.outputs[0].as<T>();
      const int64_t S = s.seq, E = s.embed;
      // Blocks of elements: the projection of a block's rows is one matrix product (Eigen), its q | k | v rows
      // stay in cache for the attention that follows. (Static chunks: the same blocks on every run.)
      constexpr int64_t kBlock = 32;
      parallel_for(s.batch, kBlock, [&](int64_t begin, int64_t end) {
        ComputeBuffer<C> scratch, qkv, wide;  // Eigen's product reads and writes them
        for (int64_t b0 = begin; b0 < end; b0 += kBlock) {
          const int64_t b1 = std::min(end, b0 + kBlock);
          if (!s.projection) {
            for (int64_t b = b0; b < b1; ++b) {
              const T* q = ctx.inputs[0].as<const T>() + b * S * E;
              const T* k = ctx.inputs[1].as<const T>() + b * S * E;
              const T* v = ctx.inputs[2].as<const T>() + b * S * E;
              attend_element<T, C>(s, q, k, v, E, cos, sin, y + b * S * E, scratch);
            }
            continue;
          }
          // q | k | v = x w + bias for the block's rows, in the compute type.
          const int64_t rows = (b1 - b0) * S, n = 3 * E;
          const T* x = ctx.inputs[0].as<const T>() + b0 * S * s.k;
          const C* xc = nullptr;
          if constexpr (std::is_same_v<T, C>) {
            xc = x;
          } else {
            wide.resize(rows * s.k);
            for (int64_t i = 0; i < rows * s.k; ++i) wide[i] = static_cast<C>(x[i]);
            xc = wide.data();
          }
          qkv.resize(rows * n);
          gemm<C>(false, false, rows, n, s.k, C(1), xc, s.k, w, n, C(0), qkv.data(), n);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < n; ++c) qkv[r * n + c] += bias[c];
          for (int64_t b = b0; b < b1; ++b) {
            const C* e = qkv.data() + (b - b0) * S * n;
            attend_element<T, C>(s, e, e + E, e + 2 * E, n, cos, sin, y + b * S * E, scratch);
          }
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(attention) {
  // The RoPE tables stay float32 in the fp16 and bf16 modes: rounding cos and sin would move every rotated value.
  OpRegistry::get().add(
      OpDef("ie", "Attention", infer_attention).with_cost(attention_cost).with_fixed_type_inputs({3, 4}));
  OpRegistry::get().add_kernel("ie", "Attention", kernel_set::kCpu, make_attention_cpu);
}

}  // namespace ie

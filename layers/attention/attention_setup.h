// ie.Attention's geometry and attributes, shared by the CPU and CUDA kernels. The op is the planner's fusion of
// multi-head self-attention (layers/attention/attention_fusion.cpp):
//   inputs  q, k, v [B, S, E] (E = heads * D, head h in channels h*D .. h*D+D-1), optional cos, sin [S, D/2]
//   output  y [B, S, E]: per head softmax(scale * rope(q) rope(k)^T) v, heads merged back in the same layout
//   attrs   heads, scale, rope ("none" or "interleaved": pairs (2i, 2i+1) of a head rotated by the tables' row s
//           at position s, (x0, x1) -> (x0 cos - x1 sin, x0 sin + x1 cos))
// With attribute projection = 1 (rule attention_projection) the q, k and v projections are part of the node:
//   inputs  x [B, S, K], w [K, 3E] (the columns of Wq, then Wk, then Wv), bias [3E], optional cos, sin
//   q, k, v = the three E-column blocks of x w + bias; the rest as above.
#pragma once

#include "engine/registry/op_def.h"

namespace ie {

enum class RopeMode { None, Interleaved };

struct AttentionSetup {
  int64_t batch = 0, seq = 0, heads = 0, dim = 0, embed = 0;  // dim: per head; embed = heads * dim
  float scale = 1.f;
  RopeMode rope = RopeMode::None;
  bool projection = false;  // inputs x, w, bias instead of q, k, v
  int64_t k = 0;            // x's width when projected
};

/// Reads the attributes for inputs of shapes q, k, v (or x, w, bias when projected; then the tables' shapes when
/// rope is on); fails naming the node when the shapes do not fit together.
AttentionSetup resolve_attention(const Node& node, const std::vector<Shape>& inputs);
/// The same from the inputs' types and shapes, as kernel factories and cost functions see them (the list ends at
/// the first absent input).
AttentionSetup resolve_attention(const Node& node, const std::vector<TensorInfo>& inputs);

}  // namespace ie

// Attribute parsing and window geometry of the pooling ops, shared by their CPU and CUDA kernels.
#pragma once

#include "engine/registry/op_def.h"
#include "layers/common/window.h"

namespace ie {

enum class PoolKind { Max, Average, GlobalMax, GlobalAverage };

struct PoolSetup {
  PoolKind kind = PoolKind::Max;
  Window window;
  int64_t batch = 0, channels = 0;
  bool count_include_pad = false;
  bool col_major = false;  // MaxPool storage_order for Indices
};

inline PoolSetup resolve_pool(const Node& node, PoolKind kind, const TensorInfo& x) {
  if (x.shape.size() < 3)
    fail_input(node.label(), ": input X must be [N, C, spatial...] (rank >= 3), got ", shape_to_string(x.shape));
  PoolSetup s;
  s.kind = kind;
  s.batch = x.shape[0];
  s.channels = x.shape[1];
  Shape spatial(x.shape.begin() + 2, x.shape.end());
  if (kind == PoolKind::GlobalMax || kind == PoolKind::GlobalAverage) {
    // A global pool is a window as large as the input.
    Attributes attrs;
    attrs.set_ints("kernel_shape", spatial);
    s.window = resolve_window(attrs, "", spatial, {}, false, node.label());
  } else {
    s.window = resolve_window(node.attrs, "", spatial, {}, true, node.label());
  }
  s.count_include_pad = node.attrs.get_int("count_include_pad", 0) != 0;
  s.col_major = node.attrs.get_int("storage_order", 0) != 0;
  return s;
}

}  // namespace ie

// MatMul's shapes: numpy broadcasting of the batch dims and 1-D operands, shared by its CPU and CUDA kernels.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

struct MatMulSetup {
  int64_t m = 0, n = 0, k = 0;
  Shape batch;                       // broadcast batch dims of the output
  std::vector<int64_t> a_offset, b_offset;  // per output batch index: matrix index into A and B
  Shape out;
};

inline MatMulSetup resolve_matmul(const Node& node, Shape a, Shape b) {
  if (a.empty() || b.empty())
    fail_input(node.label(), ": MatMul operands must have rank >= 1, got ", shape_to_string(a), " and ",
               shape_to_string(b));
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulSetup s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  if (b[b.size() - 2] != s.k)
    fail_input(node.label(), ": inner dims differ: A ", shape_to_string(a), " has K = ", s.k, ", B ",
               shape_to_string(b), " has K = ", b[b.size() - 2]);
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  s.batch = broadcast_shapes(ab, bb, node.label() + " batch dims");
  s.out = s.batch;
  if (!a_vec) s.out.push_back(s.m);
  if (!b_vec) s.out.push_back(s.n);
  // Map each output batch index onto the (possibly broadcast) matrix indices of A and B.
  const size_t r = s.batch.size();
  ab.insert(ab.begin(), r - ab.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  const auto sa = strides_of(ab), sb = strides_of(bb);
  const int64_t total = numel_range(s.batch, 0, r);
  for (int64_t i = 0; i < total; ++i) {
    int64_t rem = i, oa = 0, ob = 0;
    for (size_t d = r; d-- > 0;) {
      const int64_t idx = rem % s.batch[d];
      rem /= s.batch[d];
      if (ab[d] != 1) oa += idx * sa[d];
      if (bb[d] != 1) ob += idx * sb[d];
    }
    s.a_offset.push_back(oa);
    s.b_offset.push_back(ob);
  }
  return s;
}

}  // namespace ie

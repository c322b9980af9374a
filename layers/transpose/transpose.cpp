// Transpose: permute the dims (reversed when 'perm' is absent). The copy is the shared strided one, which tiles
// transposes of the two innermost dims and coalesces the rest.
#include <numeric>

#include "engine/registry/op_def.h"
#include "layers/common/strided_copy.h"
#include "layers/transpose/transpose_setup.h"

namespace ie {

std::vector<int64_t> read_perm(const Node& node, size_t rank) {
  std::vector<int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (!node.attrs.has("perm")) return perm;
  perm = node.attrs.get_ints("perm");
  std::vector<bool> seen(rank, false);
  bool ok = perm.size() == rank;
  for (int64_t& p : perm) {
    if (p < 0) p += static_cast<int64_t>(rank);  // accepted as numpy does
    ok = ok && p >= 0 && p < static_cast<int64_t>(rank) && !seen[p];
    if (ok) seen[p] = true;
  }
  if (!ok)
    fail_input(node.label(), ": perm ", shape_to_string(node.attrs.get_ints("perm")), " is not a permutation of the ",
               rank, " input dims");
  return perm;
}

namespace {

void infer_transpose(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  std::vector<int64_t> perm = read_perm(ctx.node(), in.shape.size());
  Shape out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = in.shape[perm[i]];
  ctx.set_output(0, in.dtype, out);
}

std::unique_ptr<Kernel> make_transpose_cpu(const KernelInit& init) {
  std::vector<int64_t> perm = read_perm(init.node, init.inputs[0].shape.size());
  size_t elem = dtype_size(init.inputs[0].dtype);
  if (elem != 1 && elem != 2 && elem != 4 && elem != 8) return nullptr;
  return make_kernel([perm, elem](KernelContext& ctx) {
    permute_copy(elem, ctx.inputs[0].shape, perm, ctx.inputs[0].data, ctx.outputs[0].data);
  });
}

}  // namespace

IE_REGISTER_OPS(transpose) {
  OpRegistry::get().add(OpDef("", "Transpose", infer_transpose));
  OpRegistry::get().add_kernel("", "Transpose", kernel_set::kCpu, make_transpose_cpu);
}

}  // namespace ie

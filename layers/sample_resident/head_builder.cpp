#include "layers/sample_resident/head_builder.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace ie::sr {
namespace {

template <class... Args>
bool fail(std::string* why, const Args&... args) {
  std::ostringstream s;
  s << "not the head form: ";
  (s << ... << args);
  if (why) *why = s.str();
  return false;
}

int root_of(const ChainSpec& s, int t) {
  while (s.tensors[t].alias_of >= 0) t = s.tensors[t].alias_of;
  return t;
}

}  // namespace

bool build_head(const ChainSpec& spec, int rows, HeadBuilt* out, std::string* why) {
  if (spec.compute == Elem::F32) return fail(why, "the chain computes in float32");
  if (spec.ops.size() != 3 || spec.ops[0].op != OpCode::Linear || spec.ops[1].op != OpCode::Linear ||
      spec.ops[2].op != OpCode::Softmax)
    return fail(why, "not Linear, Linear, Softmax");
  const ChainOp &fc1 = spec.ops[0], &fc2 = spec.ops[1], &sm = spec.ops[2];
  const ChainTensor& x = spec.tensors[root_of(spec, fc1.in)];
  if (x.input != 0 || (x.global != spec.compute && x.global != Elem::F32))
    return fail(why, "the first product does not read the chain's input in the compute type or float32");
  if (spec.tensors[fc1.in].rows != 1 || spec.tensors[fc2.in].rows != 1 || spec.tensors[sm.in].rows != 1)
    return fail(why, "more than one row per sample");
  if (root_of(spec, fc2.in) != root_of(spec, fc1.out) || root_of(spec, sm.in) != root_of(spec, fc2.out))
    return fail(why, "the ops do not read one another's outputs");
  if (fc1.residual >= 0 || fc2.residual >= 0) return fail(why, "a residual");
  if (fc2.act != 0) return fail(why, "an activation on the second product");
  if (fc1.k % 8) return fail(why, "K = ", fc1.k, " (multiples of 8 run: 16-byte loads)");
  if (fc1.n > kHeadMaxHidden || fc2.n > kHeadMaxClasses)
    return fail(why, "hidden ", fc1.n, " (up to ", kHeadMaxHidden, ") or classes ", fc2.n, " (up to ", kHeadMaxClasses,
                ")");
  int outputs = 0, out_tensor = -1;
  for (size_t i = 0; i < spec.tensors.size(); ++i)
    if (spec.tensors[i].output >= 0) ++outputs, out_tensor = static_cast<int>(i);
  if (outputs != 1 || root_of(spec, out_tensor) != root_of(spec, sm.out) || spec.tensors[out_tensor].output != 0)
    return fail(why, "the output is not the softmax's alone");
  if (static_cast<int64_t>(fc1.w.size()) != static_cast<int64_t>(fc1.n) * fc1.k ||
      static_cast<int64_t>(fc2.w.size()) != static_cast<int64_t>(fc2.n) * fc2.k)
    return fail(why, "weights of another size than the products'");

  const Elem out_elem = spec.tensors[out_tensor].global;
  if (out_elem != Elem::F32 && out_elem != spec.compute)
    return fail(why, "an output in another 16-bit type than the compute type");
  HeadBuilt b;
  HeadModel& m = b.model;
  m.k = fc1.k, m.hidden = fc1.n, m.classes = fc2.n, m.act = fc1.act, m.rows = rows;
  m.out = out_elem;
  m.x_f32 = x.global == Elem::F32;
  b.weights = fc1.w;
  auto add = [&](const std::vector<float>& v, size_t n) {
    const int at = static_cast<int>(b.floats.size());
    b.floats.insert(b.floats.end(), v.begin(), v.end());
    b.floats.resize(at + n, 0.f);  // a missing bias is zeros
    return at;
  };
  m.b1 = add(fc1.bias, fc1.n);
  m.b2 = add(fc2.bias, fc2.n);
  // W2^T after W1^T in the compute type, at an element offset of whole 16-byte chunks.
  m.w2 = static_cast<int32_t>((b.weights.size() + 7) / 8 * 8);
  b.weights.resize(m.w2, 0);
  b.weights.insert(b.weights.end(), fc2.w.begin(), fc2.w.end());
  b.weights.resize((b.weights.size() + 7) / 8 * 8, 0);  // the kernel stages W2^T in whole 16-byte chunks
  // The CUDA-core head's shared memory: the tile's input rows, W2^T, the hidden rows and the logits (floats).
  const int64_t bytes = static_cast<int64_t>(rows) * (fc1.k * 2 + (fc1.n + fc2.n) * 4) +
                        (static_cast<int64_t>(fc2.n) * fc2.k + 7) / 8 * 16;
  m.smem_bytes = static_cast<int32_t>(std::min<int64_t>(bytes, INT32_MAX));
  *out = std::move(b);
  return true;
}

}  // namespace ie::sr

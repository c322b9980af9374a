#include "layers/sample_resident/sample_resident_builder.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <sstream>

namespace ie::sr {
namespace {

constexpr int kAlign = 128;  // buffers start on a 128-byte line: the swizzle permutes inside lines

int align_up(int v, int a) { return (v + a - 1) / a * a; }

template <class... Args>
bool fail(std::string* why, const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  if (why) *why = s.str();
  return false;
}

// A tensor of the expanded chain: the spec's, plus each Attention's q | k | v.
struct Tensor {
  ChainTensor decl;
  int root = -1;
  Elem elem = Elem::F32;  // of the root's buffer
};

struct Live {
  int first = 1 << 30, last = -1, bytes = 0, offset = -1;
  int share = -1;  // runs in place over this root's buffer
};

// First-fit placement of buffers of 128-byte multiples over [base, ...), lowest offset first.
class Arena {
 public:
  explicit Arena(int base) : m_base(base), m_peak(base) {}
  int take(int bytes) {
    int at = m_base;
    for (auto& [off, size] : m_used) {
      if (at + bytes <= off) break;
      at = std::max(at, off + size);
    }
    m_used[at] = bytes;
    m_peak = std::max(m_peak, at + bytes);
    return at;
  }
  void give(int offset) { m_used.erase(offset); }
  int peak() const { return m_peak; }

 private:
  int m_base, m_peak;
  std::map<int, int> m_used;  // offset -> bytes
};

bool check_op(const ChainOp& op, const std::vector<Tensor>& t, std::string* why) {
  const ChainTensor& in = t[op.in].decl;
  const ChainTensor& out = t[op.out].decl;
  switch (op.op) {
    case OpCode::Linear:
      if (op.k % 16 || op.n < 1)
        return fail(why, "Linear ", out.name, ": K = ", op.k, " must be a multiple of 16, N = ", op.n, " positive");
      if (in.cols != op.k || out.cols != op.n || in.rows != out.rows)
        return fail(why, "Linear ", out.name, ": views [", in.rows, ", ", in.cols, "] -> [", out.rows, ", ", out.cols,
                    "] do not fit K = ", op.k, ", N = ", op.n);
      if (op.residual >= 0 && (t[op.residual].decl.rows != out.rows || t[op.residual].decl.cols != out.cols))
        return fail(why, "Linear ", out.name, ": the residual's view differs from the output's");
      return true;
    case OpCode::LayerNorm:
      if (in.cols % 64 || in.cols > kMaxLayerNormCols)
        return fail(why, "LayerNorm ", out.name, ": rows of ", in.cols, " (a multiple of 64 up to ", kMaxLayerNormCols,
                    " runs here)");
      if (in.cols != out.cols || in.rows != out.rows)
        return fail(why, "LayerNorm ", out.name, ": output view differs from the input's");
      return true;
    case OpCode::Attention:
      if (op.head_dim % 16 || op.heads * op.head_dim != op.n || op.k % 16)
        return fail(why, "Attention ", out.name, ": head dim ", op.head_dim, " and width ", op.k,
                    " must be multiples of 16");
      if (in.rows > kMaxAttentionSeq)
        return fail(why, "Attention ", out.name, ": sequence of ", in.rows, " (up to ", kMaxAttentionSeq,
                    " runs here)");
      if (in.cols != op.k || out.cols != op.n || out.rows != in.rows)
        return fail(why, "Attention ", out.name, ": views do not fit width ", op.k, " and heads x dim ", op.n);
      return true;
    case OpCode::Softmax:
      if (in.cols != out.cols || in.rows != out.rows)
        return fail(why, "Softmax ", out.name, ": output view differs from the input's");
      return true;
    default:
      return fail(why, "unknown op");
  }
}

}  // namespace

bool has_norm_or_attention(const ChainSpec& spec) {
  for (const ChainOp& op : spec.ops)
    if (op.op == OpCode::LayerNorm || op.op == OpCode::Attention) return true;
  return false;
}

double chain_flops_per_sample(const ChainSpec& spec) {
  double f = 0;
  for (const ChainOp& op : spec.ops) {
    const double rows = spec.tensors[op.in].rows;
    if (op.op == OpCode::Linear) f += 2.0 * rows * op.k * op.n;
    if (op.op == OpCode::Attention) f += 2.0 * rows * op.k * 3 * op.n + 4.0 * rows * rows * op.n;
  }
  return f;
}

bool build_program(const ChainSpec& spec, const Budget& budget, Built* out, std::string* why) {
  Built b;
  Program& p = b.program;
  p.tile = budget.tile;
  const Elem T = spec.compute;
  if (T == Elem::F32) return fail(why, "the kernel computes on fp16 or bf16 Tensor Cores");

  std::vector<Tensor> t;
  for (const ChainTensor& d : spec.tensors) t.push_back(Tensor{d});
  // Expand each Attention into its projection (a Linear with RoPE in the epilogue) and the attention proper.
  struct Step {
    OpCode op;
    const ChainOp* src;
    int in, out, residual;
  };
  std::vector<Step> steps;
  for (const ChainOp& op : spec.ops) {
    if (op.in < 0 || op.out < 0 || op.in >= static_cast<int>(t.size()) || op.out >= static_cast<int>(t.size()))
      return fail(why, "an op names a tensor that is not in the chain");
    if (!check_op(op, t, why)) return false;
    if (op.op != OpCode::Attention) {
      steps.push_back({op.op, &op, op.in, op.out, op.residual});
      continue;
    }
    ChainTensor qkv;
    qkv.name = t[op.out].decl.name + "/qkv";
    qkv.rows = t[op.in].decl.rows;
    qkv.cols = 3 * op.n;
    t.push_back(Tensor{qkv});
    const int q = static_cast<int>(t.size()) - 1;
    steps.push_back({OpCode::Linear, &op, op.in, q, -1});
    steps.push_back({OpCode::Attention, &op, q, op.out, -1});
  }

  // Roots (reshapes and casts share their source's bytes) and each root's element type: the compute type where
  // an MMA reads it (a Linear's input, attention's q | k | v), float elsewhere.
  for (size_t i = 0; i < t.size(); ++i) {
    int r = static_cast<int>(i);
    for (int hops = 0; t[r].decl.alias_of >= 0; ++hops) {
      if (hops > static_cast<int>(t.size())) return fail(why, "a cycle of aliases");
      r = t[r].decl.alias_of;
    }
    t[i].root = r;
    if (t[i].decl.rows * t[i].decl.cols != t[r].decl.rows * t[r].decl.cols)
      return fail(why, "tensor ", t[i].decl.name, " views ", t[i].decl.rows * t[i].decl.cols, " values per sample of ",
                  t[r].decl.name, "'s ", t[r].decl.rows * t[r].decl.cols);
  }
  for (const Step& s : steps)
    if (s.op == OpCode::Linear || s.op == OpCode::Attention) t[t[s.in].root].elem = T;
  for (auto& x : t) x.elem = t[x.root].elem;

  // Instructions: Loads first, each op, a Store right after the op that writes an output's bytes.
  auto view = [&](int id) {
    View v;
    v.elem = t[id].elem;
    v.rows = t[id].decl.rows;
    v.cols = t[id].decl.cols;
    return v;
  };
  std::vector<Instr> code;
  std::vector<std::vector<int>> reads, writes;  // roots per instruction
  struct Ids {
    int in = -1, out = -1, residual = -1;  // tensors behind the shared-memory views (-1: global or none)
  };
  std::vector<Ids> ids;
  std::vector<int> io_elem_in, io_elem_out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].decl.input < 0) continue;
    Instr ins;
    ins.op = OpCode::Load;
    ins.in = view(static_cast<int>(i));
    ins.in.io = t[i].decl.input;
    ins.out = view(static_cast<int>(i));
    code.push_back(ins);
    reads.push_back({});
    writes.push_back({t[i].root});
    ids.push_back({-1, static_cast<int>(i), -1});
    b.global_inputs = std::max(b.global_inputs, t[i].decl.input + 1);
  }
  auto add_stores = [&](int root) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i].root != root || t[i].decl.output < 0) continue;
      Instr ins;
      ins.op = OpCode::Store;
      ins.in = view(static_cast<int>(i));
      ins.out = view(static_cast<int>(i));
      ins.out.io = b.global_inputs + t[i].decl.output;  // global pointers: the inputs, then the outputs
      code.push_back(ins);
      reads.push_back({root});
      writes.push_back({});
      ids.push_back({static_cast<int>(i), -1, -1});
      b.global_outputs = std::max(b.global_outputs, t[i].decl.output + 1);
    }
  };
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].decl.input >= 0 && static_cast<int>(i) == t[i].root) add_stores(t[i].root);

  auto add_floats = [&](const std::vector<float>& v) {
    if (v.empty()) return -1;
    b.floats.resize(align_up(static_cast<int>(b.floats.size()), 4));  // float4 and float2 loads
    const int at = static_cast<int>(b.floats.size());
    b.floats.insert(b.floats.end(), v.begin(), v.end());
    return at;
  };
  auto add_weights = [&](const std::vector<uint16_t>& w, int64_t* at) {
    b.weights.resize(align_up(static_cast<int>(b.weights.size()), 8));  // 16-byte blocks for cp.async
    *at = static_cast<int64_t>(b.weights.size());
    b.weights.insert(b.weights.end(), w.begin(), w.end());
  };
  int max_w = 0;
  for (const Step& s : steps) {
    const ChainOp& op = *s.src;
    Instr ins;
    ins.op = s.op;
    ins.in = view(s.in);
    ins.out = view(s.out);
    ins.act = op.act;
    std::vector<int> r = {t[s.in].root};
    if (s.op == OpCode::Linear) {
      const bool proj = op.op == OpCode::Attention;
      ins.k = op.k;
      ins.n = proj ? 3 * op.n : op.n;
      if (static_cast<int64_t>(op.w.size()) != static_cast<int64_t>(ins.k) * ins.n)
        return fail(why, "Linear ", t[s.out].decl.name, ": ", op.w.size(), " weights for K x N = ", ins.k, " x ",
                    ins.n);
      // W^T and the bias padded to whole 16-column groups (zeros): the MMAs compute them, the epilogue skips them.
      const int np = align_up(ins.n, 16);
      std::vector<uint16_t> w = op.w;
      w.resize(static_cast<size_t>(np) * ins.k, 0);
      add_weights(w, &ins.w);
      ins.w_bytes = ins.k * np * 2;
      ins.nc = np;
      max_w = std::max(max_w, ins.w_bytes);
      std::vector<float> bias = op.bias;
      if (!bias.empty()) bias.resize(np, 0.f);
      ins.bias = add_floats(bias);
      if (proj) {
        ins.act = 0;
        if (!op.cos.empty()) {
          if (op.head_dim > 64 || (op.head_dim & (op.head_dim - 1)))
            return fail(why, "Attention ", t[op.out].decl.name, ": RoPE on head dim ", op.head_dim,
                        " (powers of two up to 64 run)");
          const size_t table = static_cast<size_t>(t[s.in].decl.rows) * (op.head_dim / 2);
          if (op.cos.size() != table || op.sin.size() != table)
            return fail(why, "Attention ", t[op.out].decl.name, ": RoPE tables of ", op.cos.size(), " values, not ",
                        table);
          ins.rope_cols = 2 * op.n;  // q and k
          ins.head_dim = op.head_dim;
          ins.rope_cos = add_floats(op.cos);
          ins.rope_sin = add_floats(op.sin);
        }
      }
      if (s.residual >= 0) {
        ins.residual = view(s.residual);
        r.push_back(t[s.residual].root);
      }
    } else if (s.op == OpCode::LayerNorm) {
      if (static_cast<int>(op.gamma.size()) != ins.in.cols ||
          (!op.beta.empty() && static_cast<int>(op.beta.size()) != ins.in.cols))
        return fail(why, "LayerNorm ", t[s.out].decl.name, ": scale and bias must hold ", ins.in.cols, " values");
      ins.gamma = add_floats(op.gamma);
      ins.beta = add_floats(op.beta);
      ins.eps = op.eps;
    } else if (s.op == OpCode::Attention) {
      ins.heads = op.heads;
      ins.head_dim = op.head_dim;
      ins.scale = op.scale;
    }
    code.push_back(ins);
    reads.push_back(r);
    writes.push_back({t[s.out].root});
    ids.push_back({s.in, s.out, s.residual});
    add_stores(t[s.out].root);
  }
  // Column slices: a Linear whose W^T exceeds the weight slot runs as several instructions, each its own block of
  // W^T rows (output columns), 64 columns at a time where that fits (epilogue rows stay on whole lines).
  {
    std::vector<Instr> sliced;
    std::vector<std::vector<int>> sliced_reads, sliced_writes;
    std::vector<Ids> sliced_ids;
    for (size_t i = 0; i < code.size(); ++i) {
      Instr ins = code[i];
      if (ins.op != OpCode::Linear) {
        sliced.push_back(ins), sliced_reads.push_back(reads[i]), sliced_writes.push_back(writes[i]);
        sliced_ids.push_back(ids[i]);
        continue;
      }
      const int np = ins.nc;  // n padded to 16
      int nc = np;
      const int limit = std::max(budget.weight_slot_bytes, ins.k * 16 * 2);
      if (nc * ins.k * 2 > limit) {
        const int step = ins.k * 64 * 2 <= limit ? 64 : 16;
        nc = limit / (ins.k * 2) / step * step;
      }
      const int64_t w0 = ins.w;
      for (int c0 = 0; c0 < np; c0 += nc) {
        Instr part = ins;
        part.col0 = c0;
        part.nc = std::min(nc, np - c0);
        part.w = w0 + static_cast<int64_t>(c0) * ins.k;
        part.w_bytes = part.nc * ins.k * 2;
        sliced.push_back(part), sliced_reads.push_back(reads[i]), sliced_writes.push_back(writes[i]);
        sliced_ids.push_back(ids[i]);
      }
    }
    code = std::move(sliced), reads = std::move(sliced_reads), writes = std::move(sliced_writes);
    ids = std::move(sliced_ids);
    max_w = 0;
    for (const Instr& ins : code)
      if (ins.op == OpCode::Linear) max_w = std::max(max_w, ins.w_bytes);
  }
  if (code.size() > static_cast<size_t>(kMaxInstr))
    return fail(why, "a chain of ", code.size(), " instructions (up to ", kMaxInstr, ")");
  if (b.global_inputs + b.global_outputs > kMaxIo)
    return fail(why, b.global_inputs + b.global_outputs, " global tensors (up to ", kMaxIo, ")");

  // Warps: the fewest that reach the least number of rounds over every Linear's units of 16 rows x 64 columns.
  auto units_of = [&](const Instr& ins) { return (p.tile * ins.in.rows / 16) * ((ins.nc + 63) / 64); };
  int best = -1;
  long best_rounds = 0;
  for (int w = 4; w <= budget.max_warps; ++w) {
    long rounds = 0;
    for (const Instr& ins : code)
      if (ins.op == OpCode::Linear) rounds += static_cast<long>((units_of(ins) + w - 1) / w) * ins.k;
    if (best < 0 || rounds < best_rounds) best = w, best_rounds = rounds;
  }
  p.warps = best;
  // Split K where a product has few units: each warp a slice of K, summed in the float scratch.
  int scratch = 0;
  for (Instr& ins : code) {
    if (ins.op != OpCode::Linear) continue;
    const int units = units_of(ins);
    if (2 * units <= p.warps && ins.k / 16 >= 4) {
      // At most 4 slices: with more, adding the slices cost more than the shorter K saved.
      ins.ksplit = std::min({p.warps / units, ins.k / 32, 4});
      scratch = std::max(scratch, ins.ksplit * p.tile * ins.in.rows * ins.nc * 4);
    }
  }

  // Shared memory: the fixed region (zero row, scratch, two weight slots), then the tensors by lifetime.
  int at = 0;
  p.zero = at;
  at += kAlign;
  p.program_smem = at;
  at += align_up(static_cast<int>(offsetof(Program, instr) + code.size() * sizeof(Instr)), kAlign);
  p.floats_smem = at;
  p.floats_count = static_cast<int>(b.floats.size());
  at += align_up(std::max(4, p.floats_count * 4), kAlign);
  if (scratch) p.scratch = at, at += align_up(scratch, kAlign);
  p.w_slot_bytes = align_up(max_w, kAlign);
  p.w_stage = at;
  at += 2 * p.w_slot_bytes;
  std::map<int, Live> live;  // by root
  for (size_t i = 0; i < code.size(); ++i) {
    for (int r : writes[i]) live[r].first = std::min(live[r].first, static_cast<int>(i));
    for (int r : reads[i]) live[r].last = std::max(live[r].last, static_cast<int>(i));
  }
  for (auto& [r, l] : live) {
    l.bytes = align_up(p.tile * t[r].decl.rows * t[r].decl.cols * elem_bytes(t[r].elem), kAlign);
    if (l.last < l.first) l.last = l.first;  // written, never read inside: still needs its bytes while written
  }
  Arena arena(at);
  for (size_t i = 0; i < code.size(); ++i) {
    for (int r : writes[i]) {
      if (live[r].first != static_cast<int>(i) || live[r].offset >= 0) continue;
      // In place over an input that dies here: a Linear's residual (each thread reads then writes its own
      // elements) or a LayerNorm's or Softmax's input (a warp reads its whole row before writing it), same type
      // and size.
      int share = -1;
      const Instr& ins = code[i];
      if (ins.op == OpCode::Linear && reads[i].size() > 1 && reads[i][1] != reads[i][0]) share = reads[i][1];
      if (ins.op == OpCode::LayerNorm || ins.op == OpCode::Softmax) share = reads[i][0];
      if (share >= 0 && share != r && live[share].last == static_cast<int>(i) && t[share].elem == t[r].elem &&
          live[share].bytes == live[r].bytes) {
        live[r].offset = live[share].offset;
        live[share].share = r;
        continue;
      }
      live[r].offset = arena.take(live[r].bytes);
    }
    for (auto& [r, l] : live)
      if (l.last == static_cast<int>(i) && l.share < 0 && l.offset >= 0) arena.give(l.offset);
  }
  p.smem_bytes = arena.peak();
  if (p.smem_bytes > budget.smem_bytes)
    return fail(why, "the tile of ", p.tile, " samples needs ", p.smem_bytes / 1024, " KiB of shared memory, over the ",
                budget.smem_bytes / 1024, " KiB a CTA has");

  auto place = [&](View& v, int id) {
    if (id >= 0) v.offset = live.at(t[id].root).offset;
  };
  for (size_t c = 0; c < code.size(); ++c) {
    place(code[c].in, ids[c].in);
    place(code[c].out, ids[c].out);
    place(code[c].residual, ids[c].residual);
  }
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].decl.input >= 0) p.io_elem[t[i].decl.input] = t[i].decl.global;
    if (t[i].decl.output >= 0) p.io_elem[b.global_inputs + t[i].decl.output] = t[i].decl.global;
  }
  p.inputs = b.global_inputs;
  p.outputs = b.global_outputs;
  p.count = static_cast<int>(code.size());
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i].op != OpCode::Linear) continue;
    if (p.first_linear < 0) p.first_linear = static_cast<int>(i);
    for (size_t j = 1; j <= code.size(); ++j)
      if (code[(i + j) % code.size()].op == OpCode::Linear) {
        code[i].next_linear = static_cast<int>((i + j) % code.size());
        break;
      }
  }
  std::copy(code.begin(), code.end(), p.instr);
  if (b.weights.empty()) b.weights.resize(8);
  if (b.floats.empty()) b.floats.resize(1);
  *out = std::move(b);
  return true;
}

}  // namespace ie::sr

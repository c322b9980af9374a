#include "layers/sample_resident/row_tile_builder.h"

#include <algorithm>

#include "layers/sample_resident/row_tile_recognize.h"

namespace ie::sr {
namespace {

constexpr int kGelu = 2;  // dev::Act::Gelu

int odd_chunks(int bytes) {
  const int s = align_up(bytes, 16);
  return (s / 16) % 2 ? s : s + 16;
}

class Matcher {
 public:
  Matcher(const ChainSpec& s, std::string* why) : m_s(s), m_why(why) {}

  int root(int t) const {
    while (m_s.tensors[t].alias_of >= 0) t = m_s.tensors[t].alias_of;
    return t;
  }
  // The next op, which must be `code` reading `in` (or a view of it); nullptr (with the reason) otherwise.
  const ChainOp* next(OpCode code, int in, const char* what) {
    if (m_i >= m_s.ops.size()) {
      fail(m_why, "the chain ends where ", what, " was expected");
      return nullptr;
    }
    const ChainOp& op = m_s.ops[m_i];
    if (op.op != code || root(op.in) != root(in)) {
      fail(m_why, "op ", m_i, " (", m_s.tensors[op.out].name, ") is not ", what);
      return nullptr;
    }
    ++m_i;
    return &op;
  }
  bool done() const { return m_i == m_s.ops.size(); }
  size_t at() const { return m_i; }

 private:
  const ChainSpec& m_s;
  std::string* m_why;
  size_t m_i = 0;
};

bool act_ok(int act) { return act == 0 || act == kGelu; }

}  // namespace

// Recognizes the architecture: fills b's model (sizes, parameter places) and floats, and packs each Linear's weights
// by `pack` into `stages` (RtLinear::w: its byte offset in its stage).
bool recognize_row_tile(const ChainSpec& spec, const RowTilePack& pack, RtBuilt* result,
                        std::vector<std::vector<unsigned char>>* out, std::string* why) {
  RtBuilt& b = *result;
  RtModel& m = b.model;
  std::vector<std::vector<unsigned char>>& stages = *out;
  stages.assign(1, {});
  Matcher mt(spec, why);
  auto floats = [&](const std::vector<float>& v, size_t n) {
    const int at = static_cast<int>(b.floats.size());
    if (v.empty())
      b.floats.resize(b.floats.size() + n, 0.f);
    else
      b.floats.insert(b.floats.end(), v.begin(), v.end());
    if (b.floats.size() % 2) b.floats.push_back(0.f);  // float2 loads
    return at;
  };
  auto linear = [&](const ChainOp& op, RtLinear* l) {
    const std::vector<unsigned char> bytes = pack(op);
    std::vector<unsigned char>& st = stages.back();
    l->w = static_cast<int32_t>(st.size());
    st.insert(st.end(), bytes.begin(), bytes.end());
    l->bias = floats(op.bias, static_cast<size_t>(op.n) * (op.op == OpCode::Attention ? 3 : 1));
    l->act = op.act;
    return act_ok(op.act);
  };
  auto norm = [&](const ChainOp& op, RtNorm* n, int cols) {
    n->gamma = floats(op.gamma, cols);
    n->beta = floats(op.beta, cols);
    n->act = op.act, n->eps = op.eps;
    return act_ok(op.act) && static_cast<int>(op.gamma.size()) == cols &&
           (op.beta.empty() || static_cast<int>(op.beta.size()) == cols);
  };
  auto bad_act = [&](const ChainOp& op) {
    return fail(why, spec.tensors[op.out].name, ": an activation other than GELU");
  };

  // The embedding: a per-row Linear of the input's rows, then LayerNorm.
  int x = -1;
  for (size_t i = 0; i < spec.tensors.size(); ++i)
    if (spec.tensors[i].input == 0) x = static_cast<int>(i);
  if (x < 0 || spec.ops.empty()) return fail(why, "no input");
  const ChainOp* op = mt.next(OpCode::Linear, x, "the embedding Linear");
  if (!op) return false;
  const ChainTensor& xt = spec.tensors[x];
  const ChainTensor& xrows = spec.tensors[op->in];  // the input, or a view of it as rows
  m.seq = xrows.rows, m.slice = op->k, m.width = op->n;
  if (xrows.cols != m.slice || op->residual >= 0)
    return fail(why, "the embedding Linear does not read the input's rows");
  if (!linear(*op, &m.embed)) return bad_act(*op);
  const int D = m.width, S = m.seq;
  op = mt.next(OpCode::LayerNorm, op->out, "the embedding's LayerNorm");
  if (!op) return false;
  if (!norm(*op, &m.embed_norm, D)) return fail(why, "the embedding's LayerNorm parameters");
  int h = op->out;
  // Blocks: LayerNorm, attention (q | k | v, RoPE), projection + h, LayerNorm, fc1, fc2 + h.
  while (mt.at() + 1 < spec.ops.size() && spec.ops[mt.at()].op == OpCode::LayerNorm &&
         spec.ops[mt.at() + 1].op == OpCode::Attention) {
    if (m.blocks == kRtMaxBlocks) return fail(why, "more than ", kRtMaxBlocks, " blocks");
    RtBlock& blk = m.block[m.blocks++];
    stages.emplace_back();
    op = mt.next(OpCode::LayerNorm, h, "a block's first LayerNorm");
    if (!op || !norm(*op, &blk.ln1, D)) return fail(why, "a block's first LayerNorm");
    op = mt.next(OpCode::Attention, op->out, "attention");
    if (!op) return false;
    if (op->k != D || op->n != D || op->heads * op->head_dim != D)
      return fail(why, "attention of width ", op->k, " -> ", op->n, " in a chain of width ", D);
    if (m.heads == 0) m.heads = op->heads, m.head_dim = op->head_dim;
    if (op->heads != m.heads) return fail(why, "blocks with different head counts");
    if (!linear(*op, &blk.qkv)) return bad_act(*op);
    blk.scale = op->scale;
    if (!(op->scale > 0.f)) return fail(why, "an attention scale of ", op->scale, " (the kernel takes positive ones)");
    if (!op->cos.empty()) {
      const size_t n = static_cast<size_t>(S) * (m.head_dim / 2);
      if (op->cos.size() != n || op->sin.size() != n) return fail(why, "RoPE tables of another size");
      blk.rope_cos = floats(op->cos, n), blk.rope_sin = floats(op->sin, n);
    }
    const int y = op->out;
    op = mt.next(OpCode::Linear, y, "the attention's projection");
    if (!op) return false;
    if (op->k != D || op->n != D || op->residual != h || spec.tensors[h].alias_of >= 0)
      return fail(why, "the attention's projection is not width -> width + the block's input");
    if (!linear(*op, &blk.proj)) return bad_act(*op);
    const int h1 = op->out;
    const ChainOp* ln2 = mt.next(OpCode::LayerNorm, h1, "a block's second LayerNorm");
    if (!ln2 || !norm(*ln2, &blk.ln2, D)) return fail(why, "a block's second LayerNorm");
    stages.emplace_back();
    op = mt.next(OpCode::Linear, ln2->out, "the MLP's first Linear");
    if (!op) return false;
    if (op->k != D || op->residual >= 0) return fail(why, "the MLP's first Linear");
    if (m.hidden == 0) m.hidden = op->n;
    if (op->n != m.hidden) return fail(why, "blocks with different MLP widths");
    if (!linear(*op, &blk.fc1)) return bad_act(*op);
    op = mt.next(OpCode::Linear, op->out, "the MLP's second Linear");
    if (!op) return false;
    if (op->k != m.hidden || op->n != D || op->residual != h1) return fail(why, "the MLP's second Linear");
    if (!linear(*op, &blk.fc2)) return bad_act(*op);
    h = op->out;
  }
  if (m.blocks == 0) return fail(why, "no attention block");
  // The encoder: LayerNorm, the rows flattened, a Linear to the latent (an output).
  op = mt.next(OpCode::LayerNorm, h, "the final LayerNorm");
  if (!op || !norm(*op, &m.final_norm, D)) return fail(why, "the final LayerNorm");
  stages.emplace_back();
  op = mt.next(OpCode::Linear, op->out, "the encoder Linear");
  if (!op) return false;
  const ChainTensor& flat = spec.tensors[op->in];
  if (flat.rows != 1 || op->k != S * D || op->residual >= 0) return fail(why, "the encoder does not read flat rows");
  m.latent = op->n;
  if (!linear(*op, &m.enc)) return bad_act(*op);
  const int z = op->out;
  // The decoder: a Linear from the latent, viewed as rows, LayerNorm, a per-row Linear to recon (an output).
  stages.emplace_back();
  op = mt.next(OpCode::Linear, z, "the decoder Linear");
  if (!op) return false;
  if (op->n != S * D || op->residual >= 0) return fail(why, "the decoder Linear does not make the rows");
  if (!linear(*op, &m.dec)) return bad_act(*op);
  op = mt.next(OpCode::LayerNorm, op->out, "the decoder's LayerNorm");
  if (!op) return false;
  if (spec.tensors[op->in].rows != S || spec.tensors[op->in].cols != D || !norm(*op, &m.dec_norm, D))
    return fail(why, "the decoder's LayerNorm");
  stages.emplace_back();
  op = mt.next(OpCode::Linear, op->out, "the output Linear");
  if (!op) return false;
  if (op->k != D || op->n != m.slice || op->residual >= 0) return fail(why, "the output Linear");
  if (!linear(*op, &m.out)) return bad_act(*op);
  const int r = op->out;
  if (!mt.done()) return fail(why, "ops after the output Linear");
  // The outputs: exactly the latent and recon (the output Linear's rows, or a flat view of them).
  int outputs = 0;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const ChainTensor& t = spec.tensors[i];
    if (t.output < 0) continue;
    ++outputs;
    if (mt.root(static_cast<int>(i)) == mt.root(z)) {
      m.latent_output = t.output, m.latent_elem = t.global;
    } else if (mt.root(static_cast<int>(i)) == r) {
      m.recon_output = t.output, m.recon_elem = t.global;
    } else {
      return fail(why, "an output other than the latent and the reconstruction: ", t.name);
    }
  }
  if (outputs != 2) return fail(why, outputs, " outputs (the latent and the reconstruction expected)");
  m.x_elem = xt.global;
  return true;
}

// The shared-memory plan of `m` (two weight slots of `slot` bytes, the residual streams of `owners` warps or warp
// groups); false (with the reason) past `limit` bytes.
bool layout_row_tile(RtModel& m, int owners, int slot, int limit, std::string* why) {
  const int D = m.width, S = m.seq;
  int at = align_up(m.floats_count * 4, 128);
  m.slots = at, m.slot_bytes = align_up(slot, 128);
  at += 2 * m.slot_bytes;
  m.h_smem = at, m.h_warp_bytes = m.mt * 16 * D * 4;
  at += owners * m.h_warp_bytes;
  m.y_smem = m.u_smem = 0;
  if (m.group > 1) {
    m.y_smem = at;
    at += align_up(owners * (D / 16) * 512, 128);
    m.u_smem = at;
    at += align_up(owners * (m.hidden / 16) * 512, 128);
  }
  const int split = std::max(1, m.warps / m.mtiles), rows = m.mtiles * 16;
  if (split * rows * m.latent * 4 <= owners * m.h_warp_bytes) {
    m.scratch_smem = m.h_smem;  // the residual streams are dead while the encoder sums
  } else {
    m.scratch_smem = at;
    at += align_up(split * rows * m.latent * 4, 128);
  }
  m.flat_smem = at, m.flat_stride = odd_chunks(S * D * 2);
  at += align_up(rows * m.flat_stride, 128);
  m.z_smem = at, m.z_stride = odd_chunks(m.latent * 2);
  at += align_up(rows * m.z_stride, 128);
  m.bars_smem = at;
  at += 16;
  m.smem_bytes = at;
  if (at > limit)
    return fail(why, "a tile of ", m.tile, " samples needs ", at, " bytes of shared memory, over ", limit);
  return true;
}

bool build_row_tile(const ChainSpec& spec, const RtBudget& budget, RtBuilt* result, std::string* why) {
  if (spec.compute == Elem::F32) return fail(why, "the kernel computes on fp16 or bf16 Tensor Cores");
  RtBuilt b;
  std::vector<std::vector<unsigned char>> stages;
  const RowTilePack pack = [](const ChainOp& op) {
    const std::vector<uint16_t> f = fragment_order(op.w, static_cast<int>(op.w.size()) / op.k, op.k);
    return std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(f.data()),
                                      reinterpret_cast<const unsigned char*>(f.data() + f.size()));
  };
  if (!recognize_row_tile(spec, pack, &b, &stages, why)) return false;
  RtModel& m = b.model;
  const int D = m.width, S = m.seq;

  // Sizes the kernel is compiled for.
  bool shape = false;
  for (const RtShape& s : kRtShapes) shape |= s.width == D && s.head_dim == m.head_dim;
  if (!shape) return fail(why, "width ", D, " with head dim ", m.head_dim, " (the kernel is compiled for 64 / 16)");
  if (S < 1 || S > 16) return fail(why, "sequences of ", S, " rows (up to 16: one MMA tile per sample)");
  if (m.slice % 16 || m.hidden % 32 || m.latent % 16 || m.latent > 64 || (S * D) % 32)
    return fail(why, "slice ", m.slice, " (a multiple of 16), hidden ", m.hidden, " (of 32), latent ", m.latent,
                " (of 16, up to 64)");

  // Stages and shared memory.
  int64_t off = 0;
  int slot = 0;
  m.stages = static_cast<int>(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].size() % 16)  // each stage is one bulk copy: whole 16-byte units at 16-byte offsets
      return fail(why, "weight stage ", i, " of ", stages[i].size(), " bytes (the kernel copies 16-byte units)");
    m.stage_off[i] = off;
    m.stage_bytes[i] = static_cast<int32_t>(stages[i].size());
    b.weights.insert(b.weights.end(), stages[i].begin(), stages[i].end());
    off += static_cast<int64_t>(stages[i].size());
    slot = std::max(slot, static_cast<int>(stages[i].size()));
  }
  m.warps = budget.warps, m.mt = budget.mt, m.spw = 16 * m.mt / S, m.group = budget.group;
  if (m.group > 1 && (m.mt != 1 || m.group != m.heads || m.warps % m.group))
    return fail(why, "row tiles shared by ", m.group, " warps need one tile a warp group, one head a warp (", m.heads,
                " heads) and whole groups (", m.warps, " warps)");
  const int owners = m.warps / m.group;  // warps or warp groups that own row tiles
  if (m.group > 1 && owners > 15) return fail(why, owners, " warp groups (a named barrier each: up to 15)");
  m.tile = owners * m.spw, m.mtiles = (m.tile + 15) / 16;
  m.floats_count = static_cast<int>(b.floats.size());
  if (!layout_row_tile(m, owners, slot, budget.smem_bytes, why)) return false;
  *result = std::move(b);
  return true;
}

}  // namespace ie::sr

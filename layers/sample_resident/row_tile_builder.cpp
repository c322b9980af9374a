#include "layers/sample_resident/row_tile_builder.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace ie::sr {
namespace {

constexpr int kGelu = 2;  // dev::Act::Gelu

template <class... Args>
bool fail(std::string* why, const Args&... args) {
  std::ostringstream s;
  s << "not the row-tile form: ";
  (s << ... << args);
  if (why) *why = s.str();
  return false;
}

int align_up(int v, int a) { return (v + a - 1) / a * a; }

// A row stride of whole 16-byte chunks, an odd number of them: ldmatrix's 8 rows land in 8 bank groups.
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

std::vector<uint16_t> fragment_order(const std::vector<uint16_t>& wt, int n, int k) {
  std::vector<uint16_t> out(static_cast<size_t>(n) * k);
  size_t o = 0;
  for (int j2 = 0; j2 < n / 16; ++j2)
    for (int kk = 0; kk < k / 16; ++kk)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, q = lane % 4;
        for (int half = 0; half < 2; ++half) {
          const int row = 16 * j2 + 8 * half + g;
          for (int hi = 0; hi < 2; ++hi)
            for (int e = 0; e < 2; ++e) out[o++] = wt[static_cast<size_t>(row) * k + 16 * kk + 8 * hi + 2 * q + e];
        }
      }
  return out;
}

namespace {

// Recognizes the architecture: fills b's model (sizes, parameter places) and floats, and packs each Linear's weights
// by `pack` into `stages` (RtLinear::w: its byte offset in its stage).
using Pack = std::function<std::vector<unsigned char>(const ChainOp&)>;
bool recognize(const ChainSpec& spec, const Pack& pack, RtBuilt* result, std::vector<std::vector<unsigned char>>* out,
               std::string* why) {
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

// W [k][n] floats from a Linear's W^T [n][k] (compute F32).
std::vector<unsigned char> pack_kn(const ChainOp& op) {
  const int n = static_cast<int>(op.w32.size()) / op.k;
  std::vector<float> w(op.w32.size());
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < op.k; ++k) w[static_cast<size_t>(k) * n + j] = op.w32[static_cast<size_t>(j) * op.k + k];
  return std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(w.data()),
                                    reinterpret_cast<const unsigned char*>(w.data() + w.size()));
}

}  // namespace

bool build_row_tile(const ChainSpec& spec, const RtBudget& budget, RtBuilt* result, std::string* why) {
  if (spec.compute == Elem::F32) return fail(why, "the kernel computes on fp16 or bf16 Tensor Cores");
  RtBuilt b;
  std::vector<std::vector<unsigned char>> stages;
  const Pack pack = [](const ChainOp& op) {
    const std::vector<uint16_t> f = fragment_order(op.w, static_cast<int>(op.w.size()) / op.k, op.k);
    return std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(f.data()),
                                      reinterpret_cast<const unsigned char*>(f.data() + f.size()));
  };
  if (!recognize(spec, pack, &b, &stages, why)) return false;
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
    m.stage_off[i] = off;
    m.stage_bytes[i] = static_cast<int32_t>(stages[i].size());
    b.weights.insert(b.weights.end(), stages[i].begin(), stages[i].end());
    off += static_cast<int64_t>(stages[i].size());
    slot = std::max(slot, static_cast<int>(stages[i].size()));
  }
  m.warps = budget.warps, m.mt = budget.mt, m.spw = 16 * m.mt / S;
  m.tile = m.warps * m.spw, m.mtiles = (m.tile + 15) / 16;
  m.floats_count = static_cast<int>(b.floats.size());
  int at = align_up(m.floats_count * 4, 128);
  m.slots = at, m.slot_bytes = align_up(slot, 128);
  at += 2 * m.slot_bytes;
  m.h_smem = at, m.h_warp_bytes = m.mt * 16 * D * 4;
  at += m.warps * m.h_warp_bytes;
  const int split = std::max(1, m.warps / m.mtiles), rows = m.mtiles * 16;
  if (split * rows * m.latent * 4 <= m.warps * m.h_warp_bytes) {
    m.scratch_smem = m.h_smem;  // the residual streams are dead while the encoder sums
  } else {
    m.scratch_smem = at;
    at += align_up(split * rows * m.latent * 4, 128);
  }
  m.flat_smem = at, m.flat_stride = odd_chunks(S * D * 2);
  at += align_up(rows * m.flat_stride, 128);
  m.z_smem = at, m.z_stride = odd_chunks(m.latent * 2);
  at += align_up(rows * m.z_stride, 128);
  m.smem_bytes = at;
  if (at > budget.smem_bytes)
    return fail(why, "a tile of ", m.tile, " samples needs ", at, " bytes of shared memory, over ", budget.smem_bytes);
  *result = std::move(b);
  return true;
}

bool build_row_ffma(const ChainSpec& spec, const RfBudget& budget, RfBuilt* result, std::string* why) {
  if (spec.compute != Elem::F32) return fail(why, "the FFMA kernel computes in float32");
  RtBuilt b;
  std::vector<std::vector<unsigned char>> stages;
  if (!recognize(spec, pack_kn, &b, &stages, why)) return false;
  RfBuilt r;
  RfLayout& l = r.layout;
  l.m = b.model;
  const RtModel& m = l.m;
  const int D = m.width, S = m.seq;
  if (m.x_elem != Elem::F32 || m.recon_elem != Elem::F32 || m.latent_elem != Elem::F32)
    return fail(why, "the FFMA kernel reads and writes float32 tensors");
  if (S < 1 || S > kRfMaxSeq) return fail(why, "sequences of ", S, " rows (up to ", kRfMaxSeq, ")");
  if (D % 16 || m.hidden % 16 || m.slice % 16 || m.latent % 4 || m.head_dim % 4)
    return fail(why, "width ", D, ", hidden ", m.hidden, ", slice ", m.slice, " (multiples of 16), latent ", m.latent,
                ", head dim ", m.head_dim, " (of 4)");
  // The stream of Linears: each one's W at its stage's offset plus its own.
  std::vector<int64_t> stage_off(stages.size() + 1, 0);
  for (size_t i = 0; i < stages.size(); ++i) {
    stage_off[i + 1] = stage_off[i] + static_cast<int64_t>(stages[i].size());
    r.weights.insert(r.weights.end(), reinterpret_cast<const float*>(stages[i].data()),
                     reinterpret_cast<const float*>(stages[i].data() + stages[i].size()));
  }
  auto add = [&](const RtLinear& L, int stage, int k, int n) {
    RfGemm& g = l.gemm[l.linears++];
    g.w = static_cast<int32_t>((stage_off[stage] + L.w) / 4), g.k = k, g.n = n;
  };
  add(m.embed, 0, m.slice, D);
  for (int i = 0; i < m.blocks; ++i) {
    const RtBlock& blk = m.block[i];
    add(blk.qkv, 1 + 2 * i, D, 3 * D);
    add(blk.proj, 1 + 2 * i, D, D);
    add(blk.fc1, 2 + 2 * i, D, m.hidden);
    add(blk.fc2, 2 + 2 * i, m.hidden, D);
  }
  add(m.enc, 1 + 2 * m.blocks, S * D, m.latent);
  add(m.dec, 2 + 2 * m.blocks, m.latent, S * D);
  add(m.out, 3 + 2 * m.blocks, D, m.slice);
  l.m.floats_count = static_cast<int>(b.floats.size());
  r.floats = std::move(b.floats);

  // The largest tile whose activations leave two weight slots of at least min_slot_bytes each (or of the largest
  // Linear), every product within the compiled per-thread limits.
  const int threads = budget.compiled.threads, warps = threads / 32;
  int largest = 0;
  for (int i = 0; i < l.linears; ++i) largest = std::max(largest, l.gemm[i].k * l.gemm[i].n);
  const int ctas = budget.compiled.ctas_per_sm;
  const int want_slot = std::min(largest, budget.min_slot_bytes / 4 / ctas);
  const int smem = std::min(budget.smem_bytes, budget.smem_per_sm / ctas - budget.smem_reserved);
  const int warp_rows = 32 * budget.compiled.row_groups;
  l.threads = threads, l.row_groups = budget.compiled.row_groups, l.ctas_per_sm = ctas;
  l.big_rows = std::max({3 * D, m.hidden, m.slice});
  l.z_stride = m.latent % 2 ? m.latent : m.latent + 1;
  for (int tile = 32; tile >= 1; --tile) {
    const int rows = tile * S, rows_pad = align_up(rows, warp_rows);
    // LayerNorm's lanes per row: the most (up to 8) that the threads cover the rows with in one pass, then more
    // while a lane's share is past 32 columns (its registers); ld = 32 / tpr mod 32 makes a warp's loads of tpr
    // columns x 32 / tpr rows conflict-free. A share other than 8, 16 or 32 columns takes the kernel's generic path.
    int tpr = 1;
    while (tpr < 8 && rows * tpr * 2 <= threads && D % (tpr * 2) == 0) tpr *= 2;
    while (D / tpr > kRfLnMaxPerThread && tpr < 32 && D % (tpr * 2) == 0) tpr *= 2;
    if (D % tpr) continue;
    const int bank = tpr == 1 ? 4 : tpr <= 8 ? 32 / tpr : 4;  // ld mod 32 (a multiple of 4: 16-byte rows)
    const int ld = rows_pad + ((bank - rows_pad) % 32 + 32) % 32;
    const int fixed = align_up(l.m.floats_count, 4) + (2 * D + l.big_rows) * ld + align_up(tile * l.z_stride, 4) + 4;
    const int slot = (smem / 4 - fixed) / 2 / 4 * 4;
    if (slot < want_slot) continue;
    auto tiles_per_warp = [&](int n) { return ((rows_pad / warp_rows) * (n / 16) + warps - 1) / warps; };
    const int most =
        std::max({tiles_per_warp(D), tiles_per_warp(3 * D), tiles_per_warp(m.hidden), tiles_per_warp(m.slice)});
    const int per_thread = (tile * (S * D / 4) + threads - 1) / threads;
    const int enc_items = (tile + 1) / 2 * (m.latent / 4);  // the encoder's items: 4 columns of two samples
    if (most > budget.compiled.max_tiles || per_thread > budget.compiled.max_decoder_items || enc_items > threads)
      continue;
    const int ks = std::max(1, threads / enc_items);
    if (ks * tile * m.latent > l.big_rows * ld) continue;
    l.tile = tile, l.rows = rows, l.rows_pad = rows_pad, l.ld = ld, l.ln_tpr = tpr;
    l.slot_floats = std::min(slot, largest);
    break;
  }
  if (l.tile == 0) return fail(why, "no tile fits ", smem, " bytes of shared memory with ", threads, " threads");
  for (int i = 0; i < l.linears; ++i) {
    RfGemm& g = l.gemm[i];
    g.kc = std::min(g.k, l.slot_floats / g.n);
    if (g.kc < 1) return fail(why, "a row of W of ", g.n, " floats does not fit a weight slot");
  }
  int at = 0;
  l.floats_smem = at, at += align_up(l.m.floats_count, 4);
  l.slots_smem = at, at += 2 * l.slot_floats;
  l.h_smem = at, at += D * l.ld;
  l.a_smem = at, at += D * l.ld;
  l.big_smem = at, at += l.big_rows * l.ld;
  l.z_smem = at, at += align_up(l.tile * l.z_stride, 4);
  l.bars_smem = at, at += 4;
  l.smem_bytes = at * 4;
  *result = std::move(r);
  return true;
}

bool build_row_lane(const ChainSpec& spec, const RlBudget& budget, RlBuilt* result, std::string* why) {
  if (spec.compute != Elem::F32) return fail(why, "the FFMA kernel computes in float32");
  RtBuilt b;
  std::vector<std::vector<unsigned char>> stages;
  if (!recognize(spec, pack_kn, &b, &stages, why)) return false;
  RlBuilt r;
  RlLayout& l = r.layout;
  l.m = b.model;
  RtModel& m = l.m;
  const int D = m.width, S = m.seq;
  if (m.x_elem != Elem::F32 || m.recon_elem != Elem::F32 || m.latent_elem != Elem::F32)
    return fail(why, "the FFMA kernel reads and writes float32 tensors");
  bool shape = false;
  for (const RlShape& c : kRlShapes) shape |= c.width == D && c.head_dim == m.head_dim;
  if (!shape)
    return fail(why, "width ", D, " with head dim ", m.head_dim, " (the row-per-lane kernel is compiled for ",
                kRlShapes[0].width, " / ", kRlShapes[0].head_dim, ")");
  if (S < 1 || S > kRfMaxSeq) return fail(why, "sequences of ", S, " rows (up to ", kRfMaxSeq, ")");
  if (m.slice % 4 || m.hidden % 16 || m.latent % 4)
    return fail(why, "slice ", m.slice, " (a multiple of 4), hidden ", m.hidden, " (of 16), latent ", m.latent,
                " (of 4)");
  // Linears' W at float offsets in their stages; the stages one after another in the blob.
  auto to_floats = [](RtLinear& L) { L.w /= 4; };
  to_floats(m.embed), to_floats(m.enc), to_floats(m.dec), to_floats(m.out);
  for (int i = 0; i < m.blocks; ++i) {
    RtBlock& blk = m.block[i];
    to_floats(blk.qkv), to_floats(blk.proj), to_floats(blk.fc1), to_floats(blk.fc2);
  }
  m.floats_count = static_cast<int>(b.floats.size());
  r.floats = std::move(b.floats);
  std::vector<int> stage_at(stages.size());
  int slot = 0;
  const size_t enc = 1 + 2 * m.blocks, dec = enc + 1;
  for (size_t i = 0; i < stages.size(); ++i) {
    stage_at[i] = static_cast<int>(r.weights.size());
    r.weights.insert(r.weights.end(), reinterpret_cast<const float*>(stages[i].data()),
                     reinterpret_cast<const float*>(stages[i].data() + stages[i].size()));
    if (i != enc && i != dec) slot = std::max(slot, static_cast<int>(stages[i].size() / 4));
  }
  // The tile: whole samples per warp; the encoder's items (4 columns of two samples) within the threads.
  l.warps = budget.threads / 32, l.spw = 32 / S, l.tile = l.warps * l.spw;
  const int threads = budget.threads, items = (l.tile + 1) / 2 * (m.latent / 4);
  if (items > threads) return fail(why, "a latent of ", m.latent, " has more encoder items than threads");
  if ((l.tile * (S * D / 4) + threads - 1) / threads > kRlMaxDecoderItems)
    return fail(why, "the decoder's ", S * D, " columns exceed the kernel's items per thread");
  l.enc_split = std::max(1, threads / items);
  l.row_stride = D + 4, l.flat_stride = S * l.row_stride, l.kv_stride = 2 * m.head_dim + 4;
  l.z_stride = m.latent % 2 ? m.latent : m.latent + 1;
  const int scratch = std::max(l.tile * l.flat_stride, l.warps * 32 * l.kv_stride);
  const int partial = l.enc_split * l.tile * m.latent;
  const int fixed = align_up(m.floats_count, 4) + scratch + partial + align_up(l.tile * l.z_stride, 4) + 4;
  // Two slots of the largest stage but the encoder's and decoder's (those in chunks of whole rows), or of those
  // too where they fit.
  const int room = (budget.smem_bytes / 4 - fixed) / 2 / 4 * 4;
  const int whole = std::max(static_cast<int>(stages[enc].size()), static_cast<int>(stages[dec].size())) / 4;
  if (room < slot || room < S * D)
    return fail(why, "a stage of ", slot * 4, " bytes does not fit two slots beside a tile of ", l.tile, " samples");
  l.slot_floats = std::min(room, std::max(slot, whole));
  l.enc_kc = std::min(S * D, l.slot_floats / m.latent);
  l.dec_kc = std::min(m.latent, l.slot_floats / (S * D));
  auto chunk = [&](int at, int floats) {
    if (l.chunks == kRlMaxChunks) return false;
    l.chunk[l.chunks].w = at, l.chunk[l.chunks].floats = floats;
    ++l.chunks;
    return true;
  };
  bool ok = true;
  for (size_t i = 0; i < stages.size(); ++i) {
    const int floats = static_cast<int>(stages[i].size() / 4);
    const int step = i == enc ? l.enc_kc * m.latent : i == dec ? l.dec_kc * S * D : floats;
    for (int at = 0; at < floats; at += step) ok &= chunk(stage_at[i] + at, std::min(step, floats - at));
  }
  if (!ok) return fail(why, "more than ", kRlMaxChunks, " weight chunks");
  int at = 0;
  l.floats_smem = at, at += align_up(m.floats_count, 4);
  l.slots_smem = at, at += 2 * l.slot_floats;
  l.scratch_smem = at, at += scratch;
  l.partial_smem = at, at += partial;
  l.z_smem = at, at += align_up(l.tile * l.z_stride, 4);
  l.bars_smem = at, at += 4;
  l.smem_bytes = at * 4;
  *result = std::move(r);
  return true;
}

}  // namespace ie::sr

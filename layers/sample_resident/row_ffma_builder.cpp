#include "layers/sample_resident/row_ffma_builder.h"

#include <algorithm>

#include "layers/sample_resident/row_tile_recognize.h"

namespace ie::sr {
namespace {

// W [k][n] floats from a Linear's W^T [n][k] (compute F32).
std::vector<unsigned char> pack_kn(const ChainOp& op) {
  const int n = static_cast<int>(op.w32.size()) / op.k;
  std::vector<float> w(op.w32.size());
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < op.k; ++k) w[static_cast<size_t>(k) * n + j] = op.w32[static_cast<size_t>(j) * op.k + k];
  return std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(w.data()),
                                    reinterpret_cast<const unsigned char*>(w.data() + w.size()));
}

// The chain recognized with each W as [k][n] floats and its tensors float32 at both ends, into an fp32 build
// (RfBuilt, RlBuilt): its layout's model (floats_count set), its floats, and the stages laid one after another in
// its weights, stage i from float stage_at[i] (stage_at has one more entry: the end).
template <class Built>
bool recognize_f32(const ChainSpec& spec, Built* r, std::vector<int>* stage_at, std::string* why) {
  if (spec.compute != Elem::F32) return fail(why, "the FFMA kernel computes in float32");
  RtBuilt b;
  std::vector<std::vector<unsigned char>> stages;
  if (!recognize_row_tile(spec, pack_kn, &b, &stages, why)) return false;
  const RtModel& m = b.model;
  if (m.x_elem != Elem::F32 || m.recon_elem != Elem::F32 || m.latent_elem != Elem::F32)
    return fail(why, "the FFMA kernel reads and writes float32 tensors");
  stage_at->assign(1, 0);
  for (const auto& st : stages) {
    r->weights.insert(r->weights.end(), reinterpret_cast<const float*>(st.data()),
                      reinterpret_cast<const float*>(st.data() + st.size()));
    stage_at->push_back(static_cast<int>(r->weights.size()));
  }
  r->layout.m = b.model;
  r->layout.m.floats_count = static_cast<int>(b.floats.size());
  r->floats = std::move(b.floats);
  return true;
}

}  // namespace

bool build_row_ffma(const ChainSpec& spec, const RfBudget& budget, RfBuilt* result, std::string* why) {
  RfBuilt r;
  std::vector<int> stage_at;
  if (!recognize_f32(spec, &r, &stage_at, why)) return false;
  RfLayout& l = r.layout;
  const RtModel& m = l.m;
  const int D = m.width, S = m.seq;
  if (S < 1 || S > kRfMaxSeq) return fail(why, "sequences of ", S, " rows (up to ", kRfMaxSeq, ")");
  if (D % 16 || m.hidden % 16 || m.slice % 16 || m.latent % 4 || m.head_dim % 4)
    return fail(why, "width ", D, ", hidden ", m.hidden, ", slice ", m.slice, " (multiples of 16), latent ", m.latent,
                ", head dim ", m.head_dim, " (of 4)");
  // The stream of Linears: each one's W at its stage's offset plus its own.
  auto add = [&](const RtLinear& L, int stage, int k, int n) {
    RfGemm& g = l.gemm[l.linears++];
    g.w = stage_at[stage] + L.w / 4, g.k = k, g.n = n;
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
  RlBuilt r;
  std::vector<int> stage_at;
  if (!recognize_f32(spec, &r, &stage_at, why)) return false;
  RlLayout& l = r.layout;
  RtModel& m = l.m;
  const int D = m.width, S = m.seq;
  bool shape = false;
  for (const RlShape& c : kRlShapes) shape |= c.width == D && c.head_dim == m.head_dim;
  if (!shape)
    return fail(why, "width ", D, " with head dim ", m.head_dim, " (the row-per-lane kernel is compiled for ",
                kRlShapes[0].width, " / ", kRlShapes[0].head_dim, ")");
  if (S < 1 || S > kRfMaxSeq) return fail(why, "sequences of ", S, " rows (up to ", kRfMaxSeq, ")");
  if (m.slice % 4 || m.hidden % 16 || m.latent % 4)
    return fail(why, "slice ", m.slice, " (a multiple of 4), hidden ", m.hidden, " (of 16), latent ", m.latent,
                " (of 4)");
  // Linears' W at float offsets in their stages.
  auto to_floats = [](RtLinear& L) { L.w /= 4; };
  to_floats(m.embed), to_floats(m.enc), to_floats(m.dec), to_floats(m.out);
  for (int i = 0; i < m.blocks; ++i) {
    RtBlock& blk = m.block[i];
    to_floats(blk.qkv), to_floats(blk.proj), to_floats(blk.fc1), to_floats(blk.fc2);
  }
  const int stages = static_cast<int>(stage_at.size()) - 1, enc = 1 + 2 * m.blocks, dec = enc + 1;
  auto stage_floats = [&](int i) { return stage_at[i + 1] - stage_at[i]; };
  int slot = 0;
  for (int i = 0; i < stages; ++i)
    if (i != enc && i != dec) slot = std::max(slot, stage_floats(i));
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
  const int whole = std::max(stage_floats(enc), stage_floats(dec));
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
  for (int i = 0; i < stages; ++i) {
    const int floats = stage_floats(i);
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

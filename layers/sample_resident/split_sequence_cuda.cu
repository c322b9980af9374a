// The split sequence (split_sequence.h): the recognized chain's weights packed once per engine (each split product's
// halves and column scales, the cuBLASLt products' W as [k][n] floats, one device blob; the LayerNorms' and biases'
// floats, another), then one run = 5 + 5 x blocks launches on the step's stream, the activations between them in the
// step's workspace.
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "layers/attention/attention_fused.cuh"
#include "layers/attention/attention_split.cuh"
#include "layers/common/cublaslt_gemm.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/launch_limits.cuh"
#include "layers/linear/linear_split_latent.cuh"
#include "layers/linear/linear_split_launch.h"
#include "layers/linear/linear_split_mlp.cuh"
#include "layers/sample_resident/row_tile_recognize.h"
#include "layers/sample_resident/split_sequence.h"

namespace ie {
namespace {

using dev::Act;
using lin::split::Norm;
using SplitLaunch = cudaError_t (*)(const lin::split::Params&, int, cudaStream_t);

// The sequence against the per-step plans (bench, H200, compute p50 in one call, ms). First form
// (split_sequence/call_b, fp32): batch 32 (320 rows) 0.0928 / 0.0909, 64 0.0933 / 0.0918, 128 0.0954 / 0.0957, 256
// 0.0968 / 0.1048, 4096 0.261 / 0.296, 65536 2.680 / 3.229: from 128 samples. With the tile-form attention and the MLP
// kernel (attention_own/call_h) it wins from 16 samples in both modes: fp32 16 / 32 / 64 / 128 = 0.0746 / 0.0844 /
// 0.0833 / 0.0849 against 0.1056 / 0.0887 / 0.0902 / 0.0933, tf32 0.0748 / 0.0847 / 0.0830 / 0.0849 against 0.0866 /
// 0.0898 / 0.0860 / 0.0866. Kept from 128 samples in both until its default form below that is GPU-tested.
constexpr int64_t kMinRows = 1280;

// The fused products the build holds: (K, N, activation, residual, LayerNorm before, LayerNorm after). Each is its
// own kernel; these are the SSA's (width 64, slices of 32, an MLP of 128). Another size of the architecture declines
// to the per-step plan, naming the product.
struct Compiled {
  int k, n;
  Act act;
  bool res;
  Norm in, out;
  SplitLaunch fn;
};
template <int K, int N, Act A, bool R, Norm I, Norm O>
constexpr Compiled entry() {
  return {K, N, A, R, I, O, lin::split::launch_fused<K / 16, N / 16, A, R, I, O>};
}
constexpr Compiled kCompiled[] = {
    entry<32, 64, Act::None, false, Norm::Off, Norm::Gelu>(),    // embedding, LayerNorm, GELU
    entry<32, 64, Act::None, false, Norm::Off, Norm::Plain>(),   // embedding, LayerNorm
    entry<64, 192, Act::None, false, Norm::Plain, Norm::Off>(),  // LayerNorm, q | k | v
    entry<64, 64, Act::None, true, Norm::Off, Norm::Off>(),      // projection + residual
    entry<64, 128, Act::Gelu, false, Norm::Plain, Norm::Off>(),  // LayerNorm, fc1, GELU
    entry<128, 64, Act::None, true, Norm::Off, Norm::Off>(),     // fc2 + residual
    entry<128, 64, Act::None, true, Norm::Off, Norm::Plain>(),   // the last fc2 + residual, the final LayerNorm
    entry<64, 32, Act::None, false, Norm::Gelu, Norm::Off>(),    // decoder LayerNorm, GELU, output
    entry<64, 32, Act::None, false, Norm::Plain, Norm::Off>(),   // decoder LayerNorm, output
};

Norm norm_of(const sr::RtNorm& n) { return n.act == static_cast<int>(Act::Gelu) ? Norm::Gelu : Norm::Plain; }

const char* norm_name(Norm n) { return n == Norm::Off ? "" : n == Norm::Plain ? " LayerNorm" : " LayerNorm+GELU"; }

// One product of the sequence: its launch and the places of its parameters.
struct Product {
  SplitLaunch fn = nullptr;
  int k = 0, n = 0;
  Act act = Act::None;
  int64_t w = -1, col_scale = -1;  // bytes into the weight blob
  int bias = -1;                   // floats into the float blob
  int in_gamma = -1, in_beta = -1, out_gamma = -1, out_beta = -1;
  float in_eps = 1e-5f, out_eps = 1e-5f;
};

// The packed weights: each piece at a 256-byte boundary.
struct Blob {
  std::vector<unsigned char> bytes;
  int64_t add(const void* data, size_t n) {
    const int64_t at = static_cast<int64_t>((bytes.size() + 255) / 256 * 256);
    bytes.resize(static_cast<size_t>(at) + n);
    std::memcpy(bytes.data() + at, data, n);
    return at;
  }
};

// A Linear's W^T [n][k] floats as the recognizer saw it, in its order: embedding, per block q | k | v, projection,
// fc1, fc2, then the encoder, the decoder, the output.
struct SeenLinear {
  int k = 0, n = 0;
  std::vector<float> wt;
};

class SplitSequenceKernel : public Kernel {
 public:
  struct Plan {
    sr::RtModel m;
    int64_t batch = 0;
    int sms = 0;
    const unsigned char* blob = nullptr;
    const float* floats = nullptr;
    Product embed, out;
    Product qkv[sr::kRtMaxBlocks], proj[sr::kRtMaxBlocks], fc1[sr::kRtMaxBlocks], fc2[sr::kRtMaxBlocks];
    int64_t enc_w = -1, dec_w = -1;  // [k][n] floats for cuBLASLt
    bool split_latent = false;       // the encoder and decoder on linear_split_latent.cuh instead
    int64_t enc_split = -1, enc_scale = -1, dec_split = -1, dec_scale = -1;  // their blocks and column scales
    att::Params attention;  // the attention's fixed fields (batch, sizes, ld)
    bool joined = false;    // q | k | v and the attention in one kernel (attention_split.cuh)
    int mlp_chunk = 0;      // fc1, GELU and fc2 in one kernel (linear_split_mlp.cuh), this many hidden columns at a
                            // time (32 or 16); 0: apart
    int smem_optin = 0;
  };

  SplitSequenceKernel(const KernelInit& init, const Plan& plan)
      : m_plan(plan),
        m_rows(plan.batch * plan.m.seq),
        m_enc(cuda::state_of(init.backend_state).cublaslt(),
              cuda::LtShape{plan.batch, plan.m.latent, static_cast<int64_t>(plan.m.seq) * plan.m.width},
              cuda::LtEpilogue::Bias, false, init.node.label() + " (encoder)"),
        m_dec(cuda::state_of(init.backend_state).cublaslt(),
              cuda::LtShape{plan.batch, static_cast<int64_t>(plan.m.seq) * plan.m.width, plan.m.latent},
              cuda::LtEpilogue::Bias, false, init.node.label() + " (decoder)") {
    const sr::RtModel& m = plan.m;
    m_qkv = 0;
    m_y = m_qkv + padded(m_rows * 3 * m.width);
    m_u = m_y + padded(m_rows * m.width);
    m_h = m_u + (plan.mlp_chunk ? 0 : padded(m_rows * m.hidden));  // the MLP kernel keeps the hidden rows on chip
    m_lt = m_h + padded(m_rows * m.width);
  }

  size_t workspace_bytes() const override { return m_lt + std::max(m_enc.workspace_bytes(), m_dec.workspace_bytes()); }

  void run(KernelContext& ctx) override {
    const sr::RtModel& m = m_plan.m;
    const cudaStream_t s = cuda::stream_of(ctx);
    char* ws = static_cast<char*>(ctx.workspace);
    float* qkv = reinterpret_cast<float*>(ws + m_qkv);
    float* y = reinterpret_cast<float*>(ws + m_y);
    float* u = reinterpret_cast<float*>(ws + m_u);
    float* h = reinterpret_cast<float*>(ws + m_h);
    const float* x = ctx.inputs[0].as<const float>();
    float* recon = static_cast<float*>(ctx.outputs[m.recon_output].data);
    float* latent = static_cast<float*>(ctx.outputs[m.latent_output].data);
    if (!cuda::aligned_to(x, 8) || !cuda::aligned_to(recon, 8))
      throw std::runtime_error("the split sequence's input or reconstruction is not 8-byte aligned");  // arena: 256
    product(m_plan.embed, x, nullptr, h, s);
    for (int b = 0; b < m.blocks; ++b) {
      att::Params p = m_plan.attention;
      p.y = y;
      p.cos = floats(m.block[b].rope_cos);
      p.sin = floats(m.block[b].rope_sin);
      p.scale = m.block[b].scale;
      if (m_plan.joined) {
        att::split::SplitParams sp;
        sp.lin = params(m_plan.qkv[b], h, nullptr, nullptr);
        sp.att = p;
        IE_CUDA_CHECK((att::split::launch_split_attention<4, 12, Norm::Plain>(sp, m_plan.sms, m_plan.smem_optin, s)));
      } else {
        product(m_plan.qkv[b], h, nullptr, qkv, s);
        p.q = qkv, p.k = qkv + m.width, p.v = qkv + 2 * m.width;
        IE_CUDA_CHECK(att::launch<float>(p, s));
      }
      product(m_plan.proj[b], y, h, h, s);  // in place: each element's residual is read before it is written
      const bool last = b + 1 == m.blocks && !m_plan.split_latent;  // for cuBLASLt: the final LayerNorm's rows
      if (m_plan.mlp_chunk) {
        mlp(m_plan.fc1[b], m_plan.fc2[b], h, last ? y : h, s);
      } else {
        product(m_plan.fc1[b], h, nullptr, u, s);
        product(m_plan.fc2[b], u, h, last ? y : h, s);
      }
    }
    if (m_plan.split_latent) {
      lin::split::LatentParams lp;
      lp.batch = m_plan.batch, lp.seq = m.seq;
      lp.h = h, lp.latent = latent;
      lp.w = reinterpret_cast<const uint4*>(m_plan.blob + m_plan.enc_split);
      lp.col_scale = weights(m_plan.enc_scale), lp.bias = floats(m.enc.bias);
      lp.gamma = floats(m.final_norm.gamma), lp.beta = floats(m.final_norm.beta), lp.eps = m.final_norm.eps;
      IE_CUDA_CHECK((lin::split::launch_encoder<4, 2, Norm::Plain>(lp, m_plan.sms, m_plan.smem_optin, s)));
      lin::split::LatentParams ld;
      ld.batch = m_plan.batch, ld.seq = m.seq;
      ld.z = latent, ld.recon = recon;
      ld.w = reinterpret_cast<const uint4*>(m_plan.blob + m_plan.dec_split);
      ld.col_scale = weights(m_plan.dec_scale), ld.bias = floats(m.dec.bias), ld.out_bias = floats(m.out.bias);
      ld.gamma = floats(m.dec_norm.gamma), ld.beta = floats(m.dec_norm.beta), ld.eps = m.dec_norm.eps;
      IE_CUDA_CHECK((lin::split::launch_decoder<2, 4, 2, Norm::Gelu>(ld, m_plan.sms, m_plan.smem_optin, s)));
      return;
    }
    char* lt_ws = ws + m_lt;
    m_enc.run(y, weights(m_plan.enc_w), nullptr, latent, m_plan.floats + m.enc.bias, 1.f, 0.f, lt_ws, s);
    m_dec.run(latent, weights(m_plan.dec_w), nullptr, qkv, m_plan.floats + m.dec.bias, 1.f, 0.f, lt_ws, s);
    product(m_plan.out, qkv, nullptr, recon, s);
  }

 private:
  static size_t padded(int64_t floats) { return (static_cast<size_t>(floats) * sizeof(float) + 255) / 256 * 256; }
  const float* weights(int64_t at) const { return reinterpret_cast<const float*>(m_plan.blob + at); }
  const float* floats(int at) const { return at >= 0 ? m_plan.floats + at : nullptr; }

  void product(const Product& pr, const float* a, const float* residual, float* out, cudaStream_t s) const {
    IE_CUDA_CHECK(pr.fn(params(pr, a, residual, out), m_plan.sms, s));
  }

  // fc1 (its LayerNorm in the prologue, GELU) and fc2 + residual (the final LayerNorm when fc2 carries it) in one
  // kernel, the hidden rows in registers.
  void mlp(const Product& fc1, const Product& fc2, const float* x, float* out, cudaStream_t s) const {
    lin::split::MlpParams p;
    p.x = x, p.y = out, p.rows = m_rows;
    p.w1 = reinterpret_cast<const uint4*>(m_plan.blob + fc1.w), p.cs1 = weights(fc1.col_scale), p.b1 = floats(fc1.bias);
    p.w2 = reinterpret_cast<const uint4*>(m_plan.blob + fc2.w), p.cs2 = weights(fc2.col_scale), p.b2 = floats(fc2.bias);
    p.gamma = floats(fc1.in_gamma), p.beta = floats(fc1.in_beta), p.eps = fc1.in_eps;
    p.out_gamma = floats(fc2.out_gamma), p.out_beta = floats(fc2.out_beta), p.out_eps = fc2.out_eps;
    const bool norm = p.out_gamma != nullptr, wide = m_plan.mlp_chunk == 32;
    const int sms = m_plan.sms, optin = m_plan.smem_optin;
    using lin::split::launch_mlp;
    IE_CUDA_CHECK(norm ? (wide ? launch_mlp<4, 8, 2, Norm::Plain>(p, sms, optin, s)
                               : launch_mlp<4, 8, 1, Norm::Plain>(p, sms, optin, s))
                       : (wide ? launch_mlp<4, 8, 2, Norm::Off>(p, sms, optin, s)
                               : launch_mlp<4, 8, 1, Norm::Off>(p, sms, optin, s)));
  }

  lin::split::Params params(const Product& pr, const float* a, const float* residual, float* out) const {
    lin::split::Params p;
    p.a = a;
    p.w = reinterpret_cast<const uint4*>(m_plan.blob + pr.w);
    p.col_scale = weights(pr.col_scale);
    p.bias = floats(pr.bias);
    p.residual = residual;
    p.y = out;
    p.rows = m_rows;
    p.k = pr.k, p.n = pr.n;
    p.act = pr.act;
    p.in_gamma = floats(pr.in_gamma), p.in_beta = floats(pr.in_beta), p.in_eps = pr.in_eps;
    p.out_gamma = floats(pr.out_gamma), p.out_beta = floats(pr.out_beta), p.out_eps = pr.out_eps;
    return p;
  }

  Plan m_plan;
  int64_t m_rows;
  cuda::LtGemm m_enc, m_dec;
  size_t m_qkv = 0, m_y = 0, m_u = 0, m_h = 0, m_lt = 0;
};

// The product's compiled kernel, or nullptr (and *why, naming `what`).
SplitLaunch find_compiled(const char* what, int k, int n, Act act, bool res, Norm in, Norm out, std::string* why) {
  for (const Compiled& c : kCompiled)
    if (c.k == k && c.n == n && c.act == act && c.res == res && c.in == in && c.out == out) return c.fn;
  *why = concat("the split sequence's build holds no", norm_name(in), " ", what, " of K = ", k, ", N = ", n,
                act == Act::Gelu ? " + GELU" : "", res ? " + residual" : "", norm_name(out),
                " (compiled for the SSA's sizes: width 64, slices of 32, an MLP of 128)");
  return nullptr;
}

}  // namespace

std::unique_ptr<Kernel> make_split_sequence(const KernelInit& init, const sr::ChainSpec& spec, int64_t batch,
                                            std::string* why) {
  if (spec.compute != sr::Elem::F32) {
    *why = "the split sequence computes float32 chains";
    return nullptr;
  }
  // tf32 allows TF32 products; the split products are float32-exact and faster than the tf32 mode's per-step plan
  // (above; as conv1 in tf32 stays on float products where that is better).
  if (init.precision != Precision::fp32 && init.precision != Precision::tf32) {
    *why = concat("the ", precision_name(init.precision), " mode runs its float32 chain per step");
    return nullptr;
  }
  std::vector<SeenLinear> seen;
  const sr::RowTilePack note = [&](const sr::ChainOp& op) {
    seen.push_back(SeenLinear{op.k, op.op == sr::OpCode::Attention ? 3 * op.n : op.n, op.w32});
    return std::vector<unsigned char>();
  };
  sr::RtBuilt built;
  std::vector<std::vector<unsigned char>> stages;
  if (!sr::recognize_row_tile(spec, note, &built, &stages, why)) return nullptr;
  const sr::RtModel& m = built.model;
  if (m.x_elem != sr::Elem::F32 || m.recon_elem != sr::Elem::F32 || m.latent_elem != sr::Elem::F32) {
    *why = "the split sequence reads and writes float32 tensors";
    return nullptr;
  }
  if (m.enc.act != 0 || m.dec.act != 0) {
    *why = "an activation on the encoder or decoder product (cuBLASLt runs them with a bias alone)";
    return nullptr;
  }
  const int64_t rows = batch * m.seq;
  const bool forced = lin::split::fp32_linear_choice() == "split";
  if (!lin::split::fp32_linear_takes(rows, m.width, m.width, Act::None) || (rows < kMinRows && !forced)) {
    *why = concat(rows, " rows: the split sequence runs from ", kMinRows,
                  " rows, where it is faster than the per-step plan (IE_LINEAR_FP32=split: at every row count; "
                  "=nosplit, ffma, cublas: never)");
    return nullptr;
  }
  const size_t linears = 4 + 4 * static_cast<size_t>(m.blocks);
  if (seen.size() != linears) {
    *why = "the recognized chain's products are not the architecture's";
    return nullptr;
  }
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) {
    *why = "no CUDA device to plan for";
    return nullptr;
  }

  SplitSequenceKernel::Plan plan;
  plan.m = m, plan.batch = batch, plan.sms = limits.sms;
  Blob blob;
  // A split product: its kernel, W^T's halves and column scales, its floats.
  auto split = [&](const char* what, const SeenLinear& l, const sr::RtLinear& rl, bool res, const sr::RtNorm* in,
                   const sr::RtNorm* out, Product* pr) {
    const Act act = static_cast<Act>(rl.act);
    pr->fn =
        find_compiled(what, l.k, l.n, act, res, in ? norm_of(*in) : Norm::Off, out ? norm_of(*out) : Norm::Off, why);
    if (!pr->fn) return false;
    pr->k = l.k, pr->n = l.n, pr->act = act, pr->bias = rl.bias;
    const lin::split::SplitWeights sw =
        lin::split::pack_split_weights([&](int i, int j) { return l.wt[static_cast<size_t>(j) * l.k + i]; }, l.k, l.n);
    pr->w = blob.add(sw.blob.data(), sw.blob.size() * sizeof(uint16_t));
    pr->col_scale = blob.add(sw.col_scale.data(), sw.col_scale.size() * sizeof(float));
    if (in) pr->in_gamma = in->gamma, pr->in_beta = in->beta, pr->in_eps = in->eps;
    if (out) pr->out_gamma = out->gamma, pr->out_beta = out->beta, pr->out_eps = out->eps;
    return true;
  };
  // A cuBLASLt product's W [k][n] floats.
  auto plain = [&](const SeenLinear& l) {
    std::vector<float> w(l.wt.size());
    for (int j = 0; j < l.n; ++j)
      for (int i = 0; i < l.k; ++i) w[static_cast<size_t>(i) * l.n + j] = l.wt[static_cast<size_t>(j) * l.k + i];
    return blob.add(w.data(), w.size() * sizeof(float));
  };
  // The latent products on the split kernels (linear_split_latent.cuh) where the build holds the sizes: the final
  // LayerNorm then in the encoder's prologue, the decoder's rows in registers; else on cuBLASLt, with the final
  // LayerNorm in the last fc2's epilogue (IE_SPLIT_LATENT=cublas: always, for comparisons).
  // They take a warp per 16 samples and each CTA stages every position's weights: with too few CTAs cuBLASLt is faster
  // (the whole SSA, bench, H200, split_sequence/call_e, split latent against cuBLASLt, ms: batch 512 0.133 / 0.101,
  // 4096 0.273 / 0.261, 16384 0.724 / 0.777, 32768 1.329 / 1.418; call_d: 65536 2.499 / 2.667). Taken from half
  // as many CTAs as SMs (batch 8448 on an H200; between 4096 and 16384 not measured). IE_SPLIT_LATENT=split takes
  // them at every batch (tests), =cublas never.
  const char* latent_env = std::getenv("IE_SPLIT_LATENT");
  const std::string latent_choice = latent_env ? latent_env : "";
  plan.split_latent = latent_choice != "cublas" && m.width == 64 && m.latent == 32 && m.slice == 32 &&
                      norm_of(m.final_norm) == Norm::Plain && norm_of(m.dec_norm) == Norm::Gelu &&
                      lin::split::encoder_smem(m.seq, 4, 2) <= static_cast<size_t>(limits.smem_optin) &&
                      lin::split::decoder_smem(m.seq, 2, 4, 2) <= static_cast<size_t>(limits.smem_optin);
  if (plan.split_latent && latent_choice != "split") {
    int per_sm = 0;
    const auto decoder = lin::split::split_decoder_kernel<2, 4, 2, Norm::Gelu>;
    const int smem = static_cast<int>(lin::split::decoder_smem(m.seq, 2, 4, 2));
    if (dev::resident_blocks(decoder, lin::split::kThreads, smem, limits.smem_optin, &per_sm) != cudaSuccess)
      per_sm = 0;
    const int64_t half_the_sms = static_cast<int64_t>(limits.sms) / 2 * lin::split::kWarps * 16;  // samples
    plan.split_latent = per_sm > 0 && batch >= half_the_sms;
  }
  const int S = m.seq, D = m.width, L = m.latent;
  size_t at = 0;
  if (!split("embedding", seen[at++], m.embed, false, nullptr, &m.embed_norm, &plan.embed)) return nullptr;
  for (int b = 0; b < m.blocks; ++b) {
    const sr::RtBlock& blk = m.block[b];
    if (!split("q | k | v product", seen[at++], blk.qkv, false, &blk.ln1, nullptr, &plan.qkv[b]) ||
        !split("projection", seen[at++], blk.proj, true, nullptr, nullptr, &plan.proj[b]) ||
        !split("MLP product", seen[at++], blk.fc1, false, &blk.ln2, nullptr, &plan.fc1[b]) ||
        !split("MLP product", seen[at++], blk.fc2, true, nullptr,
               b + 1 < m.blocks || plan.split_latent ? nullptr : &m.final_norm, &plan.fc2[b]))
      return nullptr;
  }
  // fc1 + GELU and fc2 + residual in one kernel where the build holds the sizes (width 64, an MLP of 128): apart,
  // fc1 writes and fc2 reads 2 x 128 floats a row. The whole SSA, fp32, H200, one call (attention_own/call_g, ms):
  // 65536 2.034 (32 hidden columns at a time) / 2.044 (16) / 2.316 (apart), 4096 0.2162 / 0.2181 / 0.2435, 128
  // 0.0822 / 0.0826 / 0.0897; the kernel 0.295 ms a block at 65536 against 0.208 + 0.206 apart. 32 at a time spills
  // 16 bytes (128 registers), 16 none. IE_SPLIT_MLP=16 takes 16 at a time, =apart the two products.
  const char* mlp_env = std::getenv("IE_SPLIT_MLP");
  const std::string mlp_choice = mlp_env ? mlp_env : "";
  if (m.width == 64 && m.hidden == 128 && mlp_choice != "apart" &&
      lin::split::mlp_smem(4, 8) <= static_cast<size_t>(limits.smem_optin))
    plan.mlp_chunk = mlp_choice == "16" ? 16 : 32;
  const SeenLinear &enc = seen[at], &dec = seen[at + 1], &out = seen[at + 2];
  plan.enc_w = plain(seen[at++]);
  plan.dec_w = plain(seen[at++]);
  if (plan.split_latent) {
    // Per position s: the encoder's rows s D .. of W [S D, L], the decoder's columns s D .. of W [L, S D]; then the
    // output product's W [D, slice] after the decoder's.
    std::vector<uint16_t> enc_blocks, dec_blocks;
    std::vector<float> enc_scales, dec_scales;
    auto append = [](const lin::split::SplitWeights& w, std::vector<uint16_t>* blocks, std::vector<float>* scales) {
      blocks->insert(blocks->end(), w.blob.begin(), w.blob.end());
      scales->insert(scales->end(), w.col_scale.begin(), w.col_scale.end());
    };
    for (int p = 0; p < S; ++p) {
      append(lin::split::pack_split_weights(
                 [&](int i, int j) { return enc.wt[static_cast<size_t>(j) * S * D + p * D + i]; }, D, L),
             &enc_blocks, &enc_scales);
      append(lin::split::pack_split_weights(
                 [&](int i, int j) { return dec.wt[(static_cast<size_t>(p) * D + j) * L + i]; }, L, D),
             &dec_blocks, &dec_scales);
    }
    append(lin::split::pack_split_weights([&](int i, int j) { return out.wt[static_cast<size_t>(j) * D + i]; }, D,
                                          m.slice),
           &dec_blocks, &dec_scales);
    plan.enc_split = blob.add(enc_blocks.data(), enc_blocks.size() * sizeof(uint16_t));
    plan.enc_scale = blob.add(enc_scales.data(), enc_scales.size() * sizeof(float));
    plan.dec_split = blob.add(dec_blocks.data(), dec_blocks.size() * sizeof(uint16_t));
    plan.dec_scale = blob.add(dec_scales.data(), dec_scales.size() * sizeof(float));
  }
  if (!split("output product", seen[at++], m.out, false, &m.dec_norm, nullptr, &plan.out)) return nullptr;

  att::Params probe;
  probe.batch = batch;
  probe.seq = m.seq, probe.heads = m.heads, probe.dim = m.head_dim;
  probe.ld = 3 * m.width;
  att::Layout layout;
  const char* att_why = nullptr;
  if (!att::plan_layout(probe, 4, att::kDefaultThreads, att::kDefaultSmem, static_cast<size_t>(limits.smem_optin),
                        &layout, &att_why)) {
    *why = concat("the attention kernel: ", att_why);
    return nullptr;
  }
  plan.attention = probe;
  plan.smem_optin = limits.smem_optin;
  // q | k | v and the attention apart: the product into the workspace, then the attention kernel. Joined in one kernel
  // (attention_split.cuh) with IE_SPLIT_ATTENTION=joined, where it is compiled for the shape: measured slower
  // (ncu, H200, 65536 samples, call_b: 0.626 ms a block against 0.245 + 0.309; its CTAs of five warps, two per SM
  // under the weight's and the group's shared memory, wait out the products' and the attention's latency in turn).
  const char* joined = std::getenv("IE_SPLIT_ATTENTION");
  probe.ld = 0;
  plan.joined = m.width == 64 && joined && std::string(joined) == "joined" &&  // compiled: K 64, 3E 192, LayerNorm
                !*att::split::split_attention_unsupported(probe, m.width, 4, 12) &&
                att::split::split_attention_smem(4, 12, 16 * att::split::split_group(m.seq) * m.seq / 16) <=
                    static_cast<size_t>(limits.smem_optin);
  plan.blob = static_cast<const unsigned char*>(init.prepared("split_sequence_weights", [&] {
    Tensor t(DType::UInt8, {static_cast<int64_t>(blob.bytes.size())});
    std::memcpy(t.data(), blob.bytes.data(), blob.bytes.size());
    return t;
  }));
  plan.floats = static_cast<const float*>(init.prepared("split_sequence_floats", [&] {
    Tensor t(DType::Float32, {static_cast<int64_t>(built.floats.size())});
    std::memcpy(t.data(), built.floats.data(), built.floats.size() * sizeof(float));
    return t;
  }));
  return std::make_unique<SplitSequenceKernel>(init, plan);
}

}  // namespace ie

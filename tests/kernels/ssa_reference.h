// The float reference of a sample-resident chain (Linear, LayerNorm, attention with RoPE): the labs of the
// sample-resident kernels check them against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "layers/sample_resident/sample_resident_builder.h"
#include "tests/kernels/ssa_chain.h"

namespace ie::sr {

inline float act_ref(int act, float v) {
  if (act == kGelu) return 0.5f * v * (1.f + std::erf(v / std::sqrt(2.f)));
  return v;
}

// The chain in float on the host, one sample at a time, weights as the kernel sees them (rounded to the compute
// type: from_bits(bits, type) -> float; float as they are in F32), activations unrounded, sums in double.
template <class FromBits>
void ssa_reference(const ChainSpec& c, const std::vector<float>& x, int64_t batch, std::vector<float>* recon,
                   std::vector<float>* latent, FromBits from_bits) {
  auto weight = [&](const ChainOp& op, size_t i) {
    return c.compute == Elem::F32 ? op.w32[i] : from_bits(op.w[i], c.compute);
  };
  const int nt = static_cast<int>(c.tensors.size());
  auto root = [&](int i) {
    while (c.tensors[i].alias_of >= 0) i = c.tensors[i].alias_of;
    return i;
  };
  std::vector<std::vector<float>> buf(nt);
  const int per_in = c.tensors[0].rows * c.tensors[0].cols;
  for (int64_t b = 0; b < batch; ++b) {
    for (int i = 0; i < nt; ++i)
      if (c.tensors[i].alias_of < 0) buf[i].assign(c.tensors[i].rows * c.tensors[i].cols, 0.f);
    std::copy(x.begin() + b * per_in, x.begin() + (b + 1) * per_in, buf[0].begin());
    for (const ChainOp& op : c.ops) {
      const ChainTensor& ti = c.tensors[op.in];
      const std::vector<float>& in = buf[root(op.in)];
      std::vector<float>& out = buf[root(op.out)];
      const int rows = ti.rows;
      if (op.op == OpCode::Linear) {
        for (int r = 0; r < rows; ++r)
          for (int n = 0; n < op.n; ++n) {
            double s = op.bias.empty() ? 0 : op.bias[n];
            for (int k = 0; k < op.k; ++k) s += in[r * op.k + k] * weight(op, n * op.k + k);
            float v = act_ref(op.act, static_cast<float>(s));
            if (op.residual >= 0) v += buf[root(op.residual)][r * op.n + n];
            out[r * op.n + n] = v;
          }
      } else if (op.op == OpCode::LayerNorm) {
        const int cols = ti.cols;
        std::vector<float> row(cols);
        for (int r = 0; r < rows; ++r) {
          double m = 0, v = 0;
          for (int j = 0; j < cols; ++j) m += in[r * cols + j];
          m /= cols;
          for (int j = 0; j < cols; ++j) v += (in[r * cols + j] - m) * (in[r * cols + j] - m);
          v /= cols;
          for (int j = 0; j < cols; ++j)
            row[j] = act_ref(op.act, static_cast<float>((in[r * cols + j] - m) / std::sqrt(v + op.eps)) * op.gamma[j] +
                                         (op.beta.empty() ? 0.f : op.beta[j]));
          std::copy(row.begin(), row.end(), out.begin() + r * cols);
        }
      } else {
        const int E = op.n, D = op.head_dim, W3 = 3 * E;
        std::vector<float> qkv(rows * W3);
        for (int r = 0; r < rows; ++r)
          for (int n = 0; n < W3; ++n) {
            double s = op.bias[n];
            for (int k = 0; k < op.k; ++k) s += in[r * op.k + k] * weight(op, n * op.k + k);
            qkv[r * W3 + n] = static_cast<float>(s);
          }
        if (!op.cos.empty())
          for (int r = 0; r < rows; ++r)
            for (int n = 0; n < 2 * E; n += 2) {
              const int i = (n % D) / 2;
              const float cs = op.cos[r * D / 2 + i], sn = op.sin[r * D / 2 + i];
              const float a = qkv[r * W3 + n], b2 = qkv[r * W3 + n + 1];
              qkv[r * W3 + n] = a * cs - b2 * sn;
              qkv[r * W3 + n + 1] = a * sn + b2 * cs;
            }
        for (int h = 0; h < op.heads; ++h)
          for (int q = 0; q < rows; ++q) {
            std::vector<double> p(rows);
            double mx = -1e30, sum = 0;
            for (int k = 0; k < rows; ++k) {
              double s = 0;
              for (int d = 0; d < D; ++d) s += qkv[q * W3 + h * D + d] * qkv[k * W3 + E + h * D + d];
              p[k] = s * op.scale;
              mx = std::max(mx, p[k]);
            }
            for (int k = 0; k < rows; ++k) sum += p[k] = std::exp(p[k] - mx);
            for (int d = 0; d < D; ++d) {
              double o = 0;
              for (int k = 0; k < rows; ++k) o += p[k] * qkv[k * W3 + 2 * E + h * D + d];
              out[q * E + h * D + d] = static_cast<float>(o / sum);
            }
          }
      }
    }
    for (int i = 0; i < nt; ++i) {
      const ChainTensor& t = c.tensors[i];
      if (t.output < 0) continue;
      std::vector<float>* dst = t.output == 0 ? recon : latent;
      const int per = t.rows * t.cols;
      std::copy(buf[root(i)].begin(), buf[root(i)].begin() + per, dst->begin() + b * per);
    }
  }
}

}  // namespace ie::sr

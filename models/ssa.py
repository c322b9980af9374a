"""SSA: SpectralShapeAutoencoder (shared/specs/models.md, second section).

bins 320 = S 10 slices x P 32 bins; width d 64; 4 heads of 16; MLP hidden 128; 2 pre-LN blocks; latent 32.
LayerNorm over the last dim (64), eps 1e-5, with weight and bias; GELU is the exact (erf) one.
forward(x [B, 320]) -> (recon [B, 320], latent [B, 32]). 113,152 parameters.

Attention is written with explicit matmuls and softmax (not F.scaled_dot_product_attention) so that both
ONNX exporters write plain MatMul / Softmax nodes. Inside a block the dims are read from the tensor
(b, s, c = h.shape; head dim c // 4), elsewhere the batch is x.shape[0]: the legacy exporter then writes the
Shape/Gather/Concat (and Cast, from the floor division) chains and the op types that the spec's last section
lists; the dynamo exporter folds them all away (123 nodes, as in the spec).
"""
import math

import torch
import torch.nn as nn

BINS = 320
SLICES = 10
SLICE_BINS = 32
WIDTH = 64
HEADS = 4
HEAD_DIM = 16
MLP_HIDDEN = 128
BLOCKS = 2
LATENT = 32
NUM_PARAMETERS = 113_152
LN_EPS = 1e-5
ROPE_BASE = 10000.0


def rope_tables(dtype=torch.float32):
    """cos, sin tables [S, HEAD_DIM/2]: angle[p, i] = p * 10000^(-2i/16), p = slice index, i = pair index."""
    i = torch.arange(HEAD_DIM // 2, dtype=torch.float64)
    theta = ROPE_BASE ** (-2.0 * i / HEAD_DIM)
    pos = torch.arange(SLICES, dtype=torch.float64)
    angle = pos[:, None] * theta[None, :]
    return torch.cos(angle).to(dtype), torch.sin(angle).to(dtype)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x [B, H, S, 16]; rotate consecutive pairs (2i, 2i+1) by angle[p, i]:
    (x_2i, x_2i+1) -> (x_2i cos - x_2i+1 sin, x_2i sin + x_2i+1 cos)."""
    x_even = x[..., 0::2]
    x_odd = x[..., 1::2]
    out_even = x_even * cos - x_odd * sin
    out_odd = x_even * sin + x_odd * cos
    return torch.stack((out_even, out_odd), dim=-1).flatten(-2)


class Block(nn.Module):
    """Pre-LN transformer block: h += proj(attention(LN(h))); h += fc2(GELU(fc1(LN(h))))."""

    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(WIDTH, eps=LN_EPS)
        self.q = nn.Linear(WIDTH, WIDTH)
        self.k = nn.Linear(WIDTH, WIDTH)
        self.v = nn.Linear(WIDTH, WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.ln2 = nn.LayerNorm(WIDTH, eps=LN_EPS)
        self.fc1 = nn.Linear(WIDTH, MLP_HIDDEN)
        self.gelu = nn.GELU()
        self.fc2 = nn.Linear(MLP_HIDDEN, WIDTH)

    def forward(self, h, cos, sin):
        b, s, c = h.shape                  # dims read from the tensor (see the module docstring)
        d = c // HEADS
        a = self.ln1(h)
        # [B, S, 64] -> [B, S, H, 16] -> [B, H, S, 16]; channel = head*16 + j
        q = self.q(a).view(b, s, HEADS, d).transpose(1, 2)
        k = self.k(a).view(b, s, HEADS, d).transpose(1, 2)
        v = self.v(a).view(b, s, HEADS, d).transpose(1, 2)
        q = apply_rope(q, cos, sin)
        k = apply_rope(k, cos, sin)
        att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(HEAD_DIM)   # [B, H, S, S]
        att = torch.softmax(att, dim=-1)
        y = torch.matmul(att, v)                                           # [B, H, S, 16]
        y = y.transpose(1, 2).reshape(b, s, -1)                            # head-major channels
        h = h + self.proj(y)
        h = h + self.fc2(self.gelu(self.fc1(self.ln2(h))))
        return h


class SpectralShapeAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(SLICE_BINS, WIDTH)
        self.embed_norm = nn.LayerNorm(WIDTH, eps=LN_EPS)
        self.embed_act = nn.GELU()
        self.blocks = nn.ModuleList([Block() for _ in range(BLOCKS)])
        self.enc_norm = nn.LayerNorm(WIDTH, eps=LN_EPS)
        self.to_latent = nn.Linear(SLICES * WIDTH, LATENT)
        self.from_latent = nn.Linear(LATENT, SLICES * WIDTH)
        self.dec_norm = nn.LayerNorm(WIDTH, eps=LN_EPS)
        self.dec_act = nn.GELU()
        self.out = nn.Linear(WIDTH, SLICE_BINS)
        cos, sin = rope_tables()
        # Not in the state_dict: the tables are a function of the hyper-parameters alone.
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        n = sum(p.numel() for p in self.parameters())
        assert n == NUM_PARAMETERS, f"SSA has {n} parameters, the spec says {NUM_PARAMETERS}"

    def encode(self, x):
        b = x.shape[0]
        h = x.view(b, SLICES, SLICE_BINS)                       # slice s holds bins 32s .. 32s+31
        h = self.embed_act(self.embed_norm(self.embed(h)))      # [B, 10, 64]
        for block in self.blocks:
            h = block(h, self.rope_cos, self.rope_sin)
        h = self.enc_norm(h).reshape(b, SLICES * WIDTH)        # index s*64 + c
        return self.to_latent(h)                                # [B, 32]

    def decode(self, z):
        b = z.shape[0]
        h = self.from_latent(z).view(b, SLICES, WIDTH)
        h = self.dec_act(self.dec_norm(h))
        return self.out(h).reshape(b, BINS)                     # [B, 320]

    def forward(self, x):
        """x [B, 320] -> (recon [B, 320], latent [B, 32])."""
        z = self.encode(x)
        return self.decode(z), z


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())

#!/usr/bin/python3
"""A small GPT-2-style decoder for the model benchmark (bench/models): token
and learned position embeddings, pre-norm blocks of causal self-attention
(torch 1.13's nn.MultiheadAttention with an additive upper-triangular mask)
and a GELU MLP, a final LayerNorm and an LM head tied to the token
embedding. No script in the repository made one before; this is it.

    /usr/bin/python3 models/gpt.py OUTDIR [--layers 4] [--dim 256] [--heads 4] [--seq 64] [--vocab 1000]

Writes OUTDIR/gpt.onnx (torch.onnx.export, opset 17), OUTDIR/gpt.inputs.npz
(`tokens`, int64 [1, seq]) and OUTDIR/gpt.outputs.npz (`logits`, float32
[1, seq, vocab], PyTorch's output in eval mode, one thread). Weights are
random (seeded), the LayerNorms' scales and shifts moved away from 1 and 0
so that none is the identity. Deterministic; needs Debian's /usr/bin/python3
(python3-torch, python3-onnx).
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import os
import warnings

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import save_npz  # noqa: E402

SEED = 20260


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class Gpt(nn.Module):
    def __init__(self, layers, dim, heads, seq, vocab):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(1, seq, dim) * 0.02)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as GPT-2 does
        # -inf above the diagonal: position i attends to 0..i only. A buffer,
        # so the export carries it as a constant of the graph.
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, tokens):
        n = tokens.shape[1]
        x = self.tok(tokens) + self.pos[:, :n]
        for block in self.blocks:
            x = block(x, self.mask[:n, :n])
        return self.head(self.ln_f(x))


def build(layers=4, dim=256, heads=4, seq=64, vocab=1000):
    """The module (eval mode) and its example input, {"tokens": int64 [1, seq]}."""
    torch.manual_seed(SEED)
    model = Gpt(layers, dim, heads, seq, vocab)
    with torch.no_grad():
        model.tok.weight.normal_(0, 0.02)  # GPT-2's initialization (torch's N(0, 1) gives logits in the hundreds)
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.8, 1.2)
                m.bias.normal_(0, 0.1)
    model.eval()
    tokens = torch.randint(0, vocab, (1, seq), generator=torch.Generator().manual_seed(SEED + 1))
    return model, {"tokens": tokens}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--vocab", type=int, default=1000)
    a = p.parse_args()
    torch.set_num_threads(1)  # bit-identical references from run to run
    os.makedirs(a.outdir, exist_ok=True)
    model, inputs = build(a.layers, a.dim, a.heads, a.seq, a.vocab)
    with torch.no_grad():
        logits = model(inputs["tokens"])
    path = os.path.join(a.outdir, "gpt.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (inputs["tokens"],), path, opset_version=17, do_constant_folding=True,
                          input_names=["tokens"], output_names=["logits"])
    save_npz(os.path.join(a.outdir, "gpt.inputs.npz"), [("tokens", inputs["tokens"].numpy())])
    save_npz(os.path.join(a.outdir, "gpt.outputs.npz"), [("logits", logits.numpy())])
    print(f"gpt: {os.path.getsize(path) / 1e6:.1f} MB, logits {tuple(logits.shape)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

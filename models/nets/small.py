"""Small models: boolean-mask indexing in every form the exporter handles (and
one it does not), a model with folded outputs, a transformer and an MLP.

Each builder returns (model, inputs) and may return extra export settings;
make_fixtures.py seeds the RNG before calling it.
"""
import math

import torch
from torch import nn

# One fixed mask pattern reused below, so that results are easy to read.
MASK_8 = [True, False, True, True, False, True, False, True]  # 5 of 8


class MaskConst1d(nn.Module):
    """Token selection with a fixed 1-D mask kept as a non-persistent buffer
    (exported as a Constant node)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor(MASK_8), persistent=False)
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        return self.proj(x[self.mask])


class MaskConst2d(nn.Module):
    """A 2-D mask written as a literal in forward (a Constant node)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 8)
        self.pattern = (torch.arange(24).reshape(4, 6) % 3 != 1).tolist()

    def forward(self, x):
        mask = torch.tensor(self.pattern)
        return self.proj(x[mask])


class MaskConst3d(nn.Module):
    """A mask over every dimension: the result is 1-D."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.rand(4, 6, 16) > 0.6, persistent=False)

    def forward(self, x):
        return x[self.mask] * 2.0 + 1.0


class MaskAxis1(nn.Module):
    """x[:, mask] with a 1-D mask: NonZero -> Transpose -> Squeeze -> Gather(axis=1)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor(MASK_8[:6]), persistent=False)
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        return self.proj(x[:, self.mask])


class Mask2dAxis1(nn.Module):
    """x[:, mask2d]: torch 1.13 exports a Squeeze of a size-2 axis, an invalid graph."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([[True, False, True], [False, True, True]]), persistent=False)

    def forward(self, x):
        return x[:, self.mask] * 2.0


class MaskBuffer(nn.Module):
    """A persistent buffer mask: an initializer in the ONNX file."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor(MASK_8))
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        return self.proj(x[self.mask])


class MaskComputed(nn.Module):
    def forward(self, x):
        return x[x > 0.5] * 2.0


class MaskAllFalse(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.zeros(4, 6, dtype=torch.bool), persistent=False)
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        return self.proj(x[self.mask])


class MaskInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 8)

    def forward(self, x, mask):
        return self.proj(x[mask])


class MaskMutatedBuffer(nn.Module):
    """A running "slot was ever active" mask, updated in place from the input
    before it is used. ONNX has no state: the exporter turns the update into an
    Or of the buffer's initial value and the comparison, and drops the
    write-back. Each eager call changes the buffer; the reference is the first
    call on a fresh model, which is what the exported graph computes."""

    def __init__(self):
        super().__init__()
        self.register_buffer("active", torch.tensor([True, False, False, True, False, False, True, False]))
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        self.active.logical_or_(x.norm(dim=-1) > 4.0)
        return self.proj(x[self.active])


class MaskMutatedBufferConst(nn.Module):
    """The buffer is written with a constant (self.active[1] = True): the exporter
    emits a ScatterND chain on the initializer, which torch's own constant
    folding leaves alone."""

    def __init__(self):
        super().__init__()
        self.register_buffer("active", torch.tensor([True, False, False, True, False, False, True, False]))
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        self.active[1] = True
        return self.proj(x[self.active])


class MaskWithIndex(nn.Module):
    """x[idx, mask]: an integer index and a mask in one advanced index; their
    positions are paired (result[i] = x[idx[i], nonzero(mask)[i]])."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([True, False, True, True, False, True]), persistent=False)
        self.register_buffer("idx", torch.tensor([0, 2, 1, 3]), persistent=False)
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        return self.proj(x[self.idx, self.mask])


class MaskWithSlice(nn.Module):
    """x[mask, 1:]: exported as a Slice followed by the masked gather."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor(MASK_8), persistent=False)
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        return self.proj(x[self.mask, 1:])


def mask_fixtures():
    """name -> (builder, notes). A builder returns (model, inputs[, export kwargs])."""
    x8 = lambda: torch.randn(8, 16)
    x3d = lambda: torch.randn(4, 6, 16)
    return {
        "mask_const_1d": (lambda: (MaskConst1d(), {"x": x8()}),
                          "x[mask] with a constant 1-D mask (non-persistent buffer -> Constant node); "
                          "5 of 8 rows, then Linear(16, 8)."),
        "mask_const_2d": (lambda: (MaskConst2d(), {"x": x3d()}),
                          "x[mask] with a constant (4, 6) mask literal (Constant node); 16 of 24 rows, then Linear."),
        "mask_const_3d": (lambda: (MaskConst3d(), {"x": x3d()}),
                          "x[mask] with a constant mask of x's full shape (Constant node); 1-D result, then *2+1."),
        "mask_axis1": (lambda: (MaskAxis1(), {"x": x3d()}),
                       "x[:, mask] with a constant 1-D mask at axis 1: NonZero->Transpose->Squeeze->Gather(axis 1)."),
        "mask_buffer": (lambda: (MaskBuffer(), {"x": x8()}),
                        "x[mask] with a persistent buffer mask: an initializer that is not a graph input "
                        "(SEMANTICS 1: a constant)."),
        "mask_buffer_overridable": (lambda: (MaskBuffer(), {"x": x8()}, {"keep_initializers_as_inputs": True}),
                                    "The same model exported with keep_initializers_as_inputs=True: every "
                                    "initializer, the mask included, is also a graph input (an overridable "
                                    "default, SEMANTICS 1: a parameter). inputs.npz holds only x."),
        "mask_computed": (lambda: (MaskComputed(), {"x": x3d()}),
                          "x[x > 0.5]: a mask computed in the graph; data-dependent 1-D result."),
        "mask_all_false": (lambda: (MaskAllFalse(), {"x": x3d()}),
                           "x[mask] with a constant all-false (4, 6) mask: the result is (0, 16), "
                           "then Linear -> (0, 8)."),
        "mask_input": (lambda: (MaskInput(), {"x": x3d(), "mask": torch.rand(4, 6) > 0.5}),
                       "x[mask] with the mask as a bool user input."),
        "mask_mutated_buffer": (lambda: (MaskMutatedBuffer(), {"x": x8()}),
                                "x[active] after active.logical_or_(|x| > 4) in forward. ONNX cannot express "
                                "a buffer mutation: the export is Or(initializer, Greater(...)), a computed "
                                "mask, and the write-back is lost (the reference is the first call on a fresh "
                                "model)."),
        "mask_mutated_buffer_const": (lambda: (MaskMutatedBufferConst(), {"x": x8()}),
                                      "x[active] after active[1] = True in forward: exported as ScatterND on "
                                      "the buffer's initializer (foldable; write-back lost as above)."),
        "mask_with_index": (lambda: (MaskWithIndex(), {"x": x3d()}),
                            "x[idx, mask] with constant idx (4,) and mask (6,) (4 true): paired advanced "
                            "indices, exported as flattened-index arithmetic + Gather."),
        "mask_with_slice": (lambda: (MaskWithSlice(), {"x": torch.randn(8, 6, 16)}),
                            "x[mask, 1:] with a constant 1-D mask: Slice, then NonZero->Transpose->GatherND."),
        "mask_2d_axis1_invalid": (lambda: (Mask2dAxis1(), {"x": torch.randn(4, 2, 3)}),
                                  "x[:, mask2d]: torch 1.13 exports an INVALID graph (Squeeze of a size-2 "
                                  "axis; the onnx checker rejects it). Kept so the importer can be tested to "
                                  "refuse it cleanly; outputs.npz holds PyTorch's correct result."),
    }


class FoldedOutput(nn.Module):
    """Returns, beside a computed action, a sine table that depends on no input
    (folded to a constant by the exporter) and a parameter returned as is (an
    Identity of an initializer)."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 4)
        self.action_scale = nn.Parameter(torch.rand(4) + 0.5)

    def forward(self, state):
        positions = torch.arange(4, dtype=torch.float32).unsqueeze(1)
        freqs = torch.exp(torch.arange(0, 4, 2, dtype=torch.float32) * (-math.log(10000.0) / 4))
        pos_embed = torch.cat([torch.sin(positions * freqs), torch.cos(positions * freqs)], dim=1)  # (4, 4)
        action = self.head(state) * self.action_scale + pos_embed[0]
        return action, pos_embed, self.action_scale


class SmallTransformer(nn.Module):
    """nn.Transformer, sequence first, with a causal target mask."""

    def __init__(self, dynamic):
        super().__init__()
        self.dynamic = dynamic
        self.transformer = nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                          dim_feedforward=256, dropout=0.1)
        if not dynamic:
            self.register_buffer("tgt_mask", nn.Transformer.generate_square_subsequent_mask(32),
                                 persistent=False)

    def forward(self, src, tgt):
        if self.dynamic:
            n = tgt.shape[0]
            tgt_mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        else:
            tgt_mask = self.tgt_mask
        return self.transformer(src, tgt, tgt_mask=tgt_mask)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.GELU(),
                                 nn.Linear(256, 16))

    def forward(self, x):
        return self.net(x)


class Activations(nn.Module):
    """Activations with attributes, each after a layer oneDNN runs: SELU
    (ONNX Selu) after a convolution, CELU with alpha 0.7 (ONNX Celu) after a
    linear layer, and standalone."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 6 * 6, 32)
        self.selu = nn.SELU()
        self.celu = nn.CELU(alpha=0.7)

    def forward(self, x):
        h = self.selu(self.conv(x))
        y = self.celu(self.fc(h.flatten(1)))
        return y, self.celu(x) + self.selu(x)


def build_activations():
    return Activations(), {"x": torch.randn(2, 4, 6, 6) * 2}, {}


class BiLstm(nn.Module):
    """A 2-layer bidirectional LSTM (sequence first, input 16, hidden 32) with
    its initial states as inputs, and a linear head on every step: two ONNX
    LSTM nodes (bidirectional) with the exporter's Transpose/Reshape glue."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True)
        self.head = nn.Linear(64, 8)

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x, (h0, c0))
        return self.head(y), h, c


def build_lstm_bidirectional():
    inputs = {"x": torch.randn(10, 2, 16), "h0": torch.randn(4, 2, 32) * 0.5, "c0": torch.randn(4, 2, 32) * 0.5}
    return BiLstm(), inputs, {}


class GruSequence(nn.Module):
    """A batch-first GRU sequence model: embedding-like projection, one GRU
    layer (ONNX GRU, linear_before_reset 1 as torch computes it) and a
    head on the last step."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(12, 24)
        self.gru = nn.GRU(24, 20, batch_first=True)
        self.head = nn.Linear(20, 5)

    def forward(self, x):
        y, h = self.gru(torch.tanh(self.proj(x)))
        return self.head(y[:, -1]), h


def build_gru_sequence():
    return GruSequence(), {"x": torch.randn(3, 9, 12)}, {}


class Conv3dNet(nn.Module):
    """3-d convolution and pooling (a block of a video or volume network):
    Conv3d with stride and padding, a grouped dilated Conv3d, MaxPool3d in
    ceil mode, AvgPool3d with padding left out of the divisor, and
    ConvTranspose3d with output padding."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, 3, stride=(1, 2, 2), padding=1)
        self.grouped = nn.Conv3d(8, 8, (3, 3, 2), padding=(2, 1, 1), dilation=(2, 1, 1), groups=2)
        self.max = nn.MaxPool3d(2, stride=2, ceil_mode=True)
        self.avg = nn.AvgPool3d(3, stride=(1, 2, 1), padding=1, count_include_pad=False)
        self.up = nn.ConvTranspose3d(8, 4, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        h = torch.relu(self.grouped(h))
        return self.up(self.avg(self.max(h)))


def build_conv3d():
    return Conv3dNet(), {"x": torch.randn(2, 3, 8, 16, 16)}, {}


class FpnDetector(nn.Module):
    """The top-down path of a text or object detector (DBNet-style FPN):
    a stride-2 backbone of three stages, lateral 1x1 convolutions, and each
    coarser map upsampled by 2 (nearest and bilinear, F.interpolate with
    scale_factor) and added to the finer one, then a head that upsamples by 4
    to the input's size. Exported with dynamic height and width, every
    Resize scales a symbolic dim."""

    def __init__(self):
        super().__init__()
        self.stages = nn.ModuleList([nn.Conv2d(3, 8, 3, 2, 1), nn.Conv2d(8, 16, 3, 2, 1), nn.Conv2d(16, 32, 3, 2, 1)])
        self.lateral = nn.ModuleList([nn.Conv2d(c, 8, 1) for c in (8, 16, 32)])
        self.head = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, image):
        feats, h = [], image
        for stage in self.stages:
            h = torch.relu(stage(h))
            feats.append(h)
        p3 = self.lateral[2](feats[2])
        p2 = self.lateral[1](feats[1]) + nn.functional.interpolate(p3, scale_factor=2.0, mode="nearest")
        p1 = self.lateral[0](feats[0]) + nn.functional.interpolate(p2, scale_factor=2.0, mode="bilinear",
                                                                   align_corners=False)
        return torch.sigmoid(nn.functional.interpolate(self.head(p1), scale_factor=2.0, mode="bilinear",
                                                       align_corners=False))


def build_fpn_dynamic():
    extra = {"dynamic_axes": {"image": {2: "height", 3: "width"}, "score": {2: "height", 3: "width"}}}
    return FpnDetector(), {"image": torch.randn(1, 3, 40, 56)}, extra


class VadFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv16 = nn.Conv1d(1, 8, 8, stride=4)
        self.conv8 = nn.Conv1d(1, 8, 4, stride=2)

    def forward(self, x, sr):
        if bool(sr == 16000):
            return self.conv16(x)
        return self.conv8(x)


class VadStream(nn.Module):
    """A streaming voice-activity detector's shape (Silero-style): the front
    end depends on the sample rate (an `if` the scripted module keeps, so
    the exporter writes ONNX If), an LSTM carries state between chunks (h
    and c are inputs and outputs), a sigmoid gives the speech probability."""

    def __init__(self):
        super().__init__()
        self.front = VadFrontend()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 1)

    def forward(self, audio, sr, h, c):
        f = torch.relu(self.front(audio.unsqueeze(1), sr))
        y, (h2, c2) = self.lstm(f.transpose(1, 2), (h, c))
        return torch.sigmoid(self.head(y[:, -1])), h2, c2


def build_vad_stream():
    inputs = {"audio": torch.randn(1, 512) * 0.3, "sr": torch.tensor(16000), "h": torch.randn(1, 1, 16) * 0.5,
              "c": torch.randn(1, 1, 16) * 0.5}
    return torch.jit.script(VadStream().eval()), inputs, {"fix_inputs": ["sr"]}


def perturb_layer_norms(model):
    for m in model.modules():
        if isinstance(m, nn.LayerNorm):
            with torch.no_grad():
                m.weight.uniform_(0.8, 1.2)
                m.bias.normal_(0, 0.1)
    return model


def build_transformer(dynamic):
    model = perturb_layer_norms(SmallTransformer(dynamic))
    n_src, n_tgt = (24, 16) if dynamic else (32, 32)
    inputs = {"src": torch.randn(n_src, 1, 64), "tgt": torch.randn(n_tgt, 1, 64)}
    extra = {}
    if dynamic:
        extra["dynamic_axes"] = {"src": {0: "src_len"}, "tgt": {0: "tgt_len"}, "out": {0: "tgt_len"}}
    return model, inputs, extra


def build_mlp(dynamic):
    inputs = {"x": torch.randn(3 if dynamic else 1, 64)}
    extra = {"dynamic_axes": {"x": {0: "batch"}, "y": {0: "batch"}}} if dynamic else {}
    return Mlp(), inputs, extra


class ScriptControl(nn.Module):
    """Data-dependent control flow kept by torch.jit.script: an `if` on the
    sign of x's sum (the exporter writes ONNX If; both branches carry
    weights) and a `for` over an int64 input (ONNX Loop whose trip count is
    the graph input `steps`, a run-time value) with two loop-carried values
    (h, acc) of fixed shape, a Linear in the body that reads the If's result
    from the outer scope, and the iteration number used in the body."""

    def __init__(self):
        super().__init__()
        self.lin_a = nn.Linear(8, 12)
        self.lin_b = nn.Linear(8, 12)
        self.cell = nn.Linear(16 + 12, 16)

    def forward(self, x, h0, steps):
        if bool(x.sum() > 0):
            y = self.lin_a(x)
        else:
            y = torch.relu(self.lin_b(x)) * 2.0
        h = h0
        acc = torch.zeros_like(h0)
        for i in range(int(steps)):
            h = torch.tanh(self.cell(torch.cat([h, y], -1)) + 0.1 * float(i))
            acc = acc + 0.5 * h
        return h, y, acc


def build_script_control():
    def case(positive, steps):
        x = torch.randn(2, 8)
        if bool(x.sum() > 0) != positive:
            x = -x
        return {"x": x, "h0": torch.randn(2, 16) * 0.5, "steps": torch.tensor(steps, dtype=torch.int64)}

    main = case(True, 7)  # then branch, 7 trips
    cases = {"else_0": case(False, 0), "then_1": case(True, 1), "else_7": case(False, 7)}
    return torch.jit.script(ScriptControl().eval()), main, {"cases": cases}


def mel_filterbank(n_fft, n_mels, sample_rate, f_min=0.0, f_max=None):
    """[n_fft // 2 + 1, n_mels] triangular filters on the HTK mel scale, as
    torchaudio.functional.melscale_fbanks builds them (norm None): a
    constant of the model, stored as a buffer (an initializer)."""
    f_max = f_max if f_max is not None else sample_rate / 2
    freqs = torch.linspace(0, sample_rate / 2, n_fft // 2 + 1, dtype=torch.float64)

    def mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)

    m_pts = torch.linspace(mel(f_min), mel(f_max), n_mels + 2, dtype=torch.float64)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - freqs.unsqueeze(1)
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return torch.clamp(torch.min(down, up), min=0.0).float()


def stft_symbolic(g, input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex):
    """aten::stft at opset 17 as later PyTorch exporters write it (torch 2.x
    symbolic_opset17.stft; torch 1.13 has none): ONNX STFT on the signal
    [batch, length] with frame_step and frame_length constants and the
    window, transposed to torch's [batch, bins, frames, 2]."""
    from torch.onnx import symbolic_helper

    n_fft = symbolic_helper._get_const(n_fft, "i", "n_fft")
    hop = symbolic_helper._get_const(hop_length, "i", "hop_length")
    if symbolic_helper._maybe_get_const(return_complex, "b"):
        raise RuntimeError("STFT export: return_complex=True has no ONNX form")
    if symbolic_helper._maybe_get_const(normalized, "b"):
        raise RuntimeError("STFT export: normalized is not written by this symbolic")
    step = g.op("Constant", value_t=torch.tensor(hop, dtype=torch.int64))
    length = g.op("Constant", value_t=torch.tensor(n_fft, dtype=torch.int64))
    side = symbolic_helper._maybe_get_const(onesided, "b")
    result = g.op("STFT", input, step, window, length, onesided_i=0 if side is False else 1)
    return g.op("Transpose", result, perm_i=[0, 2, 1, 3])


class LogMelSpectrogram(nn.Module):
    """A speech recognizer's front end (Whisper-, wav2letter-style): the
    short-time Fourier transform of 16 kHz audio (torch.stft, 400-point
    frames every 160 samples, a periodic Hann window, centered with reflect
    padding), the power spectrum, 40 mel filters (a constant matrix) and
    the log."""

    def __init__(self, n_fft=400, hop=160, n_mels=40, sample_rate=16000):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("mel", mel_filterbank(n_fft, n_mels, sample_rate))

    def forward(self, audio):
        spec = torch.stft(audio, self.n_fft, hop_length=self.hop, win_length=self.n_fft, window=self.window,
                          center=True, pad_mode="reflect", normalized=False, onesided=True, return_complex=False)
        power = spec.pow(2).sum(-1)  # [batch, bins, frames]
        return torch.log(torch.matmul(power.transpose(1, 2), self.mel) + 1e-6)  # [batch, frames, mels]


def build_spectrogram():
    torch.onnx.register_custom_op_symbolic("aten::stft", stft_symbolic, 17)
    return LogMelSpectrogram(), {"audio": torch.randn(2, 16000) * 0.1}, {}

"""Kernel cases for rnn, gru and lstm (src/kernels/recurrent.cpp).

The reference follows ONNX's operator spec for RNN, GRU and LSTM step by
step, one batch entry at a time in float64: gate orders (LSTM i, o, f, c;
peepholes i, o, f; GRU z, r, h), both GRU forms (linear_before_reset),
input_forget (f = 1 - i), clip on the gates' pre-activations, and
sequence_lens: the reverse direction starts at an entry's last valid step,
Y is zero past it and Y_h / Y_c hold the state at the last valid step (zero
for an entry of length 0, as ONNX Runtime's LSTM and GRU give).
The last output is the kernel's workspace, which it leaves zero.
"""
import numpy as np

from common import case

SIGMOID, TANH, RELU, AFFINE, LEAKY, THRESH, SCALED_TANH, HARD_SIGMOID, ELU, SOFTSIGN, SOFTPLUS = range(11)
GATES = {"rnn": 1, "gru": 3, "lstm": 4}
FUNCS = {"rnn": 1, "gru": 2, "lstm": 3}
DEFAULTS = {"rnn": [TANH], "gru": [SIGMOID, TANH], "lstm": [SIGMOID, TANH, TANH]}


def activation(code, alpha, beta):
    return {
        SIGMOID: lambda x: 1.0 / (1.0 + np.exp(-x)),
        TANH: np.tanh,
        RELU: lambda x: np.maximum(x, 0.0),
        AFFINE: lambda x: alpha * x + beta,
        LEAKY: lambda x: np.where(x >= 0, x, alpha * x),
        THRESH: lambda x: np.where(x > alpha, x, 0.0),
        SCALED_TANH: lambda x: alpha * np.tanh(beta * x),
        HARD_SIGMOID: lambda x: np.clip(alpha * x + beta, 0.0, 1.0),
        ELU: lambda x: np.where(x >= 0, x, alpha * (np.exp(x) - 1.0)),
        SOFTSIGN: lambda x: x / (1.0 + np.abs(x)),
        SOFTPLUS: lambda x: np.log1p(np.exp(x)),
    }[code]


def reference(op, x, w, r, b=None, lens=None, h0=None, c0=None, p=None, hidden=1, direction="forward",
              activations=None, alpha=None, beta=None, clip=0.0, input_forget=False, linear_before_reset=False):
    seq, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    funcs = FUNCS[op]
    codes = activations or DEFAULTS[op] * dirs
    alpha = alpha or [0.0] * len(codes)
    beta = beta or [0.0] * len(codes)
    H = hidden
    x, w, r = (a.astype(np.float64) for a in (x, w, r))
    y = np.zeros((seq, dirs, batch, H))
    yh = np.zeros((dirs, batch, H))
    yc = np.zeros((dirs, batch, H))

    def cl(v):
        return np.clip(v, -clip, clip) if clip > 0 else v

    for d in range(dirs):
        f, g, hh = [activation(codes[d * funcs + k], alpha[d * funcs + k], beta[d * funcs + k])
                    for k in range(funcs)] + [None] * (3 - funcs)
        wb = b[d, :GATES[op] * H].astype(np.float64) if b is not None else np.zeros(GATES[op] * H)
        rb = b[d, GATES[op] * H:].astype(np.float64) if b is not None else np.zeros(GATES[op] * H)
        reverse = direction == "reverse" or d == 1
        for n in range(batch):
            length = seq if lens is None else int(lens[n])
            h = h0[d, n].astype(np.float64) if h0 is not None else np.zeros(H)
            c = c0[d, n].astype(np.float64) if c0 is not None else np.zeros(H)
            for t in (range(length - 1, -1, -1) if reverse else range(length)):
                xw = w[d] @ x[t, n] + wb
                if op == "rnn":
                    h = f(cl(xw + r[d] @ h + rb))
                elif op == "lstm":
                    pre = xw + r[d] @ h + rb
                    pi, po, pf = (p[d, k * H:(k + 1) * H].astype(np.float64) if p is not None else 0.0
                                  for k in range(3))
                    i = f(cl(pre[:H] + pi * c))
                    fg = 1.0 - i if input_forget else f(cl(pre[2 * H:3 * H] + pf * c))
                    cand = g(cl(pre[3 * H:]))
                    c = fg * c + i * cand
                    o = f(cl(pre[H:2 * H] + po * c))
                    h = o * hh(c)
                else:
                    rz = r[d][:2 * H] @ h + rb[:2 * H]
                    z = f(cl(xw[:H] + rz[:H]))
                    rg = f(cl(xw[H:2 * H] + rz[H:]))
                    rh = r[d][2 * H:]
                    if linear_before_reset:
                        cand = g(cl(xw[2 * H:] + rg * (rh @ h + rb[2 * H:])))
                    else:
                        cand = g(cl(xw[2 * H:] + rh @ (rg * h) + rb[2 * H:]))
                    h = (1.0 - z) * cand + z * h
                y[t, d, n] = h
            # An entry of length 0 ends with zero states (ONNX Runtime's LSTM and GRU).
            yh[d, n] = h if length > 0 else 0.0
            yc[d, n] = c if length > 0 else 0.0
    workspace = np.zeros((batch, 2 * GATES[op] * H + H), np.float32)
    outs = [y.astype(np.float32), yh.astype(np.float32)]
    if op == "lstm":
        outs.append(yc.astype(np.float32))
    return outs + [workspace]


EMPTY = np.zeros([0], np.float32)  # an operand left out before a given one


def layer(rng, op, seq, batch, inp, hidden, dirs, name, attrs=None, bias=True, lens=None, h0=False, c0=False,
          peep=False, x_perm=None, atol=1e-5):
    gates = GATES[op]
    x = rng.standard_normal((seq, batch, inp)).astype(np.float32)
    w = (0.5 * rng.standard_normal((dirs, gates * hidden, inp))).astype(np.float32)
    r = (0.5 * rng.standard_normal((dirs, gates * hidden, hidden))).astype(np.float32)
    b = (0.5 * rng.standard_normal((dirs, 2 * gates * hidden))).astype(np.float32) if bias else None
    init_h = rng.standard_normal((dirs, batch, hidden)).astype(np.float32) if h0 else None
    init_c = rng.standard_normal((dirs, batch, hidden)).astype(np.float32) if c0 else None
    p = (0.5 * rng.standard_normal((dirs, 3 * hidden))).astype(np.float32) if peep else None
    attrs = dict(attrs or {})
    attrs["hidden_size"] = hidden
    ref_attrs = {k: v for k, v in attrs.items() if k != "hidden_size"}
    if "activation_alpha" in ref_attrs:
        ref_attrs["alpha"] = ref_attrs.pop("activation_alpha")
    if "activation_beta" in ref_attrs:
        ref_attrs["beta"] = ref_attrs.pop("activation_beta")
    outs = reference(op, x, w, r, b, lens, init_h, init_c, p, hidden=hidden, **ref_attrs)
    operands = [b, lens, init_h, init_c, p]
    while operands and operands[-1] is None:
        operands.pop()
    inputs = [x, w, r] + [EMPTY if v is None else v for v in operands]
    perms = None
    if x_perm is not None:
        # X stored batch-first and seen time-major (a strided view): layout 1.
        inputs[0] = np.ascontiguousarray(x.transpose(x_perm))
        perms = [x_perm] + [None] * (len(inputs) - 1)
    return case(name, op, inputs, attrs, outs, perms=perms, atol=atol, rtol=1e-4)


def cases():
    rng = np.random.default_rng(17)
    i32 = np.int32
    out = [
        layer(rng, "lstm", 5, 3, 4, 6, 1, "lstm_forward"),
        layer(rng, "lstm", 5, 3, 4, 6, 1, "lstm_forward_no_bias", bias=False),
        layer(rng, "lstm", 5, 3, 4, 6, 1, "lstm_reverse_lens_states_peepholes", {"direction": "reverse"},
              lens=np.array([5, 2, 0], i32), h0=True, c0=True, peep=True),
        layer(rng, "lstm", 6, 4, 3, 5, 2, "lstm_bidirectional_lens_i64", {"direction": "bidirectional"},
              lens=np.array([6, 3, 1, 6], np.int64), h0=True, c0=True),
        layer(rng, "lstm", 4, 2, 3, 4, 1, "lstm_clip_input_forget", {"clip": 0.7, "input_forget": True},
              peep=True),
        layer(rng, "lstm", 4, 2, 3, 4, 2, "lstm_activations",
              {"direction": "bidirectional",
               "activations": [HARD_SIGMOID, ELU, SOFTSIGN, SIGMOID, SCALED_TANH, AFFINE],
               "activation_alpha": [0.3, 0.8, 0.0, 0.0, 1.5, 0.6],
               "activation_beta": [0.4, 0.0, 0.0, 0.0, 0.7, 0.1]}),
        layer(rng, "lstm", 5, 3, 4, 6, 1, "lstm_batch_first_x", {"direction": "reverse"}, x_perm=(1, 0, 2)),
        layer(rng, "lstm", 3, 2, 3, 4, 1, "lstm_lens_without_bias", lens=np.array([1, 3], i32)),
        layer(rng, "gru", 5, 3, 4, 6, 1, "gru_forward"),
        layer(rng, "gru", 5, 3, 4, 6, 1, "gru_linear_before_reset", {"linear_before_reset": True}, h0=True),
        layer(rng, "gru", 6, 4, 3, 5, 2, "gru_bidirectional_lens", {"direction": "bidirectional"},
              lens=np.array([2, 6, 0, 5], i32), h0=True),
        layer(rng, "gru", 6, 4, 3, 5, 2, "gru_bidirectional_lens_lbr",
              {"direction": "bidirectional", "linear_before_reset": True, "clip": 1.2},
              lens=np.array([2, 6, 4, 5], i32)),
        layer(rng, "gru", 4, 2, 3, 4, 1, "gru_activations_reverse",
              {"direction": "reverse", "activations": [LEAKY, SOFTPLUS], "activation_alpha": [0.1, 0.0],
               "activation_beta": [0.0, 0.0]}),
        layer(rng, "rnn", 5, 3, 4, 6, 1, "rnn_forward"),
        layer(rng, "rnn", 5, 3, 4, 6, 1, "rnn_reverse_lens", {"direction": "reverse"},
              lens=np.array([4, 5, 1], i32), h0=True),
        layer(rng, "rnn", 4, 2, 3, 4, 2, "rnn_bidirectional_activations",
              {"direction": "bidirectional", "activations": [RELU, THRESH], "activation_alpha": [0.0, 0.2],
               "activation_beta": [0.0, 0.0]}),
        layer(rng, "rnn", 4, 2, 3, 4, 1, "rnn_clip", {"clip": 0.5}),
        # Above 8 batch entries the products go through gemm_f32 (the cases
        # above take the kernel's path for small layers).
        layer(rng, "lstm", 4, 9, 3, 5, 2, "lstm_batch_9_bidirectional_lens", {"direction": "bidirectional"},
              lens=np.array([4, 2, 0, 4, 3, 4, 1, 4, 4], i32), h0=True, c0=True, peep=True),
        layer(rng, "gru", 4, 9, 3, 5, 2, "gru_batch_9_bidirectional_lens", {"direction": "bidirectional"},
              lens=np.array([4, 4, 2, 4, 0, 4, 3, 4, 1], i32), h0=True),
        layer(rng, "gru", 3, 9, 3, 5, 1, "gru_batch_9_linear_before_reset", {"linear_before_reset": True}),
        layer(rng, "rnn", 3, 9, 3, 5, 1, "rnn_batch_9_reverse", {"direction": "reverse"}, h0=True),
    ]
    x = np.zeros((2, 1, 3), np.float32)
    out += [
        case("lstm_bad_w", "lstm", [x, np.zeros((1, 8, 3), np.float32), np.zeros((1, 16, 4), np.float32)],
             {"hidden_size": 4}, error="expected W [1, 16, 3], got [1, 8, 3]",
             out_specs=[("f32", [])] * 4),
        case("gru_lens_too_long", "gru",
             [x, np.zeros((1, 9, 3), np.float32), np.zeros((1, 9, 3), np.float32), EMPTY,
              np.array([3], np.int32)],
             {"hidden_size": 3}, error="expected sequence_lens in [0, 2], got 3", out_specs=[("f32", [])] * 3),
        case("rnn_bad_activation_count", "rnn",
             [x, np.zeros((1, 2, 3), np.float32), np.zeros((1, 2, 2), np.float32)],
             {"hidden_size": 2, "activations": [TANH, TANH]}, error="expected 1 codes in 'activations'",
             out_specs=[("f32", [])] * 3),
    ]
    return out

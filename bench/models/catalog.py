"""The models bench/models/compare.py measures: where each comes from, how
it is exported (and cached), how many runs it gets, and the duration
estimate of a whole run.

Three sources:
- "fixture": the committed fixtures in models/fixtures (resnet18 is made by
  models/make_fixtures.py at bench time, too large to commit);
- "zoo": torchvision models exported by models/zoo/zoo.py at opset 17 into
  WORK/zoo (cached: a rerun does not export again);
- "gpt": the GPT-2-style decoder of models/gpt.py, exported into WORK/gpt.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "models", "fixtures")
PY = "/usr/bin/python3"
FLOOR_PROCESSES = 3  # processes per ORT version and thread count timing the binding floor


class Model:
    """size: "small", "medium" or "large" (picks the default rounds, timed
    and warm-up runs); est_ms: a rough latency of one run at one thread on
    the 2-core EPYC the results were taken on, for the duration estimate
    only."""

    def __init__(self, name, label, source, size, est_ms):
        self.name, self.label, self.source, self.size, self.est_ms = name, label, source, size, est_ms


MODELS = [
    Model("act", "ACT-style (act)", "fixture", "small", 1.0),
    Model("diffusion", "Diffusion-style (diffusion)", "fixture", "small", 3.0),
    Model("resnet18", "ResNet-18", "fixture", "small", 35.0),
    Model("transformer", "transformer", "fixture", "small", 0.8),
    Model("mlp", "MLP", "fixture", "small", 0.02),
    Model("lstm_bidirectional", "2-layer bidirectional LSTM (lstm_bidirectional)", "fixture", "small", 0.05),
    Model("gru_sequence", "GRU over a sequence (gru_sequence)", "fixture", "small", 0.05),
    Model("vad_stream", "VAD, one 32 ms chunk, state carried (vad_stream)", "fixture", "small", 0.05),
    Model("gpt", "GPT-style decoder, 4 x 256, seq 64 (gpt)", "gpt", "small", 10.0),
    Model("squeezenet1_1", "SqueezeNet 1.1", "zoo", "small", 8.0),
    Model("mobilenet_v3_large", "MobileNetV3-Large", "zoo", "small", 7.0),
    Model("efficientnet_b0", "EfficientNet-B0", "zoo", "small", 14.0),
    Model("shufflenet_v2_x1_0", "ShuffleNetV2 x1.0", "zoo", "small", 5.0),
    Model("regnet_y_400mf", "RegNetY-400MF", "zoo", "small", 12.0),
    Model("resnet50", "ResNet-50", "zoo", "medium", 75.0),
    Model("convnext_tiny", "ConvNeXt-Tiny", "zoo", "medium", 90.0),
    Model("densenet121", "DenseNet-121", "zoo", "medium", 65.0),
    Model("swin_t", "Swin-T", "zoo", "medium", 110.0),
    Model("vit_b_16", "ViT-B/16", "zoo", "large", 280.0),
    Model("deeplabv3_resnet50", "DeepLabV3-ResNet-50, 224 x 224", "zoo", "large", 800.0),
]
BY_NAME = {m.name: m for m in MODELS}

# (rounds, timed runs per process, warm-up runs per process) per size: at
# least 50 timed runs per system for small and medium models; the large ones
# take 0.3-1.5 s a run per system, and 50 runs of each of 5 systems at 2
# thread counts would take most of the 40 minutes alone, so they get 4 x 8.
RUNS = {"small": (5, 10, 3), "medium": (5, 10, 2), "large": (4, 8, 1)}


def runs_for(model, args):
    """(rounds, iters, warmup) for this model: the size's defaults, each
    replaced by --rounds / --iters / --warmup when given."""
    rounds, iters, warmup = RUNS[model.size]
    return (args.rounds or rounds, args.iters or iters, warmup if args.warmup is None else args.warmup)


def _run_quiet(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [line for line in (proc.stderr or proc.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"{' '.join(cmd[:3])}...: " + (lines[-1] if lines else f"exit {proc.returncode}"))


def prepare(model, args):
    """Path of the model's .onnx file, exporting it first when it is not in
    the cache. Raises RuntimeError when the export fails."""
    if model.source == "fixture":
        if model.name == "resnet18":
            path = os.path.join(args.resnet18_dir, "resnet18.onnx")
            if not os.path.exists(path[: -len(".onnx")] + ".inputs.npz"):
                print(f"{model.name}: exporting into {args.resnet18_dir}", file=sys.stderr, flush=True)
                _run_quiet([PY, os.path.join(ROOT, "models", "make_fixtures.py"), args.resnet18_dir,
                            "--only", "resnet18"])
            return path
        return os.path.join(FIXTURES, model.name + ".onnx")
    if model.source == "zoo":
        folder = os.path.join(args.work, "zoo")
        path = os.path.join(folder, model.name + ".opset17.onnx")
        if not os.path.exists(os.path.join(folder, model.name + ".outputs.npz")) or not os.path.exists(path):
            print(f"{model.name}: exporting into {folder} (once; cached for later runs)", file=sys.stderr,
                  flush=True)
            _run_quiet([PY, os.path.join(ROOT, "models", "zoo", "zoo.py"), folder, model.name, "--opsets", "17"])
        return path
    folder = os.path.join(args.work, "gpt")
    path = os.path.join(folder, "gpt.onnx")
    if not os.path.exists(os.path.join(folder, "gpt.outputs.npz")) or not os.path.exists(path):
        print(f"gpt: exporting into {folder} (once; cached for later runs)", file=sys.stderr, flush=True)
        _run_quiet([PY, os.path.join(ROOT, "models", "gpt.py"), folder])
    return path


def data_paths(onnx_path):
    """(inputs .npz, outputs .npz, [fixed .npz]) beside the model: zoo files
    are NAME.opset17.onnx beside NAME.inputs.npz."""
    stem = onnx_path[: -len(".onnx")]
    if stem.endswith(".opset17"):
        stem = stem[: -len(".opset17")]
    fixed = stem + ".fixed.npz"
    return stem + ".inputs.npz", stem + ".outputs.npz", [fixed] if os.path.exists(fixed) else []


def systems_per_round(threads, ort_versions, backends):
    """How many processes one round starts: PyTorch (twice above one
    thread: BLAS at T threads and at 1), each ONNX Runtime, each backend."""
    return (2 if threads > 1 else 1) + len(ort_versions) + len(backends)


def estimate_seconds(models, args):
    """A rough duration of the whole run on the 2-core machine, from each
    model's est_ms: process start-ups (PyTorch's import about 2 s, node's
    0.3 s) and loads, the runs with PyTorch at about 2x and ONNX Runtime at
    about 1x edgec's latency, two threads at 0.6x one; plus compiling (once
    per model and backend) and, the first time, exporting. Calibrated on
    DeepLabV3 (0.9 s a run, 4 s to compile, 20 s to export) and the small
    models, on a loaded machine."""
    total = 0.0
    for m in models:
        rounds, iters, warmup = runs_for(m, args)
        total += len(args.backends) * (0.5 + m.est_ms / 150.0)
        for t in args.threads:
            lat = m.est_ms * (1.0 if t == 1 else 0.6) / 1e3
            runs = warmup + iters
            torch = (2.0 + m.est_ms / 1e3 + runs * 2.0 * lat) * (2 if t > 1 else 1)
            ort = (0.4 + m.est_ms / 400.0 + runs * lat) * len(args.ort)
            edgec = (0.05 + m.est_ms / 1e3 + runs * lat) * len(args.backends)
            total += rounds * (torch + ort + edgec)
        if m.source != "fixture":
            cached = os.path.join(args.work, m.source, (m.name + ".outputs.npz") if m.source == "zoo"
                                  else "gpt.outputs.npz")
            if not os.path.exists(cached):
                total += 5.0 + m.est_ms / 30.0
    # the binding floor: a few processes per ORT version and thread count
    total += len(args.ort) * len(args.threads) * FLOOR_PROCESSES * 0.6
    return total

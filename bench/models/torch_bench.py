#!/usr/bin/python3
"""PyTorch eager measurements for bench/models/compare.py.

    /usr/bin/python3 torch_bench.py save SOURCE NAME MODEL.pt
    /usr/bin/python3 torch_bench.py run MODEL.pt INPUTS.npz OUTPUTS.npz THREADS WARMUP ITERS

`save` rebuilds model NAME's nn.Module exactly as its exporter does, so the
weights are those of the exported ONNX file, and pickles it with its
example inputs. SOURCE says which exporter: `fixture` (the builder and seed
of models/make_fixtures.py), `zoo` (models/zoo/zoo.py's build(): the
torchvision module with its seeded weight setup) or `gpt` (models/gpt.py's
build()). Building is kept out of the measured process: some builders
calibrate batch norm on large batches, which would count against PyTorch's
peak memory.

`run` loads that module and runs it under torch.inference_mode() on the
fixture's inputs (the .npz that edgec and ONNX Runtime read). It prints one
JSON object: load_ms (torch.load of the pickled module: eager PyTorch has
no program file, so this is its closest counterpart), times_ms (each timed
forward), the process's peak RSS, and the largest difference from the
fixture's reference outputs (a check that the module rebuilt is the one
exported).

compare.py runs it twice per round above one thread: with
OPENBLAS_NUM_THREADS=THREADS (the same threads as every other system) and
with OPENBLAS_NUM_THREADS=1 (torch adds its own threads around OpenBLAS,
and two layers of threads can oversubscribe the cores); it reports the
faster.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import json
import os
import resource
import time

import numpy as np
import torch

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
# Both on the path in `run` too: the pickles name their classes' modules
# (zoo.Segmentation, gpt.Gpt, nets.small...).
sys.path.insert(0, os.path.join(MODELS_DIR, "zoo"))
sys.path.insert(0, MODELS_DIR)
# Imported here, before anything is timed: `run`'s load time is reading the
# module, not importing the libraries its classes come from.
import gpt  # noqa: E402
import make_fixtures  # noqa: E402
import torchvision  # noqa: E402,F401
import zoo  # noqa: E402


def build(source, name):
    """(module in eval mode, inputs name -> tensor, output names)."""
    if source == "zoo":
        model, image = zoo.build(name)
        return model, {"image": image}, [zoo.MODELS[name][2]]
    if source == "gpt":
        model, inputs = gpt.build()
        return model, inputs, ["logits"]
    fx = {f.name: f for f in make_fixtures.FIXTURES}[name]
    torch.manual_seed(make_fixtures.fixture_seed(name))
    built = fx.build()
    model, inputs = built[0], built[1]
    model.eval()
    return model, inputs, fx.outputs


def save(source, name, path):
    # One thread, as the exporters build (batch-norm calibration included):
    # the same weights to the last bit.
    torch.set_num_threads(1)
    model, inputs, outputs = build(source, name)
    tmp = f"{path}.tmp.{os.getpid()}"
    saved = {"model": model, "inputs": inputs, "outputs": outputs}
    if isinstance(model, torch.jit.ScriptModule):
        # A scripted module (vad_stream's) does not pickle: it is saved as
        # TorchScript beside the pickle, which names it.
        script = path + ".script"
        torch.jit.save(model, tmp + ".script")
        os.replace(tmp + ".script", script)
        saved["model"] = None
        saved["script"] = script
    torch.save(saved, tmp)
    os.replace(tmp, path)


def run(path, inputs_npz, outputs_npz, threads, warmup, iters):
    start = time.perf_counter()
    saved = torch.load(path)
    model = torch.jit.load(saved["script"]) if saved.get("script") else saved["model"]
    load_ms = (time.perf_counter() - start) * 1e3
    # The arrays the other systems read, in the module's argument order (the
    # exporter may drop an unused argument: then the saved example is used).
    arrays = np.load(inputs_npz)
    args = tuple(torch.from_numpy(arrays[k].copy()) if k in arrays.files else v
                 for k, v in saved["inputs"].items())

    torch.set_num_threads(threads)
    times = []
    with torch.inference_mode():
        out = model(*args)
        for _ in range(warmup):
            model(*args)
        for _ in range(iters):
            t0 = time.perf_counter()
            model(*args)
            times.append((time.perf_counter() - t0) * 1e3)

    out = out if isinstance(out, (tuple, list)) else (out,)
    ref = np.load(outputs_npz)
    max_diff = 0.0
    for k, o in zip(saved["outputs"], out):
        if k in ref.files and ref[k].size:
            max_diff = max(max_diff, float(np.abs(o.numpy().astype(np.float64) - ref[k]).max()))
    print(json.dumps({
        "load_ms": load_ms,
        "times_ms": times,
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "max_abs_diff": max_diff,
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "threads": torch.get_num_threads(),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", ""),
    }))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "save" and sys.argv[2] in ("fixture", "zoo", "gpt"):
        save(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 8 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]))
    else:
        sys.exit(__doc__.split("\n\n")[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())

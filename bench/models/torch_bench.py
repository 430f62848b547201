#!/usr/bin/python3
"""PyTorch eager measurements for bench/models/compare.py.

    /usr/bin/python3 torch_bench.py save NAME MODEL.pt
    /usr/bin/python3 torch_bench.py run MODEL.pt INPUTS.npz OUTPUTS.npz THREADS WARMUP ITERS

`save` rebuilds fixture NAME's nn.Module exactly as models/make_fixtures.py
does (its builder, its seed), so the weights are those of the exported ONNX
file, and pickles it with its example inputs. Building is kept out of the
measured process: some builders calibrate batch norm on large batches,
which would count against PyTorch's peak memory.

`run` loads that module and runs it under torch.inference_mode() on the
fixture's inputs (the .npz that edgec and ONNX Runtime read). It prints one
JSON object: load_ms (torch.load of the pickled module: eager PyTorch has
no program file, so this is its closest counterpart), times_ms (each timed
forward), the process's peak RSS, and the largest difference from the
fixture's reference outputs (a check that the module rebuilt is the one
exported).

Run it with OPENBLAS_NUM_THREADS=1 (compare.py does): torch adds its own
threads around OpenBLAS, and two layers of threads oversubscribe the cores.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import json
import os
import resource
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
import make_fixtures  # noqa: E402


def save(name, path):
    fx = {f.name: f for f in make_fixtures.FIXTURES}[name]
    torch.manual_seed(make_fixtures.fixture_seed(name))
    built = fx.build()
    model, inputs = built[0], built[1]
    model.eval()
    tmp = f"{path}.tmp.{os.getpid()}"
    saved = {"model": model, "inputs": inputs, "outputs": fx.outputs}
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
        "threads": torch.get_num_threads(),
    }))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "save":
        save(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 8 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]))
    else:
        sys.exit(__doc__.split("\n\n")[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())

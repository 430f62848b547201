"""The Python module's API: signature, inspect and save as the CLI's,
errors and their messages, zero-copy inputs, threads, memory."""
import json
import os
import subprocess
import threading

import numpy as np
import pytest

import edgec
from conftest import FIXTURES, check_outputs, input_sets


def test_signature(mlp):
    (x,) = mlp.inputs
    assert x == edgec.TensorInfo("x", np.dtype(np.float32), (1, 64), "f32[1, 64]")
    assert [o.name for o in mlp.outputs] == ["y"]
    assert mlp.outputs[0].dtype == np.float32


def test_symbolic_dims():
    program = edgec.compile(FIXTURES / "mlp_dynamic.onnx", max_dims={"batch": 8})
    (x,) = program.inputs
    assert x.shape == (edgec.Dim("batch", 8), 64)
    assert x.type == "f32[batch<=8, 64]"
    assert repr(x.shape[0]) == "batch<=8"
    method = program.method()
    # One program, several batch sizes up to the bound.
    ((_, inputs, outputs),) = input_sets("mlp_dynamic")
    check_outputs(method.run(inputs), outputs, "mlp_dynamic")
    y1 = method.run({"x": inputs["x"][:1]})["y"]
    np.testing.assert_allclose(y1, outputs["y"][:1], rtol=1e-4, atol=1e-4)
    with pytest.raises(edgec.InvalidInput, match=r"input 'x': expected f32\[batch<=8, 64\], got f32\[9, 64\]"):
        method.run({"x": np.zeros((9, 64), np.float32)})
    # dims fixes the symbol: the input is then static.
    fixed = edgec.compile(FIXTURES / "mlp_dynamic.onnx", dims={"batch": 3})
    assert fixed.inputs[0].shape == (3, 64)


def test_shapes_option():
    program = edgec.compile(FIXTURES / "mlp_dynamic.onnx", shapes={"x": (2, 64)})
    assert program.inputs[0].shape == (2, 64)


def test_inspect_is_the_cli_json(tmp_path, edgec_bin, mlp):
    path = tmp_path / "mlp.edgec"
    mlp.save(path)
    cli = json.loads(subprocess.run([edgec_bin, "inspect", "--json", str(path)], check=True,
                                    capture_output=True, text=True).stdout)
    assert edgec.load(path).inspect() == cli
    # A program compiled in memory names no file; the rest is the same.
    mine = mlp.inspect()
    assert mine.pop("file") == "<compiled program>"
    cli.pop("file")
    assert mine == cli


def test_save_matches_cli_compile(tmp_path, edgec_bin, mlp):
    # The same bytes as `edgec compile` (compiling is deterministic).
    subprocess.run([edgec_bin, "compile", str(FIXTURES / "mlp.onnx"), "-o", str(tmp_path / "cli.edgec")], check=True)
    mlp.save(str(tmp_path / "py.edgec"))
    assert (tmp_path / "py.edgec").read_bytes() == (tmp_path / "cli.edgec").read_bytes()
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]
    loaded = edgec.load(tmp_path / "cli.edgec")
    assert loaded.file == str(tmp_path / "cli.edgec")
    assert loaded.file_bytes == (tmp_path / "cli.edgec").stat().st_size


def test_compile_from_bytes(mlp, mlp_inputs):
    program = edgec.compile((FIXTURES / "mlp.onnx").read_bytes())
    a = program.method().run(mlp_inputs)["y"]
    b = mlp.method().run(mlp_inputs)["y"]
    np.testing.assert_array_equal(a, b)


def test_compile_errors_are_the_cli_messages(tmp_path, edgec_bin):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    cli = subprocess.run([edgec_bin, "compile", str(bad), "-o", str(tmp_path / "o.edgec")], capture_output=True,
                         text=True)
    assert cli.returncode == 1
    with pytest.raises(edgec.CompileError) as e:
        edgec.compile(bad)
    assert cli.stderr == f"error: {e.value}\n"
    assert isinstance(e.value, edgec.Error)
    with pytest.raises(edgec.CompileError, match="unsupported model format"):
        edgec.compile(tmp_path / "model.txt")
    with pytest.raises(edgec.CompileError, match="unknown symbol|no symbol|batch2"):
        edgec.compile(FIXTURES / "mlp_dynamic.onnx", max_dims={"batch2": 4})


def test_usage_errors():
    with pytest.raises(edgec.UsageError, match="dims: 'batch': expected 1 to"):
        edgec.compile(FIXTURES / "mlp_dynamic.onnx", dims={"batch": 0})
    with pytest.raises(ValueError):  # UsageError is a ValueError too
        edgec.compile(FIXTURES / "mlp_dynamic.onnx", max_dims={"batch": "8"})
    program = edgec.compile(FIXTURES / "mlp.onnx")
    with pytest.raises(edgec.UsageError, match=r"threads: expected 1 to \d+ \(the cores of this machine\), got 0"):
        program.method(threads=0)
    with pytest.raises(edgec.UsageError, match="iters: expected 1 to"):
        program.method().bench({"x": np.zeros((1, 64), np.float32)}, iters=0)


def test_load_errors(tmp_path, edgec_bin):
    junk = tmp_path / "junk.edgec"
    junk.write_bytes(b"\0" * 100)
    cli = subprocess.run([edgec_bin, "run", str(junk), "--inputs", str(FIXTURES / "mlp.inputs.npz"), "--outputs",
                          str(tmp_path / "o.npz")], capture_output=True, text=True)
    with pytest.raises(edgec.InvalidProgram) as e:
        edgec.load(junk)
    assert cli.stderr == f"error: {e.value}\n"
    assert e.value.code == "InvalidProgram"
    with pytest.raises(edgec.InvalidProgram, match="cannot load .*missing.edgec"):
        edgec.load(tmp_path / "missing.edgec")


def test_wrong_inputs_name_the_input_and_both_shapes(mlp):
    method = mlp.method()
    good = np.zeros((1, 64), np.float32)
    with pytest.raises(edgec.InvalidInput) as e:
        method.run({"x": np.zeros((2, 64), np.float32)})
    assert str(e.value) == "feeds: input 'x': expected f32[1, 64], got f32[2, 64] (dim 0) (InvalidShape)"
    assert e.value.code == "InvalidShape"
    with pytest.raises(edgec.InvalidInput) as e:
        method.run({"x": good.astype(np.float64)})
    assert str(e.value) == "feeds: input 'x': expected f32[1, 64], got f64[1, 64] (InvalidType)"
    with pytest.raises(edgec.InvalidInput) as e:
        method.run({"x": good.astype(np.complex64)})
    assert str(e.value) == "feeds: input 'x': expected f32[1, 64], got complex64[1, 64] (InvalidType)"
    with pytest.raises(edgec.InvalidInput) as e:
        method.run({"x": good, "z": good})
    assert str(e.value) == "feeds: unexpected input 'z'; the program's inputs are 'x'"
    with pytest.raises(edgec.InvalidInput) as e:
        method.run({})
    assert str(e.value) == "feeds: missing input 'x' (f32[1, 64])"
    with pytest.raises(edgec.InvalidInput, match="expected 1 array"):
        method.run([good, good])
    with pytest.raises(edgec.Error):
        method.run(good)
    # The method still runs after refusing.
    assert method.run([good])["y"].shape == (1, 16)


def test_cli_messages_for_inputs(tmp_path, edgec_bin, mlp):
    # The CLI says the same after its npz path.
    mlp.save(tmp_path / "mlp.edgec")
    np.savez(tmp_path / "bad.npz", x=np.zeros((2, 64), np.float32))
    cli = subprocess.run([edgec_bin, "run", str(tmp_path / "mlp.edgec"), "--inputs", str(tmp_path / "bad.npz"),
                          "--outputs", str(tmp_path / "o.npz")], capture_output=True, text=True)
    with pytest.raises(edgec.InvalidInput) as e:
        mlp.method().run({"x": np.zeros((2, 64), np.float32)})
    assert cli.stderr == "error: " + str(e.value).replace("feeds", str(tmp_path / "bad.npz"), 1) + "\n"


def test_zero_copy_binding(mlp, mlp_inputs):
    method = mlp.method()
    x = mlp_inputs["x"].copy()
    y = method.run({"x": x})["y"]
    # The kernels read the numpy buffer itself...
    assert method._bound_input_address("x") == x.ctypes.data
    # ... and so see a change made to it before the next run.
    x[...] = 0
    y0 = method.run({"x": x})["y"]
    assert method._bound_input_address("x") == x.ctypes.data
    assert not np.array_equal(y, y0)
    # A non-contiguous view of the right dtype is copied once (another
    # address), with the same result as its contiguous copy.
    wide = np.zeros((1, 128), np.float32)
    wide[:, ::2] = mlp_inputs["x"]
    view = wide[:, ::2]
    assert not view.flags.c_contiguous
    y_view = method.run({"x": view})["y"]
    assert method._bound_input_address("x") not in range(wide.ctypes.data, wide.ctypes.data + wide.nbytes)
    np.testing.assert_array_equal(y_view, y)
    # Big-endian data of the dtype: copied in the machine's order, not refused.
    y_be = method.run({"x": mlp_inputs["x"].astype(">f4")})["y"]
    np.testing.assert_array_equal(y_be, y)
    # Outputs are copies: the next run does not change them.
    assert not np.shares_memory(y, y0)


def test_threads_with_their_own_methods(mlp_inputs):
    program = edgec.compile(FIXTURES / "act.onnx")
    ((_, inputs, _),) = input_sets("act")
    rng = np.random.default_rng(0)
    feeds = [{k: (v + rng.standard_normal(v.shape).astype(v.dtype) * 0.1) for k, v in inputs.items()}
             for _ in range(4)]
    serial = [program.method().run(f)["action"] for f in feeds]
    results = {}
    errors = []

    def work(t):
        try:
            method = program.method()
            for rep in range(5):
                for i, f in enumerate(feeds):
                    results[(t, rep, i)] = method.run(f)["action"]
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 4 * 5 * 4
    for (t, rep, i), y in results.items():
        np.testing.assert_array_equal(y, serial[i], err_msg=f"thread {t}, repeat {rep}, feeds {i}")


class _HeldFeed:
    """An input that holds the run converting it (numpy calls __array__ from
    inside Method.run, after the Method is taken) until released: the thread
    running it is provably inside run while another thread tries."""

    def __init__(self, array):
        self.array = array
        self.inside = threading.Event()
        self.release = threading.Event()

    def __array__(self, dtype=None, copy=None):
        self.inside.set()
        # Event.wait releases the GIL, so the other thread runs meanwhile.
        assert self.release.wait(timeout=60), "the test never released the held run"
        return self.array if dtype is None else self.array.astype(dtype)


def test_one_method_refuses_a_second_thread(mlp, mlp_inputs):
    # Not a race: a Method busy in one thread is refused by another, never
    # shared. The first thread is held inside run (_HeldFeed) while the second
    # calls run and bench; both must be refused, every time.
    program = edgec.compile(FIXTURES / "act.onnx")
    ((_, inputs, outputs),) = input_sets("act")
    method = program.method()
    name = next(iter(inputs))
    held = _HeldFeed(inputs[name])
    held_feeds = {**inputs, name: held}
    results, errors = [], []

    def first():
        try:
            results.append(method.run(held_feeds))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=first)
    t.start()
    try:
        assert held.inside.wait(timeout=60), "the first thread never entered Method.run"
        with pytest.raises(edgec.Error, match=r"Method\.run: this Method is running in another thread; give each "
                                              r"thread its own Method \(Program\.method\(\)\)"):
            method.run(inputs)
        with pytest.raises(edgec.Error, match=r"Method\.bench: this Method is running in another thread"):
            method.bench(inputs, iters=1, warmup=0)
        # A Method of its own runs meanwhile.
        check_outputs(program.method().run(inputs), outputs, "act")
    finally:
        held.release.set()
        t.join()
    assert not errors, errors
    # The held run finishes with the right outputs, and the Method is free again.
    (y,) = results
    check_outputs(y, outputs, "act")
    check_outputs(method.run(inputs), outputs, "act")


def test_rss_stays_flat(mlp, mlp_inputs):
    def rss_bytes():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    method = mlp.method()
    x = mlp_inputs["x"]
    for _ in range(1000):  # warm-up
        method.run({"x": x})
    before = rss_bytes()
    for _ in range(10_000):
        method.run({"x": x})
    growth = rss_bytes() - before
    print(f"\nRSS growth over 10,000 runs after warm-up: {growth / 1024:.1f} KiB")
    assert growth < 2 * 1024 * 1024


def test_bench_is_the_cli_json(tmp_path, edgec_bin, mlp, mlp_inputs):
    mlp.save(tmp_path / "mlp.edgec")
    cli = json.loads(subprocess.run([edgec_bin, "bench", str(tmp_path / "mlp.edgec"), "--inputs",
                                     str(FIXTURES / "mlp.inputs.npz"), "--iters", "20", "--warmup", "2", "--json",
                                     "--threads", "1", "--profile"],
                                    check=True, capture_output=True, text=True).stdout)
    method = edgec.load(tmp_path / "mlp.edgec").method(threads=1)
    mine = method.bench(mlp_inputs, iters=20, warmup=2, profile=True)
    assert list(mine) == list(cli)
    assert len(mine["times_ms"]) == 20 and mine["threads"] == 1 and mine["iters"] == 20
    assert mine["median_ms"] > 0 and mine["program"] == str(tmp_path / "mlp.edgec")
    for key in ("file_bytes", "arena_bytes", "instructions", "delegates"):
        assert mine[key] == cli[key], key
    assert [r["name"] for r in mine["profile"]] and "profile" not in method.bench(mlp_inputs, iters=3)


def test_help_reads_well():
    import pydoc
    text = pydoc.render_doc(edgec, renderer=pydoc.plaintext)
    for word in ("compile(", "load(", "class Program", "class Method", "run(", "bench(", "InvalidInput"):
        assert word in text, word
    assert edgec.Program.method.__doc__ and edgec.Method.run.__doc__ and edgec.compile.__doc__


def test_fix_inputs_as_values_or_npz(tmp_path):
    # A dict of arrays and the .npz path (--fix-inputs) give the same file.
    npz = FIXTURES / "vad_stream.fixed.npz"
    with np.load(npz) as z:
        values = {k: z[k] for k in z.files}
    edgec.compile(FIXTURES / "vad_stream.onnx", fix_inputs=values).save(tmp_path / "a.edgec")
    edgec.compile(FIXTURES / "vad_stream.onnx", fix_inputs=npz).save(tmp_path / "b.edgec")
    assert (tmp_path / "a.edgec").read_bytes() == (tmp_path / "b.edgec").read_bytes()
    assert [i.name for i in edgec.load(tmp_path / "a.edgec").inputs] == ["audio", "h", "c"]
    with pytest.raises(edgec.CompileError, match="'sr'"):
        edgec.compile(FIXTURES / "vad_stream.onnx", fix_inputs={"sr": np.zeros((2,), np.int64)})


def test_method_keeps_its_program_alive(mlp_inputs):
    import gc
    method = edgec.compile(FIXTURES / "mlp.onnx").method()
    gc.collect()
    assert method.run(mlp_inputs)["y"].shape == (1, 16)
    assert method.program.inputs[0].name == "x"

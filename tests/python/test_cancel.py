"""Method.cancel (issue 31): another thread stops a run of an ONNX Loop
told to run 2^40 iterations; the run raises ExecutionError with code
'Cancelled' and the Method then runs again with the right outputs
(y = x + trips, computed here with numpy). A cancel while nothing runs
does not stop the next run."""
import threading
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

import edgec


def loop_model():
    """y = x + trips: an ONNX Loop whose body adds 1 to its carried value."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["h", "one"], ["h_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [3])],
        [helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "go", "x"], ["y"], body=body)],
        "loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("trips", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        [helper.make_tensor("go", TensorProto.BOOL, [], [True])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


X = np.array([1.0, -2.0, 0.5], np.float32)


def expect_runs(method, trips):
    y = method.run({"x": X, "trips": np.array(trips, np.int64)})["y"]
    np.testing.assert_array_equal(y, X + np.float32(trips))


def run_cancelled(method):
    """Runs 2^40 iterations while another thread cancels, again and again
    until the run has returned (a cancel before it starts is dropped)."""
    done = threading.Event()

    def canceller():
        while not done.is_set():
            method.cancel()
            time.sleep(0.001)

    t = threading.Thread(target=canceller)
    t.start()
    start = time.monotonic()
    try:
        method.run({"x": X, "trips": np.array(1 << 40, np.int64)})
    except edgec.ExecutionError as e:
        return e
    finally:
        done.set()
        t.join()
        assert time.monotonic() - start < 30
    raise AssertionError("a run of 2^40 iterations returned")


def test_cancel_stops_a_long_loop_and_the_method_runs_again():
    method = edgec.compile(loop_model(), backends="none").method()
    expect_runs(method, 5)
    for _ in range(2):
        e = run_cancelled(method)
        assert e.code == "Cancelled", (e.code, str(e))
        assert "cancelled before" in str(e), str(e)
        expect_runs(method, 7)


def test_cancel_while_nothing_runs_does_not_stop_the_next_run():
    method = edgec.compile(loop_model(), backends="none").method()
    method.cancel()
    expect_runs(method, 3)
    run_cancelled(method)
    method.cancel()
    expect_runs(method, 4)

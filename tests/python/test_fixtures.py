"""Every committed fixture (models/fixtures/*.onnx) compiled and run from
Python matches its PyTorch reference (NAME.outputs.npz, and every extra
input set NAME.case-*.inputs.npz) within 1e-4 absolute or relative, as
tests/cli/fixture_test.sh checks the CLI; a fixture the manifest marks
invalid is refused with the CLI's message."""
import pytest

import edgec
from conftest import FIXTURES, check_outputs, fixture_options, input_sets, manifest_entry

NAMES = sorted(p.stem for p in FIXTURES.glob("*.onnx"))


@pytest.mark.parametrize("name", NAMES)
def test_fixture(name):
    entry = manifest_entry(name)
    model = FIXTURES / f"{name}.onnx"
    if not entry.get("onnx_valid", True):
        with pytest.raises(edgec.CompileError) as e:
            edgec.compile(model, **fixture_options(name))
        assert str(e.value) == f"{model}: {entry['expected_error']}"
        return
    program = edgec.compile(model, **fixture_options(name))
    method = program.method()
    for label, inputs, outputs in input_sets(name):
        check_outputs(method.run(inputs), outputs, f"{name} ({label})")


def test_fixture_portable_and_list_feeds():
    # The portable kernels only, and feeds as a list in input order.
    program = edgec.compile(FIXTURES / "act.onnx", backends=["none"])
    assert program.inspect()["delegates"] == []
    ((_, inputs, outputs),) = input_sets("act")
    feeds = [inputs[i.name] for i in program.inputs]
    check_outputs(program.method().run(feeds), outputs, "act (portable, list)")

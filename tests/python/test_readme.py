"""The README's Python section runs: every ```python block under
"## Python" in README.md, in order, in one namespace, in a scratch folder
where models/ leads to the repository's models (so the snippets use the
paths a reader would). Other sections' python blocks (the PyTorch export
recipe) are excerpts, not programs, and are left out."""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_section_blocks(text):
    m = re.search(r"^## Python\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, "README.md has no '## Python' section"
    return re.findall(r"^```python\n(.*?)^```", m.group(1), re.S | re.M)


def test_readme_python_snippets(tmp_path, monkeypatch):
    blocks = python_section_blocks((ROOT / "README.md").read_text())
    assert blocks, "no ```python block in the README's Python section"
    (tmp_path / "models").symlink_to(ROOT / "models")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)  # noqa: S102

#!/usr/bin/python3
"""The AVX2 re-run covers every test of code that has an AVX2 build
(docs/architecture.md, "Instruction sets", "Tests of both paths").

  check_avx2_rerun.py CTEST BUILD_DIR

Reads the registered tests (`ctest --show-only=json-v1` in BUILD_DIR) and
fails, naming them, if a test of a re-run binary has no twin with
EDGEC_ISA=avx2:

  - kernels.X  -> kernels.avx2.X   (kernels_tests: gemm_f32 and its callers)
  - backends.X -> backends.avx2.X  (backends_tests: the onednn delegate's
    per-ISA kernels (Gemm, Conv1dGemm, Winograd, ...), oneDNN's own
    choice of kernels and layouts, and the portable kernels every delegate
    test compares with or falls back to)
  - fixture.onednn.NAME -> fixture.avx2.NAME

so that a suite added to either binary, or a filter put on a re-run, cannot
leave an AVX2 build untested on an AVX-512 machine. A test that truly
computes nothing per-ISA may be left out only through NOT_RERUN below, with
its reason; an entry there that names no test fails too.
"""
import json
import subprocess
import sys

# (prefix of the first run, prefix of the AVX2 re-run)
PAIRS = [("kernels.", "kernels.avx2."), ("backends.", "backends.avx2."), ("fixture.onednn.", "fixture.avx2.")]
# test name of the first run -> why it needs no AVX2 twin. None now.
NOT_RERUN = {}
ISA_SETTING = "EDGEC_ISA=avx2"


def environment(test):
    for p in test.get("properties", []):
        if p.get("name") == "ENVIRONMENT":
            v = p.get("value")
            return v if isinstance(v, list) else [v]
    return []


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ctest, build_dir = sys.argv[1:]
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, check=True, capture_output=True, text=True)
    tests = {t["name"]: t for t in json.loads(out.stdout)["tests"]}
    problems = []
    for first, rerun in PAIRS:
        names = [n for n in tests if n.startswith(first) and not n.startswith(rerun)]
        twins = [n for n in tests if n.startswith(rerun)]
        if not names:
            if first != "fixture.onednn.":  # no onednn delegate built: no such fixtures
                problems.append(f"no test named {first}*: is the binary built and discovered?")
            continue
        missing = []
        for n in sorted(names):
            twin = rerun + n[len(first):]
            if n in NOT_RERUN:
                continue
            if twin not in tests:
                missing.append(n)
            elif ISA_SETTING not in environment(tests[twin]):
                problems.append(f"{twin} runs without {ISA_SETTING} (ENVIRONMENT {environment(tests[twin])})")
        if missing:
            suites = sorted({m[len(first):].split(".")[0] for m in missing})
            problems.append(f"{len(missing)} of the {len(names)} tests {first}* have no twin {rerun}* "
                            f"(suites: {', '.join(suites)}); first: {', '.join(missing[:5])}")
        print(f"{first}*: {len(names)} tests, {len(twins)} re-run with {ISA_SETTING}")
    for n, why in NOT_RERUN.items():
        if n not in tests:
            problems.append(f"NOT_RERUN names {n} ({why}), which is no test")
    if problems:
        print("The AVX2 re-run (tests/CMakeLists.txt, EDGEC_ISA=avx2) misses code with an AVX2 build:")
        for p in problems:
            print("  " + p)
        print("Re-run the whole binary (no TEST_FILTER), or list a test that computes nothing per-ISA in "
              "NOT_RERUN (tests/isa/check_avx2_rerun.py) with its reason.")
        sys.exit(1)
    print("every test of the re-run binaries has its AVX2 twin")


if __name__ == "__main__":
    main()

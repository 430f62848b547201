#!/usr/bin/python3
"""Checks of the per-ISA build (docs/architecture.md, "Instruction sets").

  check_isa_build.py no-leak FILE...
      Disassembles each file (objdump) and fails if any function outside
      the AVX-512 builds (symbols in namespace edgec::avx512) holds an
      EVEX-encoded instruction: a zmm register, a mask register %k0-7, one
      of xmm/ymm16-31, an embedded broadcast {1toN}, or the EVEX prefix
      (0x62, invalid in 64-bit mode otherwise). Such an instruction in the
      AVX2 path, or in code every CPU runs, is a SIGILL on an AVX2-only CPU:
      the sign that an inline function or template built for AVX-512 took
      the place of another build's at link time (a COMDAT leak).

  check_isa_build.py self-test CXX
      Builds two tiny objects with AVX-512 flags, one function in
      edgec::avx512 and one outside it, and checks that no-leak passes the
      first and names the function of the second.

  check_isa_build.py no-leak-aarch64 FILE...
      The same for an aarch64 build (aarch64-linux-gnu-objdump): no
      function outside the ARMv8.2 builds (edgec::armv82) holds a float16
      arithmetic instruction (an f-mnemonic on h registers or .4h/.8h
      lanes, other than the ARMv8-A conversions fcvt, fcvtl, fcvtn) or a
      dot product (sdot, udot): a SIGILL on a Cortex-A53/A72.

  check_isa_build.py self-test-aarch64 CXX
      As self-test, with the aarch64 cross compiler and ARMv8.2 flags.

  check_isa_build.py flags COMPILE_COMMANDS SOURCE_DIR
      No compile command and no CMake file or test script under SOURCE_DIR
      asks for -march=native; the kernels' sources are built for
      x86-64-v3 and the AVX-512 builds (build/isa/*_avx512.cpp) for
      x86-64-v4.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ALLOWED = "5edgec6avx512"  # mangled edgec::avx512, in any symbol that names it
EVEX_OPERAND = re.compile(r"%zmm|%k[0-7]\b|%[xy]mm(1[6-9]|2[0-9]|3[01])\b|\{1to\d+\}")
FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\t((?:[0-9a-f]{2} )+)\s*\t?(.*)$")
LEGACY_PREFIXES = {"66", "67", "f2", "f3", "2e", "36", "3e", "26", "64", "65", "f0"}


def evex(raw_bytes, text):
    if EVEX_OPERAND.search(text):
        return True
    b = raw_bytes.split()
    while b and b[0] in LEGACY_PREFIXES:
        b = b[1:]
    return bool(b) and b[0] == "62"


def x86_wide_insn(line):
    """The text of an EVEX-encoded instruction on this objdump line, or None."""
    m = INSN.match(line)
    return m.group(2).strip() if m and m.group(2) and evex(m.group(1), m.group(2)) else None


ARM_ALLOWED = "5edgec6armv82"
ARM_INSN = re.compile(r"^\s*[0-9a-f]+:\t[0-9a-f]{8}\s+\t?(\S+)\s*(.*)$")
ARM_FP16_OPERAND = re.compile(r"\bh([0-9]|[12][0-9]|3[01])\b|\.[48]h\b")
ARM_BASELINE_CONVERSIONS = {"fcvt", "fcvtl", "fcvtl2", "fcvtn", "fcvtn2"}


def armv82_only(mnemonic, operands):
    if mnemonic in ("sdot", "udot", "usdot", "sudot"):
        return True
    return (mnemonic.startswith("f") and mnemonic not in ARM_BASELINE_CONVERSIONS
            and bool(ARM_FP16_OPERAND.search(operands.split("//")[0])))


def arm_wide_insn(line):
    """The text of a float16-arithmetic or dot-product instruction on this objdump line, or None."""
    m = ARM_INSN.match(line)
    return (m.group(1) + " " + m.group(2)).strip() if m and armv82_only(m.group(1), m.group(2)) else None


# Per architecture: objdump's command, the mangled namespace of the wide
# build (in any symbol that names it), what a wide instruction is, and the
# words of the report.
ARCHS = {
    "x86-64": (["objdump", "-d", "--insn-width=15"], ALLOWED, x86_wide_insn, "AVX-512", "edgec::avx512"),
    "aarch64": (["aarch64-linux-gnu-objdump", "-d"], ARM_ALLOWED, arm_wide_insn, "ARMv8.2", "edgec::armv82"),
}


def leaks(path, arch="x86-64"):
    """(mangled function, instruction) for each function with wide-build code outside its namespace."""
    objdump, allowed, wide_insn = ARCHS[arch][:3]
    out = subprocess.run(objdump + [path], check=True, capture_output=True, text=True).stdout
    found = {}
    func = None
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            func = m.group(1)
            continue
        if func is None or allowed in func or func in found:
            continue
        insn = wide_insn(line)
        if insn:
            found[func] = insn
    return found


def demangle(names):
    if not names:
        return []
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else names


def no_leak(files, arch="x86-64"):
    what, namespace = ARCHS[arch][3:]
    bad = 0
    for path in files:
        found = leaks(path, arch)
        for (func, insn), pretty in zip(found.items(), demangle(list(found))):
            print(f"{path}: {pretty} ({func}) holds an {what} instruction outside {namespace}: {insn}")
            bad += 1
        print(f"{path}: {len(found)} function(s) with {what} code outside {namespace}")
    return 1 if bad else 0


# Per architecture: the source built in the wide build's namespace and in
# the baseline's (%s), the wide build's flags, the two namespaces, and the
# mangled functions the scan must name in the baseline's.
SELF_TESTS = {
    "x86-64": ("""
namespace edgec::%s {
void scale(float* x, float s, int n) { for (int i = 0; i < n; ++i) x[i] *= s; }
}
""", ["-march=x86-64-v4", "-mprefer-vector-width=512"], "avx512", "avx2", ["5edgec4avx25scale"]),
    "aarch64": ("""
namespace edgec::%s {
void scale(__fp16* x, __fp16 s, int n) { for (int i = 0; i < n; ++i) x[i] *= s; }
int dot(const signed char* a, const signed char* b, int n) { int t = 0; for (int i = 0; i < n; ++i) t += a[i] * b[i]; return t; }
}
""", ["-march=armv8.2-a+fp16+dotprod"], "armv82", "neon", ["5edgec4neon5scale", "5edgec4neon3dot"]),
}


def self_test(cxx, arch="x86-64"):
    source, wide_flags, wide, baseline, expected = SELF_TESTS[arch]
    what, namespace = ARCHS[arch][3:]
    with tempfile.TemporaryDirectory() as d:
        results = {}
        for ns in (wide, baseline):
            src, obj = os.path.join(d, ns + ".cpp"), os.path.join(d, ns + ".o")
            with open(src, "w") as f:
                f.write(source % ns)
            subprocess.run([cxx, "-O3"] + wide_flags + ["-c", src, "-o", obj], check=True)
            results[ns] = leaks(obj, arch)
        if results[wide]:
            print(f"self-test: code in {namespace} was flagged:", results[wide])
            return 1
        flagged = " ".join(results[baseline])
        if not all(f in flagged for f in expected):
            print(f"self-test: {what} code in edgec::{baseline} was not flagged:", results[baseline])
            return 1
        print(f"self-test: {what} code outside {namespace} is flagged, inside it is not")
        return 0


def flags(compile_commands, source_dir):
    bad = []
    with open(compile_commands) as f:
        commands = json.load(f)
    kernel_dirs = (os.path.join(source_dir, "src", "kernels") + os.sep,)
    onednn_kernels = {os.path.join(source_dir, "src", "backends", "onednn", n)
                      for n in ("winograd.cpp", "conv1d_gemm.cpp", "gemm_prepacked.cpp")}
    seen_avx512 = seen_kernel = 0
    for c in commands:
        cmd, src = c["command"], c["file"]
        if re.search(r"-m(arch|tune)=native", cmd):
            bad.append(f"{src}: built with -march/-mtune=native")
        if src.endswith("_avx512.cpp") and os.sep + "isa" + os.sep in src:
            seen_avx512 += 1
            if "-march=x86-64-v4" not in cmd:
                bad.append(f"{src}: the AVX-512 build is not -march=x86-64-v4")
        elif (src.startswith(kernel_dirs) and os.path.dirname(src) == kernel_dirs[0].rstrip(os.sep)) or \
                src in onednn_kernels or src.endswith("_avx2.cpp"):
            seen_kernel += 1
            if "-march=x86-64-v3" not in cmd:
                bad.append(f"{src}: a kernel source not built for -march=x86-64-v3")
            if "avx512" in cmd:
                bad.append(f"{src}: a baseline kernel source built with AVX-512 flags")
    if not seen_avx512 or not seen_kernel:
        bad.append(f"{compile_commands}: found {seen_kernel} kernel and {seen_avx512} AVX-512 compile commands")
    for root, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".git"))]
        for name in files:
            if name == "CMakeLists.txt" or name.endswith((".cmake", ".sh")) or name == "Makefile":
                path = os.path.join(root, name)
                with open(path, errors="replace") as f:
                    for i, line in enumerate(f, 1):
                        if re.search(r"-m(arch|tune)=native", line) and "native would tie" not in line:
                            bad.append(f"{path}:{i}: asks for -march/-mtune=native")
    for b in bad:
        print(b)
    print(f"{len(commands)} compile commands checked: {seen_kernel} baseline kernel sources, "
          f"{seen_avx512} AVX-512 builds; {len(bad)} problem(s)")
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "no-leak":
        return no_leak(sys.argv[2:])
    if len(sys.argv) == 3 and sys.argv[1] == "self-test":
        return self_test(sys.argv[2])
    if len(sys.argv) >= 3 and sys.argv[1] == "no-leak-aarch64":
        return no_leak(sys.argv[2:], "aarch64")
    if len(sys.argv) == 3 and sys.argv[1] == "self-test-aarch64":
        return self_test(sys.argv[2], "aarch64")
    if len(sys.argv) == 4 and sys.argv[1] == "flags":
        return flags(sys.argv[2], sys.argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())

#!/bin/bash
# The README's C and C++ snippets (its ```c and ```cpp blocks; the python
# blocks are another test's) are built as one CMake project against the
# installed package (find_package(edgec): edgec::c for C, edgec::runtime
# for C++) and run on the mlp fixture, so that they cannot go stale. Every
# snippet must print "y: ..." and all must agree on y[0].
# Usage: readme_snippets_test.sh README EDGEC PREFIX FIXTURES
set -eu
readme=$1 edgec=$2 prefix=$3 fixtures=$4
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"
mkdir -p proj
$py - "$readme" proj <<'PY'
import re, sys
readme, out = sys.argv[1], sys.argv[2]
blocks = re.findall(r"^```(c|cpp)\n(.*?)^```$", open(readme).read(), re.S | re.M)
assert any(k == "c" for k, _ in blocks) and any(k == "cpp" for k, _ in blocks), "no ```c or ```cpp block in README"
cmake = ["cmake_minimum_required(VERSION 3.25)", "project(readme_snippets LANGUAGES C CXX)",
         "set(CMAKE_C_STANDARD 99)", "set(CMAKE_CXX_STANDARD 20)", "find_package(edgec REQUIRED)"]
for i, (kind, code) in enumerate(blocks):
    name = f"snippet{i}_{kind}"
    open(f"{out}/{name}.{kind}", "w").write(code)
    cmake.append(f"add_executable({name} {name}.{kind})")
    cmake.append(f"target_link_libraries({name} PRIVATE edgec::{'c' if kind == 'c' else 'runtime'})")
    cmake.append(f"target_compile_options({name} PRIVATE -Wall -Wextra -Werror)")
open(f"{out}/CMakeLists.txt", "w").write("\n".join(cmake) + "\n")
print(f"{len(blocks)} snippet(s): " + ", ".join(k for k, _ in blocks))
PY
extra="${EDGEC_CONSUMER_FLAGS:-}"  # a sanitized package's users are sanitized too (package_test.sh)
if ! cmake -S proj -B build -G Ninja "-DCMAKE_PREFIX_PATH=$prefix" "-DCMAKE_C_FLAGS=$extra" "-DCMAKE_CXX_FLAGS=$extra" \
     "-DCMAKE_EXE_LINKER_FLAGS=$extra" >build.log 2>&1 || ! cmake --build build >>build.log 2>&1; then
  cat build.log
  echo "FAIL: the README's snippets do not build against $prefix"
  exit 1
fi
"$edgec" compile "$fixtures/mlp.onnx" -o mlp.edgec >/dev/null
values=""
for exe in build/snippet*; do
  [ -x "$exe" ] && [ -f "$exe" ] || continue
  if ! out=$("$exe" 2>&1); then fail "$(basename "$exe"): $out"; continue; fi
  echo "$(basename "$exe"): $out"
  grep -qE '^y: (1 x 16|\[1, 16\]), y\[0\] = -?[0-9.]+$' <<<"$out" || fail "$(basename "$exe") printed: $out"
  values+="${out##*= }"$'\n'
done
[ "$(sort -u <<<"$values" | grep -c .)" = 1 ] || fail "the snippets disagree on y[0]: $values"
report_failures
echo "README snippets build and run"

#!/bin/bash
# The installed package (issue 18): `cmake --install` into PREFIX, then each
# example (examples/c, examples/cpp) configured and built as a project of
# its own against PREFIX (find_package(edgec)) and by pkg-config, run on
# the mlp fixture and compared with `edgec run` and with PyTorch; the C
# example must link the C API alone. A consumer of edgec::compiler is built
# and run too. PREFIX stays for package.readme (package.cleanup removes it).
# Usage: package_test.sh BUILD_DIR SOURCE_DIR EDGEC PREFIX
set -eu
build=$1 src=$2 edgec=$3 prefix=$4
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"
fixtures=$src/models/fixtures
# A package built with sanitizers (make test-sanitize) is used by programs
# built with them too: EDGEC_CONSUMER_FLAGS carries the flags (tests/CMakeLists.txt).
extra="${EDGEC_CONSUMER_FLAGS:-}"
flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix" "-DCMAKE_EXE_LINKER_FLAGS=$extra")

# Install.
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >install.log || { cat install.log; exit 1; }
for f in include/edgec/edgec.h include/edgec/edgec.hpp include/edgec/runtime/method.h include/edgec/kernels/tensor.h \
         include/edgec/compiler/pipeline.h include/edgec/serialize/program_generated.h lib/libedgec_c.so \
         lib/libedgec_runtime.a lib/libedgec_compiler.a lib/cmake/edgec/edgecConfig.cmake \
         lib/cmake/edgec/edgecConfigVersion.cmake lib/pkgconfig/edgec.pc lib/pkgconfig/edgec-c.pc bin/edgec; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# libedgec_c.so exports the C API alone.
exported=$(nm -D --defined-only "$prefix/lib/libedgec_c.so" | awk '$2 ~ /[TDBRW]/ {print $3}')
others=$(grep -v '^edgec_' <<<"$exported" || true)
[ -z "$others" ] || fail "libedgec_c.so exports more than the C API: $(head -3 <<<"$others")"

# The public headers compile alone: edgec.h as C99 and C++, edgec.hpp and
# each runtime header it includes as C++20, with the package's include
# directories only (P/include and P/include/edgec, as edgec::runtime and
# edgec.pc give them); edgec.hpp reaches no compiler, flatbuffers or ONNX
# header.
echo '#include <edgec/edgec.h>' >h.c
cc -std=c99 -pedantic -Wall -Werror -fsyntax-only -I"$prefix/include" h.c || fail "edgec.h does not compile as C99"
c++ -std=c++20 -Wall -Werror -fsyntax-only -I"$prefix/include" -x c++ h.c || fail "edgec.h does not compile as C++"
echo '#include <edgec/edgec.hpp>' >hpp.cpp
c++ -std=c++20 -Wall -Werror -H -fsyntax-only -I"$prefix/include" -I"$prefix/include/edgec" hpp.cpp 2>hpp.deps || fail "edgec.hpp does not compile alone"
reached=$(grep -o "$prefix/include/edgec/[a-z_/]*\.h[a-z]*" hpp.deps | sed "s|$prefix/include/edgec/||" | sort -u)
for h in $reached; do
  case $h in
    edgec.hpp|base/*|kernels/*|runtime/*) ;;
    *) fail "edgec.hpp includes $h" ;;
  esac
  echo "#include \"$h\"" >one.cpp
  c++ -std=c++20 -Wall -Werror -fsyntax-only -I"$prefix/include/edgec" one.cpp || fail "$h does not compile alone"
done
grep -qE 'flatbuffers|onnx|google/protobuf' hpp.deps && fail "edgec.hpp reaches flatbuffers, ONNX or protobuf"

# The fixture, its reference by `edgec run`, and its input as raw bytes.
"$edgec" compile "$fixtures/mlp.onnx" -o mlp.edgec >/dev/null
"$edgec" run mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --outputs ref.npz
$py -c "import numpy as np; np.load('$fixtures/mlp.inputs.npz')['x'].astype(np.float32).tofile('x.bin')"

# check_output FILE PREFIX: the line "PREFIXy: v..." of FILE matches `edgec
# run` (1e-5) and PyTorch (1e-4).
check_output() {
  $py - "$1" "$2" "$fixtures/mlp.outputs.npz" <<'PY' || fail "$1: wrong output"
import sys, numpy as np
path, prefix, torch_ref = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l for l in open(path) if l.startswith(prefix + "y:")]
assert len(lines) == 1, f"no line '{prefix}y:' in {path}"
got = np.array([float(v) for v in lines[0].split(":", 1)[1].split()], dtype=np.float32)
ref = np.load("ref.npz")["y"].reshape(-1)
torch = np.load(torch_ref)["y"].reshape(-1)
assert got.shape == ref.shape, (got.shape, ref.shape)
np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(got, torch, rtol=1e-4, atol=1e-4)
print(f"{path}: {got.size} values match edgec run and PyTorch")
PY
}

# The C example: its own project, linking only edgec::c.
if cmake -S "$src/examples/c" -B c "${flags[@]}" "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror $extra" >c.log 2>&1 &&
   cmake --build c >>c.log 2>&1; then
  ./c/run_model mlp.edgec x.bin >c.txt || fail "run_model: $(cat c.txt)"
  check_output c.txt ""
  grep -q "^input x f32\[1, 64\]" c.txt || fail "run_model did not print the input's type: $(head -3 c.txt)"
  # Its link line names libedgec_c.so and no other edgec library; it needs
  # libedgec_c.so at run time and holds none of the C++ runtime.
  link=$(ninja -C c -t commands run_model | tail -1)
  libs=$(grep -o 'libedgec[a-z_0-9]*\.[a-z]*' <<<"$link" | sort -u | tr '\n' ' ')
  [ "$libs" = "libedgec_c.so " ] || fail "run_model links $libs, not libedgec_c.so alone: $link"
  readelf -d c/run_model | grep NEEDED | grep -q 'libedgec_c\.so' || fail "run_model does not need libedgec_c.so"
  ! nm -C c/run_model | grep -q 'edgec::' || fail "run_model holds C++ runtime symbols"
else
  cat c.log; fail "the C example did not build against $prefix"
fi

# The C++ example: a control loop on edgec::runtime.
if cmake -S "$src/examples/cpp" -B cpp "${flags[@]}" "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror $extra" >cpp.log 2>&1 &&
   cmake --build cpp >>cpp.log 2>&1; then
  ./cpp/policy_loop mlp.edgec --hz 500 --ticks 50 --obs x.bin >cpp.txt || fail "policy_loop: $(cat cpp.txt)"
  check_output cpp.txt "tick 0 "
  grep -qE "^50 ticks at 500 Hz: latency p50 [0-9.]+ us, p99 [0-9.]+ us, max [0-9.]+ us; [0-9]+ missed" cpp.txt ||
    fail "policy_loop printed no latency statistics: $(tail -2 cpp.txt)"
  cat cpp.txt | tail -1
else
  cat cpp.log; fail "the C++ example did not build against $prefix"
fi

# pkg-config: the same examples by hand.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
if cc -std=c99 -Wall -Werror $extra "$src/examples/c/run_model.c" $(pkg-config --cflags --libs edgec-c) \
     "-Wl,-rpath,$prefix/lib" -o run_model_pc 2>pc.log; then
  ./run_model_pc mlp.edgec x.bin >c_pc.txt || fail "run_model (pkg-config): $(cat c_pc.txt)"
  check_output c_pc.txt ""
else
  cat pc.log; fail "the C example did not build by pkg-config"
fi
if c++ -std=c++20 -Wall -Werror $extra "$src/examples/cpp/policy_loop.cpp" $(pkg-config --cflags --libs edgec) \
     -o policy_loop_pc 2>pc.log; then
  ./policy_loop_pc mlp.edgec --hz 1000 --ticks 5 --obs x.bin >cpp_pc.txt || fail "policy_loop (pkg-config): $(cat cpp_pc.txt)"
  check_output cpp_pc.txt "tick 0 "
else
  cat pc.log; fail "the C++ example did not build by pkg-config"
fi

# edgec::compiler: import the ONNX fixture, compile it and run it, in one
# consumer project.
mkdir -p compiler_src
cat >compiler_src/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(edgec_compiler_consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(edgec 0.1 REQUIRED COMPONENTS compiler)
add_executable(compile_and_run main.cpp)
target_link_libraries(compile_and_run PRIVATE edgec::compiler edgec::onnx edgec::runtime)
CMAKE
cat >compiler_src/main.cpp <<'CPP'
#include <cstdio>
#include <edgec/edgec.hpp>
#include "compiler/pipeline.h"
#include "frontends/onnx/importer.h"
int main(int argc, char** argv) {
  auto program = edgec::import_onnx(argv[1]);
  edgec::compile_program(*program, {}, "");
  std::vector<std::byte> bytes = edgec::serialize_program(*program);
  std::vector<std::byte> aligned(bytes.size() + 64);
  std::byte* p = aligned.data() + (64 - reinterpret_cast<uintptr_t>(aligned.data()) % 64) % 64;
  std::copy(bytes.begin(), bytes.end(), p);
  auto loaded = edgec::runtime::Program::load_from_bytes({p, bytes.size()});
  if (!loaded.ok()) return 1;
  std::printf("compiled %s: %zu bytes, %zu input(s)\n", argv[1], bytes.size(), (*loaded)->inputs().size());
  return argc == 2 ? 0 : 1;
}
CPP
if cmake -S compiler_src -B compiler "${flags[@]}" "-DCMAKE_CXX_FLAGS=$extra" >compiler.log 2>&1 && cmake --build compiler >>compiler.log 2>&1; then
  ./compiler/compile_and_run "$fixtures/mlp.onnx" || fail "the edgec::compiler consumer failed"
else
  tail -30 compiler.log; fail "a consumer of edgec::compiler did not build against $prefix"
fi

report_failures
echo "package: installed, examples built and run"

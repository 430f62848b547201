#!/bin/bash
# The runtime library links no compiler, ONNX or protobuf code (docs/
# architecture.md, "Layers"): checks the link line of runtime_only (a program
# linking only edgec_runtime) and the symbols it ends up with, then runs it on
# a compiled program so the check is of a runtime that works.
# Usage: runtime_link_test.sh RUNTIME_ONLY BUILD_DIR EDGEC MODEL
set -u
runtime_only=$1 build_dir=$2 edgec=$3 model=$4
fail=0
# The command that links it, as the build (Ninja) runs it.
link_txt=$(mktemp)
ninja -C "$build_dir" -t commands "$(realpath --relative-to="$build_dir" "$runtime_only")" | tail -1 >"$link_txt"
grep -q -- "-o bin/runtime_only\|runtime_only.cpp.o" "$link_txt" || { echo "FAIL: no link command for runtime_only"; cat "$link_txt"; exit 1; }
# The libraries named on the link line: the runtime's layers only.
for lib in $(grep -o 'libedgec_[a-z_0-9]*\.a' "$link_txt" | sort -u); do
  case $lib in
    libedgec_base.a|libedgec_kernels.a|libedgec_runtime_core.a|libedgec_runtime.a|libedgec_*_runtime.a) ;;
    *) echo "FAIL: runtime_only links $lib, which is not a runtime layer"; fail=1 ;;
  esac
done
for forbidden in onnx protobuf edgec_compiler edgec_ir edgec_ops edgec_passes edgec_lowering edgec_serialize; do
  if grep -q -- "$forbidden" "$link_txt"; then echo "FAIL: the link line names $forbidden"; fail=1; fi
done
# Symbols: none of ONNX, protobuf or the compiler's types.
symbols=$(nm -C "$runtime_only")
for pattern in 'onnx::' 'google::protobuf' 'edgec::Graph::' 'edgec::Node::' 'edgec::CompileError' 'edgec::Pass\b' \
               'edgec::Partitioner' 'edgec::BackendCompiler' 'edgec::verify'; do
  if grep -qE -- "$pattern" <<<"$symbols"; then
    echo "FAIL: runtime_only contains symbols matching $pattern:"
    grep -E -- "$pattern" <<<"$symbols" | head -3
    fail=1
  fi
done
# And it runs: the runtime alone loads and initializes a compiled program.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$link_txt"' EXIT
"$edgec" compile "$model" -o "$tmp/m.edgec" >/dev/null || { echo "FAIL: edgec compile $model"; exit 1; }
out=$("$runtime_only" "$tmp/m.edgec") || { echo "FAIL: runtime_only could not load $model's program"; fail=1; }
echo "$out"
[ $fail = 0 ] && echo "runtime links only runtime layers"
exit $fail

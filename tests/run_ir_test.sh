#!/usr/bin/env bash
# Runs the `// RUN:` lines of a textual-IR test, like LLVM's lit:
#   %s -> the test file, %edgec -> the edgec binary, %t -> a scratch path;
#   FileCheck, not and split-file come from LLVM's bin directory.
# Fails if the file has no RUN line (a test that runs nothing cannot fail).
set -euo pipefail
test_file=$1 edgec=$2 llvm_bin=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export PATH="$llvm_bin:$PATH"
mapfile -t runs < <(sed -n 's|^// RUN: *||p' "$test_file")
if [ ${#runs[@]} -eq 0 ]; then
  echo "error: $test_file has no '// RUN:' line" >&2
  exit 1
fi
for run in "${runs[@]}"; do
  cmd=${run//%s/$test_file}
  cmd=${cmd//%edgec/$edgec}
  cmd=${cmd//%t/$scratch/t}
  echo "RUN: $cmd"
  bash -o pipefail -c "$cmd"
done

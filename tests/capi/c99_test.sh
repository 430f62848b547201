#!/bin/bash
# Runs the C99 program (c99_test.c) on a compiled fixture; it must link
# libedgec_c.so and no other edgec library.
# Usage: c99_test.sh CAPI_C99 EDGEC MODEL
set -eu
capi_c99=$1 edgec=$2 model=$3
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$edgec" compile "$model" -o "$t/m.edgec" >/dev/null
"$capi_c99" "$t/m.edgec"
needed=$(readelf -d "$capi_c99" | grep NEEDED)
grep -q 'libedgec_c\.so' <<<"$needed" || { echo "FAIL: capi_c99 does not need libedgec_c.so: $needed"; exit 1; }
if nm -C "$capi_c99" | grep -q 'edgec::'; then echo "FAIL: capi_c99 holds C++ runtime symbols"; exit 1; fi
echo "capi_c99 links only the C API"

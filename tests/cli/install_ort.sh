#!/usr/bin/env bash
# Installs onnxruntime-node VERSION from npm into DIR (DIR/node_modules), the
# oracle for models of opsets torch 1.13 cannot export (tests/CMakeLists.txt
# runs it once as the setup of the tests that need it). --ignore-scripts: the
# package carries its native binaries; its install script would download more.
# Does nothing when DIR already holds that version.
#   install_ort.sh DIR VERSION
set -euo pipefail
dir=$1 version=$2
package="$dir/node_modules/onnxruntime-node/package.json"
if [ -f "$package" ] && grep -q "\"version\": \"$version\"" "$package"; then
  echo "onnxruntime-node $version is in $dir"
  exit 0
fi
for tool in node npm; do
  command -v $tool >/dev/null || { echo "error: $tool is needed for onnxruntime-node (make test installs Debian's nodejs and npm)"; exit 1; }
done
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --ignore-scripts --no-audit --no-fund --loglevel=error "onnxruntime-node@$version"
grep -q "\"version\": \"$version\"" "$package" || { echo "error: npm did not install onnxruntime-node $version into $dir"; exit 1; }
echo "installed onnxruntime-node $version into $dir"

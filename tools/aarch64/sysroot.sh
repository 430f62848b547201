#!/usr/bin/env bash
# Builds the sysroot of the aarch64 cross build (docs/architecture.md,
# "Targets"): Debian's :arm64 builds of edgec's dependencies, downloaded
# with apt-get and unpacked with dpkg-deb into SYSROOT, leaving dpkg's state
# alone. Several of them cannot be installed beside their amd64 twins
# (libxnnpack0 and libpthreadpool0 are not Multi-Arch: same, and apt would
# remove the amd64 torch that needs them; libdnnl-dev, libonnxifi and
# libprotobuf-dev collide with or upgrade amd64 files), so none is
# installed. libc, libstdc++ and libgomp come from the cross toolchain
# (g++-aarch64-linux-gnu, under /usr/aarch64-linux-gnu).
#
# Usage: sysroot.sh SYSROOT. Run as root the first time (it adds the arm64
# architecture to dpkg and refreshes apt's lists when they lack it); does
# nothing when SYSROOT already holds the same versions.
set -euo pipefail
sysroot=$(realpath -m "${1:?usage: sysroot.sh SYSROOT}")

# The target's libraries and headers, and their library dependencies, named
# one by one (a recursive closure would drag in libc6-dev's tree).
arm64_packages=(
  libonnx-dev libonnx1 libonnxifi libprotobuf-dev libprotobuf32 libprotobuf-lite32
  libzip-dev libzip4 libbz2-1.0 libssl3 zlib1g zlib1g-dev
  libflatbuffers-dev libflatbuffers2
  libgtest-dev libgmock-dev
  libmimalloc-dev libmimalloc2.0
  libxnnpack-dev libxnnpack0 libpthreadpool-dev libpthreadpool0 libcpuinfo-dev libcpuinfo0
)
# Header-only packages (Architecture: all).
all_packages=(libcli11-dev nlohmann-json3-dev googletest)

need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "error: the aarch64 sysroot needs $1; run as root: $2" >&2
    exit 1
  fi
}
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  need_root "dpkg to know the arm64 architecture" "dpkg --add-architecture arm64 && apt-get update"
  dpkg --add-architecture arm64
  apt-get update -q
fi
if ! apt-cache show libonnx-dev:arm64 >/dev/null 2>&1; then
  need_root "apt's arm64 package lists" "apt-get update"
  apt-get update -q
fi

# The exact versions apt would fetch: the stamp compares them.
names=()
for p in "${arm64_packages[@]}"; do names+=("$p:arm64"); done
names+=("${all_packages[@]}")
wanted=$(for n in "${names[@]}"; do
  printf '%s=%s\n' "$n" "$(apt-cache policy "$n" | awk '/Candidate:/ {print $2}')"
done)
if echo "$wanted" | grep -q '=(none)$\|=$'; then
  echo "error: apt has no candidate for:" $(echo "$wanted" | grep '=(none)$\|=$') >&2
  exit 1
fi
stamp=$sysroot/.packages
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  exit 0
fi

echo "aarch64 sysroot: downloading ${#names[@]} Debian packages into $sysroot"
rm -rf "$sysroot"
mkdir -p "$sysroot/.debs"
# apt-get download writes into the current folder; as root it would drop to
# the _apt user, who cannot reach a folder under a private one (mktemp's):
# it downloads as root instead (packages are still checked against apt's
# signed lists).
(cd "$sysroot/.debs" && apt-get download -q -o APT::Sandbox::User=root $(echo "$wanted"))
for deb in "$sysroot"/.debs/*.deb; do
  dpkg-deb -x "$deb" "$sysroot"
done
rm -rf "$sysroot/.debs"
# Debian's symlinks into the usrmerged /lib (e.g. libz.so -> /lib/...) are
# absolute: point them into the sysroot.
find "$sysroot" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$sysroot$target" "$link"
done
echo "$wanted" >"$stamp"

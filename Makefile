# edgec: `make` installs what the build needs (Debian packages, as root),
# configures and builds; `make test` runs every test through ctest;
# `make demo` builds and runs the bundled example.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
CMAKE_FLAGS ?=

# Debian packages the build and the tests need (python3-torch and python3-onnx
# export the large fixtures, which are generated at test time).
DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev \
  llvm-14-tools libzip-dev libcli11-dev nlohmann-json3-dev libflatbuffers-dev flatbuffers-compiler \
  python3 python3-numpy libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata \
  python3-torch python3-onnx libdnnl-dev

.PHONY: all deps build test demo clean bench

all: build

deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing || exit 1; \
	  else \
	    echo "error: missing Debian packages; run as root:"; \
	    echo "  apt-get update && apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	@bash tools/demo.sh $(BUILD_DIR)/bin/edgec

clean:
	rm -rf $(BUILD_DIR)

# `make bench`: the fixture models in PyTorch, ONNX Runtime and edgec
# (bench/models/run.sh; it installs libopenblas0-pthread, node/npm and
# onnxruntime-node when missing, as root). BENCH_ARGS passes options on,
# e.g. `make bench BENCH_ARGS="--threads 1 --no-write"`.
BENCH_ARGS ?=
bench: build
	bash bench/models/run.sh --build $(BUILD_DIR) $(BENCH_ARGS)

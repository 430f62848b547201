# edgec: `make` installs what the build needs (Debian packages, as root),
# configures and builds; `make test` runs every test through ctest;
# `make demo` builds and runs the bundled example.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
CMAKE_FLAGS ?=

# Debian packages the build and the tests need (python3-torch, python3-onnx and
# python3-torchvision export the large fixtures and the zoo, which are
# generated at test time; python3-dev and pybind11-dev build the Python
# module, python3-pytest tests it, python3-venv, python3-setuptools and
# python3-wheel install it into a venv with pip, offline).
DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev \
  llvm-14-tools libzip-dev libcli11-dev nlohmann-json3-dev libflatbuffers-dev flatbuffers-compiler \
  python3 python3-numpy libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata \
  python3-torch python3-onnx python3-torchvision libdnnl-dev libxnnpack-dev libpthreadpool-dev libmimalloc-dev \
  python3-dev pybind11-dev python3-pytest python3-venv python3-pip python3-setuptools python3-wheel

.PHONY: all deps build test-deps node-deps test demo clean bench fuzz test-sanitize test-tsan aarch64 test-aarch64

all: build

# Installs the Debian packages named in $(1) that are missing (as root;
# otherwise prints the apt-get line and fails).
define install_packages
	@missing=""; \
	for p in $(1); do \
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
endef

deps:
	$(call install_packages,$(DEBIAN_PACKAGES))

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The tests also need node and npm (ONNX Runtime from npm is the oracle for
# the zoo's newer opsets): Debian's, when the machine has none. The model
# benchmark's smoke test (bench.models.smoke) also runs PyTorch on OpenBLAS
# and measures peak memory with /usr/bin/time.
TEST_PACKAGES := libopenblas0-pthread time
# zoo.quantized calibrates on scikit-image's sample photos: Debian's
# python3-skimage unpacked into build/debian (its dependencies, scipy and
# matplotlib among them, are not needed for the photos, so it is not
# installed). The path is tests/CMakeLists.txt's EDGEC_SKIMAGE_DATA.
SKIMAGE_DIR := build/debian/python3-skimage
SKIMAGE_PHOTO := $(SKIMAGE_DIR)/usr/lib/python3/dist-packages/skimage/data/astronaut.png
test-deps: $(SKIMAGE_PHOTO)
	$(call install_packages,$(TEST_PACKAGES))
$(SKIMAGE_PHOTO):
	mkdir -p build/debian
	cd build/debian && rm -f python3-skimage_*_all.deb && \
	  { apt-get download python3-skimage || { apt-get update -q && apt-get download python3-skimage; }; }
	rm -rf $(SKIMAGE_DIR) && dpkg-deb -x build/debian/python3-skimage_*_all.deb $(SKIMAGE_DIR)
	test -f $@
	@command -v node >/dev/null && command -v npm >/dev/null || $(MAKE) --no-print-directory node-deps
node-deps:
	$(call install_packages,nodejs npm)

test: build test-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	@bash tools/demo.sh $(BUILD_DIR)/bin/edgec

clean:
	rm -rf $(BUILD_DIR)

# aarch64 (issue 30; docs/architecture.md, "Targets"): `make aarch64`
# cross-builds the runtime, the C API, the CLI and the tests into
# $(AARCH64_DIR) with Debian's cross toolchain, the :arm64 libraries
# unpacked into $(AARCH64_DIR)/sysroot (tools/aarch64/sysroot.sh; nothing
# :arm64 is installed through dpkg), and writes $(AARCH64_DIR)/emulate,
# which runs one of its programs under qemu-user. `make test-aarch64` runs
# the aarch64 suite (tests/aarch64.cmake) under qemu; it needs the x86-64
# build too, whose edgec compiles the fixtures with --target aarch64.
AARCH64_DIR ?= build-aarch64
AARCH64_PACKAGES := g++-aarch64-linux-gnu qemu-user
AARCH64_SYSROOT = $(abspath $(AARCH64_DIR))/sysroot
aarch64: deps
	$(call install_packages,$(AARCH64_PACKAGES))
	bash tools/aarch64/sysroot.sh $(AARCH64_SYSROOT)
	cmake -S . -B $(AARCH64_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_TOOLCHAIN_FILE=$(abspath cmake/aarch64-linux-gnu.cmake) -DEDGEC_AARCH64_SYSROOT=$(AARCH64_SYSROOT) \
	  -DEDGEC_HOST_EDGEC=$(abspath $(BUILD_DIR))/bin/edgec $(CMAKE_FLAGS)
	cmake --build $(AARCH64_DIR) -j $(JOBS)

test-aarch64: build aarch64 test-deps
	cd $(AARCH64_DIR) && ctest --output-on-failure -j $(JOBS)

# `make bench`: the fixture models, the torchvision zoo and a GPT-style
# decoder in PyTorch, ONNX Runtime 1.30.0 and 1.20.1 and edgec at 1 and 2
# threads (bench/models/run.sh; it installs libopenblas0-pthread, node/npm
# and onnxruntime-node when missing, as root). BENCH_ARGS passes options on,
# e.g. `make bench BENCH_ARGS="--models mlp,squeezenet1_1 --threads 1 --no-write"`.
BENCH_ARGS ?=
bench: build
	bash bench/models/run.sh --build $(BUILD_DIR) $(BENCH_ARGS)

# Reliability (issue 7). `make fuzz FUZZ_SECONDS=N` builds the libFuzzer
# targets in fuzz/ with clang-14 (ASan + UBSan) and runs each for N seconds
# on a corpus in $(FUZZ_DIR)/corpus seeded from fuzz/corpus; findings land
# in $(FUZZ_DIR)/findings.
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev libomp-14-dev
FUZZ_SECONDS ?= 60
FUZZ_DIR ?= build-fuzz
fuzz: deps
	$(call install_packages,$(FUZZ_PACKAGES))
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DEDGEC_FUZZ=ON -DEDGEC_WERROR=OFF -DBUILD_TESTING=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS)
	@mkdir -p $(FUZZ_DIR)/findings
	@for t in program onnx ir npz; do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	  echo "fuzzing $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/bin/$${t}_fuzzer -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 \
	    -artifact_prefix=$(FUZZ_DIR)/findings/$$t- -print_final_stats=1 \
	    $(FUZZ_DIR)/corpus/$$t fuzz/corpus/$$t 2>&1 | tail -n 12 || exit 1; \
	done

# The whole suite under ASan + UBSan (its own build folder). -O1 with line
# tables only keeps the build within reach of 2 cores; any UBSan report
# fails its test (-fno-sanitize-recover and halt_on_error).
SANITIZE_ENV := ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-sanitize: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDGEC_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1"
	cmake --build build-asan -j $(JOBS)
	cd build-asan && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS)

# The concurrency tests under ThreadSanitizer.
test-tsan: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDGEC_TSAN=ON
	cmake --build build-tsan -j $(JOBS) --target runtime_tests
	OMP_NUM_THREADS=1 build-tsan/bin/runtime_tests --gtest_filter='Concurrency.*'

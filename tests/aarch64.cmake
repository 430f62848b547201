# The aarch64 suite (`make test-aarch64`; README, "What runs where"): a cross
# build's tests, run under qemu-user by ctest through the build's `emulate`
# script (CMAKE_CROSSCOMPILING_EMULATOR; EDGEC_QEMU_CPU picks the CPU,
# cortex-a76 by default). Emulation is 10-30x slower than the machine, so
# this is a chosen subset of the x86 suite, sized for CI's budget:
#   - the kernel cases (every family, numpy references), the ISA choice and
#     the gemm tests at both builds (armv8.2, and neon with EDGEC_ISA=neon),
#     and no ARMv8.2 instruction outside its build (isa.no_leak);
#   - the runtime and loader tests, the npz reader;
#   - the ONNX node cases of libonnx-testdata, its models, the newer
#     opsets' cases and the importer's tests that compute or read bytes;
#   - the delegates built here (backends_tests: the reference and xnnpack
#     delegates' own tests, XNNPACK's int8 ones also on cortex-a53);
#   - every committed fixture compiled on this machine (x86-64) with
#     --target aarch64, run under emulation and compared with PyTorch's
#     outputs, and compiled again by the aarch64 edgec under emulation:
#     the two files must be byte-identical (fixture.aarch64.NAME);
#   - every committed fixture compiled and run under emulation on the
#     portable kernels, the reference backend (fixture.NAME) and the
#     xnnpack delegate (fixture.xnnpack.NAME);
#   - a program compiled for x86-64 with the onednn delegate is refused by
#     the aarch64 runtime, naming both targets and --target.
# Not here (the x86 suite runs them): the importer's refusal walk and its
# composition tests, the FileCheck tests of the passes,
# the CLI's usage and hostile-input scripts, the zoo, the Python module,
# the installed package and the benchmarks' smoke tests.

# The CLI under emulation, for the scripts (which cannot exec an aarch64
# program themselves: no binfmt_misc here).
set(EDGEC_CLI ${PROJECT_BINARY_DIR}/emulated/edgec)
file(WRITE ${EDGEC_CLI} "#!/bin/sh\nexec ${CMAKE_CROSSCOMPILING_EMULATOR} ${PROJECT_BINARY_DIR}/bin/edgec \"$@\"\n")
file(CHMOD ${EDGEC_CLI} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
     WORLD_EXECUTE)

edgec_layer_test(base edgec_base)
edgec_layer_test(kernels edgec_compiler edgec_io nlohmann_json::nlohmann_json)
edgec_layer_test(io edgec_io)
edgec_layer_test(runtime edgec_compiler edgec_runtime)
# The importer's tests that compute (ONNX's node cases, libonnx-testdata's
# models, opsets 18-23 against ONNX Runtime, float64) or read bytes
# (hostile files, external data); the refusal walk and the tests of how
# operators are composed are the same logic on every target and stay in the
# x86 suite (a third of this build's time otherwise).
edgec_layer_test(frontends edgec_onnx edgec_compiler edgec_io edgec_runtime
  ONLY onnx_node_test.cpp onnx_testdata_models_test.cpp onnx_newer_opsets_test.cpp onnx_double_test.cpp
       onnx_import_test.cpp onnx_hostile_input_test.cpp onnx_external_data_test.cpp)
edgec_layer_test(backends edgec_compiler edgec_runtime)
# XNNPACK's int8 operators again on a CPU without the dot-product extension
# (cortex-a53): its kernels there add pairs of i8 products in int16, which
# is why symmetric weights holding -128 go to qu8 (docs/architecture.md,
# the xnnpack delegate).
gtest_discover_tests(backends_tests TEST_PREFIX "backends.a53." TEST_FILTER "XnnpackInt8.*"
  TEST_LIST backends_a53_tests DISCOVERY_TIMEOUT 120 PROPERTIES ENVIRONMENT EDGEC_QEMU_CPU=cortex-a53)
edgec_kernel_cases()
# The hand-written products again at the baseline build (armv8.2 is the
# first pass's choice on cortex-a76).
gtest_discover_tests(kernels_tests TEST_PREFIX "kernels.neon." TEST_FILTER "Gemm*:Isa*:*Threaded*"
  TEST_LIST kernels_neon_tests DISCOVERY_TIMEOUT 120 PROPERTIES ENVIRONMENT EDGEC_ISA=neon)

# No ARMv8.2 instruction outside the ARMv8.2 builds (edgec::armv82) in the
# artifacts (read on this machine with the cross objdump, not emulated).
add_test(NAME isa.no_leak COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/isa/check_isa_build.py no-leak-aarch64
  $<TARGET_FILE:edgec> $<TARGET_FILE:edgec_c>)
add_test(NAME isa.no_leak_self_test COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/isa/check_isa_build.py
  self-test-aarch64 ${CMAKE_CXX_COMPILER})
# The ISA choice on emulated CPUs with and without the ARMv8.2 extensions.
add_test(NAME isa.aarch64_cpus COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/isa/isa_aarch64_test.sh
  ${PROJECT_BINARY_DIR}/emulate ${PROJECT_BINARY_DIR}/bin/edgec ${PROJECT_SOURCE_DIR}/models/fixtures)

# Program files across targets: EDGEC_HOST_EDGEC is the x86-64 build's
# edgec (`make test-aarch64` builds it first and passes it).
set(EDGEC_HOST_EDGEC "" CACHE FILEPATH "The build machine's edgec (x86-64), for the cross-target fixture tests")
if(NOT EDGEC_HOST_EDGEC)
  message(FATAL_ERROR "the aarch64 suite needs the x86-64 edgec: configure with -DEDGEC_HOST_EDGEC=PATH "
                      "(make test-aarch64 does)")
endif()
file(GLOB fixture_models CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/models/fixtures/*.onnx)
foreach(model ${fixture_models})
  get_filename_component(name ${model} NAME_WE)
  add_test(NAME fixture.aarch64.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/cross_target_fixture_test.sh ${EDGEC_HOST_EDGEC} ${EDGEC_CLI}
            ${PROJECT_SOURCE_DIR}/models/fixtures ${name})
  set_tests_properties(fixture.aarch64.${name} PROPERTIES TIMEOUT 900)
endforeach()
# Every fixture on this machine's own compile too: the portable kernels
# alone and with the reference backend (fixture.NAME), and through the
# xnnpack delegate (fixture.xnnpack.NAME), compiled and run under qemu.
foreach(model ${fixture_models})
  get_filename_component(name ${model} NAME_WE)
  add_test(NAME fixture.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/fixture_test.sh ${EDGEC_CLI} ${PROJECT_SOURCE_DIR}/models/fixtures
            ${name} portable)
  set(tests fixture.${name})
  if(EDGEC_BACKEND_XNNPACK)
    add_test(NAME fixture.xnnpack.${name}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/fixture_test.sh ${EDGEC_CLI} ${PROJECT_SOURCE_DIR}/models/fixtures
              ${name} xnnpack)
    list(APPEND tests fixture.xnnpack.${name})
  endif()
  set_tests_properties(${tests} PROPERTIES TIMEOUT 900)
endforeach()
add_test(NAME cli.cross_target_refusal
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/cross_target_refusal_test.sh ${EDGEC_HOST_EDGEC} ${EDGEC_CLI}
          ${PROJECT_SOURCE_DIR}/models/fixtures)

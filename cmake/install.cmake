# The installed package (`cmake --install BUILD --prefix P`; docs/
# architecture.md, "The C API and the installed package"):
#   P/include/edgec/edgec.h            the C API
#   P/include/edgec/edgec.hpp          the C++ runtime API in one include
#   P/include/edgec/{base,kernels,runtime}/*.h   what it includes, at their
#                                      source paths (INTERFACE include dirs:
#                                      P/include and P/include/edgec)
#   P/include/edgec/<layer>/*.h        the compiler's headers (component compiler)
#   P/lib/libedgec_c.so*               the C API, the runtime linked in
#   P/lib/libedgec_*.a                 the runtime's and the compiler's layers
#   P/lib/cmake/edgec/                 edgecConfig.cmake (+ version, targets)
#   P/lib/pkgconfig/edgec.pc, edgec-c.pc
#   P/bin/edgec                        the CLI
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(EDGEC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/edgec)

# Imported names: edgec::runtime, edgec::compiler, edgec::c, and
# edgec::<layer> for the layers they link.
set(EDGEC_RUNTIME_TARGETS edgec_base edgec_kernels edgec_format edgec_runtime_core ${EDGEC_BACKEND_RUNTIMES}
    edgec_runtime)
set(EDGEC_COMPILER_TARGETS edgec_ops edgec_ir edgec_interpreter edgec_passes edgec_onnx edgec_lowering
    edgec_serialize ${EDGEC_BACKEND_COMPILERS} edgec_compiler)
foreach(target IN LISTS EDGEC_RUNTIME_TARGETS EDGEC_COMPILER_TARGETS ITEMS edgec_c)
  string(REGEX REPLACE "^edgec_" "" name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
endforeach()

install(TARGETS edgec_c EXPORT edgecC COMPONENT c
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT c)
install(FILES include/edgec/edgec.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgec COMPONENT c)
install(EXPORT edgecC NAMESPACE edgec:: DESTINATION ${EDGEC_CMAKE_DIR} FILE edgecCTargets.cmake COMPONENT c)

install(TARGETS ${EDGEC_RUNTIME_TARGETS} EXPORT edgecRuntime COMPONENT runtime
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The public runtime headers and what they include (nothing of flatbuffers,
# the compiler or ONNX; tests/cli/package_test.sh compiles edgec.hpp alone).
foreach(header base/attrs.h base/dtype.h base/error.h base/half.h base/memory_limit.h kernels/op_decl.h
               kernels/registry.h kernels/tensor.h runtime/backend.h runtime/delegate.h runtime/method.h
               runtime/program.h)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES src/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgec/${dir} COMPONENT runtime)
endforeach()
install(FILES include/edgec/edgec.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgec COMPONENT runtime)
install(EXPORT edgecRuntime NAMESPACE edgec:: DESTINATION ${EDGEC_CMAKE_DIR} FILE edgecRuntimeTargets.cmake
        COMPONENT runtime)

install(TARGETS ${EDGEC_COMPILER_TARGETS} EXPORT edgecCompiler COMPONENT compiler
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgec COMPONENT compiler
        FILES_MATCHING PATTERN "*.h")
install(FILES ${EDGEC_GENERATED_DIR}/serialize/program_generated.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgec/serialize COMPONENT compiler)
install(FILES ${EDGEC_GENERATED_DIR}/backends/backend_list.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgec/backends COMPONENT compiler)
install(EXPORT edgecCompiler NAMESPACE edgec:: DESTINATION ${EDGEC_CMAKE_DIR} FILE edgecCompilerTargets.cmake
        COMPONENT compiler)

install(TARGETS edgec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)

configure_package_config_file(cmake/edgecConfig.cmake.in ${PROJECT_BINARY_DIR}/edgecConfig.cmake
                              INSTALL_DESTINATION ${EDGEC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/edgecConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/edgecConfig.cmake ${PROJECT_BINARY_DIR}/edgecConfigVersion.cmake
        DESTINATION ${EDGEC_CMAKE_DIR} COMPONENT runtime)

# pkg-config: the libraries in link order, then what they link.
set(EDGEC_PC_BACKEND_LIBS "")
foreach(target IN LISTS EDGEC_BACKEND_RUNTIMES)
  string(APPEND EDGEC_PC_BACKEND_LIBS " -l${target}")
endforeach()
string(STRIP "${EDGEC_PC_BACKEND_LIBS}" EDGEC_PC_BACKEND_LIBS)
set(EDGEC_PC_SYSTEM_LIBS "${OpenMP_CXX_FLAGS}")
if(EDGEC_BACKEND_ONEDNN)
  string(PREPEND EDGEC_PC_SYSTEM_LIBS "-ldnnl ")
endif()
if(EDGEC_BACKEND_XNNPACK)
  string(PREPEND EDGEC_PC_SYSTEM_LIBS "-lXNNPACK -lpthreadpool ")
endif()
configure_file(cmake/edgec.pc.in ${PROJECT_BINARY_DIR}/edgec.pc @ONLY)
configure_file(cmake/edgec-c.pc.in ${PROJECT_BINARY_DIR}/edgec-c.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/edgec.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)
install(FILES ${PROJECT_BINARY_DIR}/edgec-c.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT c)

# The xnnpack backend (Debian's libxnnpack-dev, a 2022-02 snapshot, on
# libpthreadpool): its runtime side creates XNNPACK operators (operator
# API, NHWC inside the delegate) from the delegate program; its compiler
# side partitions and writes the payload. Debian ships no CMake package
# for either library, so they are found by header and library name.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h REQUIRED)
find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
set(dir ${CMAKE_CURRENT_LIST_DIR})
file(GLOB xnnpack_runtime_sources CONFIGURE_DEPENDS ${dir}/runtime*.cpp ${dir}/op_table.cpp)
# The first delegate on aarch64 (docs/architecture.md, "Targets"); on
# x86-64 only where oneDNN is not built, which is faster there.
set(xnnpack_default_for aarch64)
if(NOT EDGEC_BACKEND_ONEDNN)
  list(APPEND xnnpack_default_for x86-64)
endif()
edgec_add_backend(xnnpack DEFAULT_FOR ${xnnpack_default_for}
  RUNTIME_SOURCES ${xnnpack_runtime_sources}
  COMPILER_SOURCES ${dir}/partitioner.cpp ${dir}/preprocess.cpp
  RUNTIME_LIBS ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY})
target_include_directories(edgec_xnnpack_runtime PRIVATE ${XNNPACK_INCLUDE_DIR} ${PTHREADPOOL_INCLUDE_DIR})

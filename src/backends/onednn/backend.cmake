# The onednn backend (oneDNN 2.6 from Debian's libdnnl-dev): its runtime
# side builds oneDNN primitives (and a few loops of its own) from the
# delegate program; its compiler side partitions and writes the payload.
find_package(dnnl CONFIG REQUIRED)
set(dir ${CMAKE_CURRENT_LIST_DIR})
file(GLOB onednn_runtime_sources CONFIGURE_DEPENDS ${dir}/runtime*.cpp ${dir}/op_table.cpp ${dir}/winograd.cpp
     ${dir}/conv1d_gemm.cpp ${dir}/gemm_prepacked.cpp)
edgec_add_backend(onednn DEFAULT_FOR x86-64
  RUNTIME_SOURCES ${onednn_runtime_sources}
  COMPILER_SOURCES ${dir}/partitioner.cpp ${dir}/preprocess.cpp
  RUNTIME_LIBS DNNL::dnnl OpenMP::OpenMP_CXX)
# The delegate's own kernels are hot loops, built like the portable ones:
# their dispatchers at the kernels' baseline, the kernels once per
# instruction set (isa/, edgec_isa_sources).
set_source_files_properties(${dir}/winograd.cpp ${dir}/conv1d_gemm.cpp ${dir}/gemm_prepacked.cpp
  PROPERTIES COMPILE_OPTIONS "${EDGEC_KERNEL_FLAGS}")
edgec_isa_sources(edgec_onednn_runtime ${dir}/isa/gemm_prepacked.cpp ${dir}/isa/conv1d_gemm.cpp
  ${dir}/isa/winograd.cpp)

# The reference backend: takes the calls its options name and runs the
# delegate program on the portable kernels. It exists to test the lowering
# rules (partitions, shared constants, named data) and is never a default.
set(dir ${CMAKE_CURRENT_LIST_DIR})
edgec_add_backend(reference
  RUNTIME_SOURCES ${dir}/runtime.cpp
  COMPILER_SOURCES ${dir}/partitioner.cpp ${dir}/preprocess.cpp)

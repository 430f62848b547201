# Toolchain file of the aarch64 cross build (`make aarch64`;
# docs/architecture.md, "Targets"): Debian's g++-aarch64-linux-gnu, with
# libc, libstdc++ and libgomp from its own tree (/usr/aarch64-linux-gnu)
# and every other library from the sysroot tools/aarch64/sysroot.sh
# unpacks (EDGEC_AARCH64_SYSROOT, default build-aarch64/sysroot). Programs
# (flatc, protoc, python3) are the build machine's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT EDGEC_AARCH64_SYSROOT)
  get_filename_component(EDGEC_AARCH64_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../build-aarch64/sysroot" ABSOLUTE)
endif()
set(EDGEC_AARCH64_SYSROOT "${EDGEC_AARCH64_SYSROOT}" CACHE PATH "The aarch64 libraries (tools/aarch64/sysroot.sh)")
# try_compile projects see this file again: pass the sysroot on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EDGEC_AARCH64_SYSROOT)

set(CMAKE_FIND_ROOT_PATH "${EDGEC_AARCH64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The sysroot's headers (arch-specific ones under usr/include/aarch64-linux-gnu)
# after the toolchain's own; its libraries' dependencies found at link time.
set(edgec_sysroot_libs "${EDGEC_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu:${EDGEC_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")
string(APPEND CMAKE_C_FLAGS_INIT " -idirafter ${EDGEC_AARCH64_SYSROOT}/usr/include/aarch64-linux-gnu -idirafter ${EDGEC_AARCH64_SYSROOT}/usr/include")
string(APPEND CMAKE_CXX_FLAGS_INIT " -idirafter ${EDGEC_AARCH64_SYSROOT}/usr/include/aarch64-linux-gnu -idirafter ${EDGEC_AARCH64_SYSROOT}/usr/include")
foreach(kind EXE SHARED MODULE)
  string(APPEND CMAKE_${kind}_LINKER_FLAGS_INIT " -Wl,-rpath-link,${edgec_sysroot_libs}")
endforeach()

# pkg-config (libzip) reads the sysroot's .pc files and prefixes their paths.
set(ENV{PKG_CONFIG_LIBDIR} "${EDGEC_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${EDGEC_AARCH64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${EDGEC_AARCH64_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")

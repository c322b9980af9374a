# CMake toolchain for 64-bit Arm (aarch64) from an x86-64 Debian machine: Debian's cross compiler, the Arm builds of
# the engine's libraries unpacked into IE_ARM64_SYSROOT (tools/cross/arm64_build.sh makes it), header-only
# libraries (Eigen, nlohmann_json, CLI11, doctest) from the host. NEON needs no flag: it is part of AArch64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
if(NOT IE_ARM64_SYSROOT)
  set(IE_ARM64_SYSROOT "$ENV{IE_ARM64_SYSROOT}")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES IE_ARM64_SYSROOT)
set(CMAKE_FIND_ROOT_PATH "${IE_ARM64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # protoc and the like run on the host
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)    # never an x86-64 library
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)    # the header-only libraries live on the host
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# The Arm libraries' own dependencies resolve inside the sysroot at link time.
set(ie_arm64_libs "${IE_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${ie_arm64_libs}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${ie_arm64_libs}")

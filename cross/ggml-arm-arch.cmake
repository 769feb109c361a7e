# Included before every project() of llama.cpp's CMake build (CMAKE_PROJECT_INCLUDE_BEFORE,
# set by cross/build). llama-cpp-sys-2's build script pins every non-native aarch64 Linux build
# to -DGGML_CPU_ARM_ARCH=armv8-a (no dotprod/i8mm), after forwarding our GGML_* variables, so
# the command line cannot override it; this file replaces the cached value with the
# architecture in the environment variable GGML_CPU_ARM_ARCH (cross/build sets it from
# GLOVEBOX_ARM_ARCH, default armv8.2-a+dotprod). ggml-cpu then compiles with
# -march=${GGML_CPU_ARM_ARCH}.
if(DEFINED ENV{GGML_CPU_ARM_ARCH} AND NOT "$ENV{GGML_CPU_ARM_ARCH}" STREQUAL "")
  set(GGML_CPU_ARM_ARCH "$ENV{GGML_CPU_ARM_ARCH}" CACHE STRING "ggml: CPU architecture for ARM" FORCE)
endif()

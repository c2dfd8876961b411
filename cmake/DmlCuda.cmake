# DmlCuda.cmake — finds the CUDA toolkit for the CUDA plugin.
#
# Sets DML_CUDA_FOUND (ON when nvcc works and the toolkit's libraries were
# found) and, when found, enables the CUDA language with:
#   DML_CUDA_ARCHITECTURES  (cache) what kernels.cu is built for; default SASS
#                           for sm_80, sm_90, sm_100 and PTX for compute_100
#                           (so later GPUs JIT from PTX). CMAKE_CUDA_ARCHITECTURES
#                           given on the command line wins over it.
# Without nvcc everything else builds, the emulated backend (libdml_cudaemu.so)
# included; only libdml_cuda.so and its GPU tests are skipped.

include(CheckLanguage)
check_language(CUDA)

set(DML_CUDA_FOUND OFF)
if(CMAKE_CUDA_COMPILER)
  set(DML_CUDA_ARCHITECTURES "80-real;90-real;100" CACHE STRING
    "CUDA architectures of the CUDA plugin's kernels (CMAKE_CUDA_ARCHITECTURES syntax)")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "${DML_CUDA_ARCHITECTURES}")
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit)
  if(CUDAToolkit_FOUND AND TARGET CUDA::cudart_static)
    set(DML_CUDA_FOUND ON)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    message(STATUS "CUDA plugin: nvcc ${CMAKE_CUDA_COMPILER_VERSION} at ${CMAKE_CUDA_COMPILER}, "
      "architectures ${CMAKE_CUDA_ARCHITECTURES}")
  else()
    message(STATUS "CUDA plugin skipped: nvcc found but not the CUDA runtime library (cudart_static)")
  endif()
else()
  message(STATUS "CUDA plugin skipped: no CUDA compiler (nvcc) found; "
    "set CUDACXX or CMAKE_CUDA_COMPILER to build libdml_cuda.so")
endif()

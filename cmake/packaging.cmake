# Debian packages with CPack (docs/building.md, "Debian packages"):
#
#   cmake --build build --target package      # or: cd build && cpack -G DEB
#
# gives three packages in build/packages/, one per install component:
#
#   libdml1     runtime   libdml.so.1 (+ libdml.so.1.x.y) and the plugins in
#                         lib/dml/ (libdml_cpu.so; libdml_cuda.so when built)
#   libdml-dev  dev       headers, libdml.so, dml.pc, the CMake package, docs
#   dml-tools   tools     dmlinfo, dmlrun, dmlbench, dmlcoalesce
#
# The runtime package is named after the soname (Debian policy 8.1). The
# packages install under /usr whatever CMAKE_INSTALL_PREFIX the tree was
# configured with; the library directory is the tree's CMAKE_INSTALL_LIBDIR
# (lib, or lib/<multiarch> when configured with -DCMAKE_INSTALL_PREFIX=/usr).
# Install rules of other components (none of these three) stay out of them.

get_target_property(DML_SOVERSION dml SOVERSION)
set(DML_DEB_RUNTIME_PACKAGE libdml${DML_SOVERSION})
set(DML_DEB_DEV_PACKAGE libdml-dev)
set(DML_DEB_TOOLS_PACKAGE dml-tools)
set(DML_DEB_REVISION 1)
set(DML_DEB_VERSION ${PROJECT_VERSION}-${DML_DEB_REVISION})
set(DML_DEB_MAINTAINER "dml maintainers <maintainers@users.noreply.a-seed-1102fa39.example>"
  CACHE STRING "Maintainer field of the Debian packages")
set(DML_DEB_DIR ${PROJECT_BINARY_DIR}/cmake/deb)

# ---- Files only the packages carry --------------------------------------------
# Each package has /usr/share/doc/<package>/{copyright,changelog.Debian.gz}
# (policy 12.5 and 12.7). EXCLUDE_FROM_ALL: a plain `cmake --install` leaves
# them out; CPack installs component by component, which includes them.
# Both honour SOURCE_DATE_EPOCH.
string(TIMESTAMP DML_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
string(TIMESTAMP DML_DEB_YEAR "%Y" UTC)
set(DML_DEB_CUDA_COPYRIGHT "")
if(DML_CUDA_FOUND)
  # libdml_cuda.so links the CUDA runtime statically (plugin/cuda/CMakeLists.txt).
  set(DML_DEB_CUDA_COPYRIGHT "
Files: usr/${CMAKE_INSTALL_LIBDIR}/dml/libdml_cuda.so
Copyright: NVIDIA Corporation
License: NVIDIA-CUDA-Toolkit-EULA
 libdml_cuda.so contains the CUDA runtime library (libcudart_static.a of the
 CUDA Toolkit ${CUDAToolkit_VERSION}), linked statically. The CUDA Toolkit End User
 License Agreement lists it among the components an application may
 redistribute (Attachment A).
")
endif()
find_program(DML_GZIP gzip)
foreach(component runtime dev tools)
  string(TOUPPER ${component} upper)
  set(package ${DML_DEB_${upper}_PACKAGE})
  set(dir ${DML_DEB_DIR}/${package})
  set(DML_DEB_PACKAGE ${package})
  configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/copyright.in ${dir}/copyright @ONLY)
  set(files ${dir}/copyright)
  if(DML_GZIP)   # gzip is Essential on Debian; elsewhere the packages go without a changelog
    configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/changelog.in ${dir}/changelog.Debian @ONLY)
    # -9n: maximum compression, no name or time stamp in the header (reproducible).
    execute_process(COMMAND ${DML_GZIP} -9nf ${dir}/changelog.Debian RESULT_VARIABLE failed)
    if(NOT failed)
      list(APPEND files ${dir}/changelog.Debian.gz)
    endif()
  endif()
  install(FILES ${files} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
    COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()
# The runtime's control files: the shlibs entry hosts' packages depend through
# (any 1.x release at least as new as this one provides every symbol a host
# linked against this one uses), and the ldconfig trigger.
file(WRITE ${DML_DEB_DIR}/control/shlibs
  "libdml ${DML_SOVERSION} ${DML_DEB_RUNTIME_PACKAGE} (>= ${PROJECT_VERSION})\n")
file(WRITE ${DML_DEB_DIR}/control/triggers "activate-noawait ldconfig\n")

# ---- CPack ----------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dml)
set(CPACK_PACKAGE_VENDOR "dml")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${DML_DEB_MAINTAINER}")
# Each package's description below starts with its own synopsis; CPack would
# put any summary other than its default in front of all three.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)   # RelWithDebInfo objects carry debug info; packages do not
set(CPACK_COMPONENTS_ALL runtime dev tools)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb/pre-build.cmake)
# dml.pc without the rpath flag (configured beside the installed one, in
# src/dispatcher): in /usr the rpath is redundant, and hosts' packages would
# inherit it. pre-build.cmake puts it in place of the staged one.
set(CPACK_DML_PACKAGE_PC ${DML_DEB_DIR}/dml.pc)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)           # <name>_<version>-<revision>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${DML_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DML_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)            # seconds, not minutes, for the CUDA plugin
if(CMAKE_PROJECT_HOMEPAGE_URL)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${CMAKE_PROJECT_HOMEPAGE_URL})
endif()
# Library dependencies from the ELF files (libc6, ...), when dpkg-shlibdeps
# (and file, which CPack sorts the files with) is here; the explicit Depends
# below hold either way. The tools need libdml.so.1, which no installed
# package provides yet: found in the build tree (-l).
find_program(DML_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(DML_FILE_COMMAND file)
set(DML_DEB_TOOLS_LIBRARIES "")
if(DML_DPKG_SHLIBDEPS AND DML_FILE_COMMAND)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
else()
  # What dpkg-shlibdeps finds, unversioned: the CUDA runtime inside
  # libdml_cuda.so is C++.
  set(DML_DEB_RUNTIME_LIBRARIES "libc6")
  if(DML_CUDA_FOUND)
    string(APPEND DML_DEB_RUNTIME_LIBRARIES ", libstdc++6, libgcc-s1")
  endif()
  set(DML_DEB_TOOLS_LIBRARIES ", libc6")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${DML_DEB_RUNTIME_LIBRARIES}")
endif()

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${DML_DEB_RUNTIME_PACKAGE})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
  ${DML_DEB_DIR}/control/shlibs ${DML_DEB_DIR}/control/triggers)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "${PROJECT_DESCRIPTION} (library and backends)
libdml.so.1 runs DirectML's operators through DirectML's C object model
(device, operator, compiled operator, binding table, command recorder).
It finds its backend plugins in
/usr/${CMAKE_INSTALL_LIBDIR}/dml/
and forwards every call to the best one: libdml_cpu.so everywhere,
libdml_cuda.so on NVIDIA GPUs.")
if(DML_CUDA_FOUND)
  # libdml_cuda.so links the CUDA runtime statically and opens the driver
  # (libcuda.so.1) only when a host asks for the cuda backend: it needs no
  # CUDA package to install or load, and probes as unavailable without a
  # driver. The driver is a suggestion, by the name Debian's non-free
  # archive and NVIDIA's Debian repository give it.
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS libcuda1)
  string(APPEND CPACK_COMPONENT_RUNTIME_DESCRIPTION "
The CUDA backend holds the CUDA runtime (linked statically); it needs an
NVIDIA driver (libcuda.so.1) only at run time, and reports itself
unavailable without one.")
endif()

set(CPACK_DEBIAN_DEV_PACKAGE_NAME ${DML_DEB_DEV_PACKAGE})
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${DML_DEB_RUNTIME_PACKAGE} (= ${DML_DEB_VERSION})")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)       # no ELF file of its own
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS pkgconf)
set(CPACK_COMPONENT_DEV_DESCRIPTION "${PROJECT_DESCRIPTION} (development files)
Headers (dml/dml.h, dml/dml_plugin.h), the libdml.so link, pkg-config's
dml.pc and CMake's find_package(dml) package (target dml::dml), and the
documentation for host authors in /usr/share/doc/dml/.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME ${DML_DEB_TOOLS_PACKAGE})
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
# The tools are built and tested with the library they ship with: the same
# version, not just a compatible one.
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${DML_DEB_RUNTIME_PACKAGE} (= ${DML_DEB_VERSION})${DML_DEB_TOOLS_LIBRARIES}")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "${PROJECT_DESCRIPTION} (tools)
dmlinfo shows the backends the runtime finds and why; dmlrun runs one
operator or a graph from the command line; dmlbench measures the runtime
against copy baselines; dmlcoalesce reports the CUDA kernels' memory
coalescing (emulated, no GPU needed).")

include(CPack)

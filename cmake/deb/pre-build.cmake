# CPACK_PRE_BUILD_SCRIPTS: runs after CPack has staged every component under
# CPACK_TEMPORARY_DIRECTORY and before it builds the packages. The staged
# dml.pc is the build tree's, whose Libs carry an rpath to its libdir; the
# package's is the same template configured without it (packaging.cmake).
file(GLOB_RECURSE staged LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/dml.pc")
list(FILTER staged INCLUDE REGEX "/pkgconfig/dml\\.pc$")
if(NOT staged)
  message(FATAL_ERROR "packaging: no staged dml.pc under ${CPACK_TEMPORARY_DIRECTORY}")
endif()
foreach(pc IN LISTS staged)
  file(COPY_FILE "${CPACK_DML_PACKAGE_PC}" "${pc}")
endforeach()

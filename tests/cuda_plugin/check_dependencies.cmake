# check_dependencies.cmake — libdml_cuda.so needs neither libcudart.so nor
# libcuda.so: cudart is linked statically and loads the driver lazily, so the
# plugin loads on machines without the toolkit or a driver.
#   cmake -DREADELF=readelf -DPLUGIN=.../libdml_cuda.so -P check_dependencies.cmake
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND ${READELF} -d ${PLUGIN} OUTPUT_VARIABLE dynamic RESULT_VARIABLE status ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${PLUGIN} failed: ${error}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]]+\\]" needed "${dynamic}")
set(names "")
foreach(entry IN LISTS needed)
  string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" name "${entry}")
  list(APPEND names ${name})
endforeach()
message(STATUS "${PLUGIN} needs: ${names}")
foreach(name IN LISTS names)
  if(name MATCHES "^libcuda(rt)?\\.so|^libnv")
    message(FATAL_ERROR "${PLUGIN} depends on ${name}; cudart must be static and the driver loaded lazily")
  endif()
endforeach()

# check_exports.cmake — the dynamic symbol tables hold only the ABI:
# libdml.so exports exactly the functions dml.h declares (dml* and
# DMLCalcBufferTensorSize), each plugin in PLUGIN_DIR only dmlPluginGetTable.
#   cmake -DNM=nm -DHEADER=include/dml/dml.h -DLIBRARY=.../libdml.so
#         -DPLUGIN_DIR=.../lib/dml -P check_exports.cmake

cmake_minimum_required(VERSION 3.20)

# Symbols some linkers define in every shared object; not ours to hide.
set(LINKER_SYMBOLS _init _fini __bss_start _edata _end)

function(defined_symbols file out)
  execute_process(COMMAND ${NM} -D --defined-only ${file}
    OUTPUT_VARIABLE text RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${file}: ${error}")
  endif()
  string(REGEX MATCHALL "[^\n]+" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    # "address type name[@version]"
    string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] +" "" name "${line}")
    string(REGEX REPLACE "@.*$" "" name "${name}")
    if(NOT name IN_LIST LINKER_SYMBOLS)
      list(APPEND names ${name})
    endif()
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

set(failures 0)

# The API: every function declared DML_API in dml.h.
file(READ ${HEADER} header)
string(REGEX MATCHALL "\nDML_API [^(;]*[ *]([A-Za-z0-9_]+)\\(" declarations "${header}")
set(api "")
foreach(declaration IN LISTS declarations)
  string(REGEX REPLACE "^.*[ *]([A-Za-z0-9_]+)\\($" "\\1" name "${declaration}")
  list(APPEND api ${name})
endforeach()
list(SORT api)

defined_symbols(${LIBRARY} names)
list(SORT names)
if(NOT names STREQUAL api)
  set(extra ${names})
  list(REMOVE_ITEM extra ${api})
  set(missing ${api})
  list(REMOVE_ITEM missing ${names})
  message(SEND_ERROR "${LIBRARY}: exports differ from dml.h; extra [${extra}], missing [${missing}]")
  math(EXPR failures "${failures} + 1")
else()
  list(LENGTH api count)
  message(STATUS "${LIBRARY}: exports exactly the ${count} functions of dml.h")
endif()

file(GLOB plugins ${PLUGIN_DIR}/libdml_*.so)
if(NOT plugins)
  message(SEND_ERROR "no plugin in ${PLUGIN_DIR}")
  math(EXPR failures "${failures} + 1")
endif()
foreach(plugin IN LISTS plugins)
  defined_symbols(${plugin} names)
  if(NOT names STREQUAL "dmlPluginGetTable")
    message(SEND_ERROR "${plugin} exports [${names}]; only dmlPluginGetTable expected")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "${plugin}: exports only dmlPluginGetTable")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} export problem(s)")
endif()

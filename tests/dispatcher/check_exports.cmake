# check_exports.cmake — the dynamic symbol tables hold only the ABI, each
# symbol in its version node:
#  - libdml.so exports exactly the functions dml.h declares (dml* and
#    DMLCalcBufferTensorSize), each as the default version (name@@node) of the
#    node MAP lists it in; MAP's nodes are DML_<major>.<minor>, each inheriting
#    the one before, the newest being dml.h's DML_ABI_VERSION_MAJOR.MINOR (so a
#    function appended without a new node, or a node without the minor bump,
#    fails here); the library defines exactly MAP's nodes.
#  - each plugin in PLUGIN_DIR exports only dmlPluginGetTable, as the default
#    version of PLUGIN_MAP's one node.
#  - HOST, a program linked against libdml.so, records the node of every
#    function it uses (dmlGetVersion@DML_1.1), so the loader refuses a
#    runtime without it.
#   cmake -DNM=nm -DHEADER=include/dml/dml.h -DLIBRARY=.../libdml.so
#         -DMAP=src/dispatcher/libdml.map -DPLUGIN_MAP=plugin/plugin.map
#         -DPLUGIN_DIR=.../lib/dml -DHOST=.../test_dispatcher -P check_exports.cmake

cmake_minimum_required(VERSION 3.20)

# Symbols some linkers define in every shared object; not ours to hide.
set(LINKER_SYMBOLS _init _fini __bss_start _edata _end)

set(failures 0)
macro(fail text)
  message(SEND_ERROR "${text}")
  math(EXPR failures "${failures} + 1")
endmacro()

# names: the defined symbols as name@@node (name@node for a non-default
# version, name@ for none); nodes: the version nodes the file defines.
function(defined_symbols file out_names out_nodes)
  execute_process(COMMAND ${NM} -D --defined-only ${file}
    OUTPUT_VARIABLE text RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${file}: ${error}")
  endif()
  string(REGEX MATCHALL "[^\n]+" lines "${text}")
  set(names "")
  set(nodes "")
  foreach(line IN LISTS lines)
    # "address type name[@[@]version]"
    if(NOT line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) +([^@]+)(@@?[^ ]*)?$")
      message(FATAL_ERROR "${file}: cannot read nm's line '${line}'")
    endif()
    set(type ${CMAKE_MATCH_1})
    set(name ${CMAKE_MATCH_2})
    set(version "${CMAKE_MATCH_3}")
    if(type STREQUAL "A" AND version STREQUAL "")
      list(APPEND nodes ${name}) # a version definition
    elseif(NOT name IN_LIST LINKER_SYMBOLS)
      if(version STREQUAL "")
        set(version "@")
      endif()
      list(APPEND names "${name}${version}")
    endif()
  endforeach()
  set(${out_names} ${names} PARENT_SCOPE)
  set(${out_nodes} ${nodes} PARENT_SCOPE)
endfunction()

# A version script's nodes in order (out_nodes), each symbol as name@@node
# (out_symbols), and each node's parent ("" for none) as node=parent (out_parents).
function(read_version_script file out_nodes out_symbols out_parents)
  file(READ ${file} text)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}") # comments
  string(REPLACE ";" "," text "${text}") # ';' separates CMake list items
  string(REGEX MATCHALL "[A-Za-z0-9_.]+[ \t\n]*{[^}]*}[ \t\n]*[A-Za-z0-9_.]*[ \t\n]*," blocks "${text}")
  set(nodes "")
  set(symbols "")
  set(parents "")
  foreach(block IN LISTS blocks)
    string(REGEX MATCH "^([A-Za-z0-9_.]+)[ \t\n]*{([^}]*)}[ \t\n]*([A-Za-z0-9_.]*)" _ "${block}")
    set(node ${CMAKE_MATCH_1})
    set(body "${CMAKE_MATCH_2}")
    list(APPEND nodes ${node})
    list(APPEND parents "${node}=${CMAKE_MATCH_3}")
    string(REGEX REPLACE "local:.*$" "" body "${body}")
    string(REGEX REPLACE "global:" "" body "${body}")
    string(REGEX MATCHALL "[A-Za-z0-9_]+" names "${body}")
    foreach(name IN LISTS names)
      list(APPEND symbols "${name}@@${node}")
    endforeach()
  endforeach()
  set(${out_nodes} ${nodes} PARENT_SCOPE)
  set(${out_symbols} ${symbols} PARENT_SCOPE)
  set(${out_parents} ${parents} PARENT_SCOPE)
endfunction()

function(compare what have want)
  if(NOT "${have}" STREQUAL "${want}")
    set(extra ${have})
    set(missing ${want})
    if(want)
      list(REMOVE_ITEM extra ${want})
    endif()
    if(have)
      list(REMOVE_ITEM missing ${have})
    endif()
    message(SEND_ERROR "${what}: extra [${extra}], missing [${missing}]")
    set(compare_failed 1 PARENT_SCOPE)
  endif()
endfunction()

# ---- libdml.so ----------------------------------------------------------------
# The API: every function declared DML_API in dml.h.
file(READ ${HEADER} header)
string(REGEX MATCHALL "\nDML_API [^(;]*[ *]([A-Za-z0-9_]+)\\(" declarations "${header}")
set(api "")
foreach(declaration IN LISTS declarations)
  string(REGEX REPLACE "^.*[ *]([A-Za-z0-9_]+)\\($" "\\1" name "${declaration}")
  list(APPEND api ${name})
endforeach()
list(SORT api)
string(REGEX MATCH "#define DML_ABI_VERSION_MAJOR ([0-9]+)" _ "${header}")
set(major ${CMAKE_MATCH_1})
string(REGEX MATCH "#define DML_ABI_VERSION_MINOR ([0-9]+)" _ "${header}")
set(minor ${CMAKE_MATCH_1})

read_version_script(${MAP} map_nodes map_symbols map_parents)
list(SORT map_symbols)

# The map lists exactly the API.
set(map_names "")
foreach(symbol IN LISTS map_symbols)
  string(REGEX REPLACE "@.*$" "" name "${symbol}")
  list(APPEND map_names ${name})
endforeach()
list(SORT map_names)
set(compare_failed 0)
compare("${MAP} lists other functions than dml.h declares" "${map_names}" "${api}")
if(compare_failed)
  math(EXPR failures "${failures} + 1")
endif()

# Nodes DML_<major>.<minor>, each inheriting the one before, the newest dml.h's.
set(previous "")
foreach(node IN LISTS map_nodes)
  if(NOT node MATCHES "^DML_${major}\\.[0-9]+$")
    fail("${MAP}: node ${node} is not DML_${major}.<minor> (DML_ABI_VERSION_MAJOR is ${major})")
  endif()
  if(NOT "${node}=${previous}" IN_LIST map_parents)
    fail("${MAP}: node ${node} must inherit '${previous}' (each node the one before it)")
  endif()
  set(previous ${node})
endforeach()
if(NOT previous STREQUAL "DML_${major}.${minor}")
  fail("${MAP}: the newest node is ${previous} but dml.h says DML_ABI_VERSION ${major}.${minor}: an append to the ABI takes a new node and a DML_ABI_VERSION_MINOR bump, together")
endif()

defined_symbols(${LIBRARY} names nodes)
list(SORT names)
set(compare_failed 0)
compare("${LIBRARY}: exports (name@@node) differ from ${MAP} and dml.h" "${names}" "${map_symbols}")
if(compare_failed)
  math(EXPR failures "${failures} + 1")
else()
  list(LENGTH api count)
  message(STATUS "${LIBRARY}: exports exactly the ${count} functions of dml.h, each in its node of ${MAP}")
endif()
set(sorted_map_nodes ${map_nodes})
list(SORT sorted_map_nodes)
list(SORT nodes)
set(compare_failed 0)
compare("${LIBRARY}: version nodes differ from ${MAP}'s" "${nodes}" "${sorted_map_nodes}")
if(compare_failed)
  math(EXPR failures "${failures} + 1")
endif()

# ---- A host ----------------------------------------------------------------------
execute_process(COMMAND ${NM} -D --undefined-only ${HOST}
  OUTPUT_VARIABLE text RESULT_VARIABLE status ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${HOST}: ${error}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${text}")
set(used 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES " U ((dml|DML)[A-Za-z0-9_]*)(@[^ ]*)?$")
    continue()
  endif()
  set(name ${CMAKE_MATCH_1})
  set(version "${CMAKE_MATCH_3}")
  if(NOT name IN_LIST api)
    continue()
  endif()
  math(EXPR used "${used} + 1")
  if(NOT "${name}@${version}" IN_LIST map_symbols)
    fail("${HOST} uses ${name}${version}; the map has it in [${map_symbols}]")
  endif()
endforeach()
if(NOT "${lines}" MATCHES "dmlGetVersion@DML_1\\.1")
  fail("${HOST} does not record dmlGetVersion@DML_1.1")
endif()
message(STATUS "${HOST}: its ${used} dml functions carry their nodes")

# ---- The plugins ----------------------------------------------------------------
read_version_script(${PLUGIN_MAP} plugin_nodes plugin_symbols plugin_parents)
if(NOT plugin_symbols STREQUAL "dmlPluginGetTable@@DML_PLUGIN_1.0")
  fail("${PLUGIN_MAP}: lists [${plugin_symbols}], expected dmlPluginGetTable in DML_PLUGIN_1.0")
endif()
file(GLOB plugins ${PLUGIN_DIR}/libdml_*.so)
if(NOT plugins)
  fail("no plugin in ${PLUGIN_DIR}")
endif()
foreach(plugin IN LISTS plugins)
  defined_symbols(${plugin} names nodes)
  if(NOT names STREQUAL "${plugin_symbols}" OR NOT nodes STREQUAL "${plugin_nodes}")
    fail("${plugin} exports [${names}] with nodes [${nodes}]; only ${plugin_symbols} expected")
  else()
    message(STATUS "${plugin}: exports only ${plugin_symbols}")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} export problem(s)")
endif()

# The include scan: every `#include "FOLDER/..."` (or <FOLDER/...>) in a folder of TREE names the
# folder itself or one it links, directly or through the folders it links, as the tree's layer
# table says (cmake/folder_layers.cmake). The build enforces the same through include paths; this
# scan checks a tree the build in hand does not compile (web/ in the native build) and states
# each crossing by file and line.
#
#   cmake -DTREE=dir -DTABLE_FILE=layers.cmake -DTABLE=VARIABLE -P include_scan.cmake
# Fails, naming each file and include that crosses the layers, a folder missing from the table,
# or a cycle in the table. Files at the top of TREE (the program's main.cpp) may include anything.
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/folder_layers.cmake)
include(${TABLE_FILE})

set(layers "")
foreach(entry IN LISTS ${TABLE})
  string(REGEX REPLACE ":.*" "" folder "${entry}")
  list(APPEND layers ${folder})
endforeach()

# What each folder sees: the folders it links, and all that they link.
set(problems "")
foreach(folder IN LISTS layers)
  vigil_layer_links(${TABLE} ${folder} pending)
  set(seen "")
  while(pending)
    list(POP_FRONT pending next)
    if(next IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${next})
    vigil_layer_links(${TABLE} ${next} more)
    list(APPEND pending ${more})
  endwhile()
  if(folder IN_LIST seen)
    list(APPEND problems "${folder} links itself through ${seen}: the table has a cycle")
  endif()
  set(sees_${folder} ${folder} ${seen})
endforeach()

file(GLOB_RECURSE sources RELATIVE "${TREE}" "${TREE}/*.cpp" "${TREE}/*.hpp" "${TREE}/*.h")
set(crossings 0)
foreach(source IN LISTS sources)
  if(NOT source MATCHES "^([a-z_]+)/")
    continue()
  endif()
  set(folder ${CMAKE_MATCH_1})
  if(NOT folder IN_LIST layers)
    list(APPEND problems "${source}: folder ${folder} is not in the layer table")
    continue()
  endif()
  file(STRINGS "${TREE}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "[\"<]([a-z_]+)/[^\">]*" header "${line}")
    set(target ${CMAKE_MATCH_1})
    string(SUBSTRING "${header}" 1 -1 header)
    if(NOT target IN_LIST layers OR target STREQUAL folder)
      continue()  # another library's header (<vigil/...>, <nlohmann/...>) or the folder's own
    endif()
    math(EXPR crossings "${crossings} + 1")
    if(NOT target IN_LIST sees_${folder})
      list(JOIN sees_${folder} " " visible)
      list(APPEND problems "${source} includes ${header}, but ${folder} sees only: ${visible}")
    endif()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " listed)
  message(FATAL_ERROR "${TREE} crosses its layers (${TABLE_FILE}):\n  ${listed}")
endif()
list(LENGTH sources files)
message(STATUS "${TREE}: ${files} files, ${crossings} includes between folders, all along the layers")

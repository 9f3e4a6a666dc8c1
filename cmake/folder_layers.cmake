# The layering of native/ and web/, as core/ does it: one static library per folder, each seeing
# only the headers of its own folder and of the folders it links. Which folder links which is one
# table per tree (native/layers.cmake, web/layers.cmake), a list of "FOLDER: LINKED LINKED ...",
# read both by the build (vigil_folder_library) and by the include scan of tests/layering.

# The folders FOLDER links directly, as the table TABLE (a list variable) gives them.
function(vigil_layer_links table folder out)
  foreach(entry IN LISTS ${table})
    if(entry MATCHES "^([a-z_]+):(.*)$" AND CMAKE_MATCH_1 STREQUAL folder)
      string(STRIP "${CMAKE_MATCH_2}" links)
      separate_arguments(links UNIX_COMMAND "${links}")
      set(${out} "${links}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "${folder} is not in the layer table ${table}")
endfunction()

# vigil_folder_library(TABLE PREFIX FOLDER [SOURCES file...] [LINK target...])
# Builds FOLDER as the static library PREFIX_FOLDER. Its include root holds only FOLDER (the
# build links include-FOLDER/FOLDER to the source folder), so "FOLDER/x.hpp" is found from the
# folder itself and from the libraries that link it (PUBLIC, hence transitively), and an include
# of a folder it does not link fails to compile. LINK names other targets it uses (core, ImGui...).
function(vigil_folder_library table prefix folder)
  cmake_parse_arguments(arg "" "" "SOURCES;LINK" ${ARGN})
  set(target ${prefix}_${folder})
  set(root "${CMAKE_CURRENT_BINARY_DIR}/include-${folder}")
  vigil_include_link("${CMAKE_CURRENT_SOURCE_DIR}/${folder}" "${root}/${folder}")
  add_library(${target} STATIC ${arg_SOURCES})
  target_include_directories(${target} PUBLIC "${root}")
  vigil_layer_links(${table} ${folder} links)
  foreach(link IN LISTS links)
    target_link_libraries(${target} PUBLIC ${prefix}_${link})
  endforeach()
  target_link_libraries(${target} PUBLIC ${arg_LINK})
  vigil_strict(${target})
endfunction()

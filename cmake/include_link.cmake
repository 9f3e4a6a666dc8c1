# vigil_include_link(SOURCE LINK): makes LINK, inside a build folder's include root, a symbolic
# link to SOURCE (once). Include roots made of such links let a library see exactly the folders it
# is given, while the compiler still reads, and reports errors in, the source files themselves.
function(vigil_include_link source link)
  get_filename_component(parent "${link}" DIRECTORY)
  file(MAKE_DIRECTORY "${parent}")
  if(NOT EXISTS "${link}")
    file(CREATE_LINK "${source}" "${link}" SYMBOLIC)
  endif()
endfunction()

# relax_add_plugin(<name> SOURCES <src>... [LINK_LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>]
#                  [NO_INSTALL])
#
# Builds the Relax plugin librelax-<name>.so (target relax-plugin-<name>) from its sources: a
# MODULE library with hidden visibility (only relax_plugin_info is exported), linked to the
# compiler library. It goes to OUTPUT_DIRECTORY, else the build's plugin directory
# (RELAX_PLUGIN_OUTPUT_DIR: lib/relax/plugins, where relax-driver finds it by short name), and
# installs to lib/relax/plugins unless NO_INSTALL.
#
# In the Relax tree the compiler is the target relax_compiler; out of tree,
# find_package(Relax) provides Relax::relax_compiler.
set(RELAX_SDK_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../include)

function(relax_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "relax_add_plugin(${name}): SOURCES is required")
  endif()
  set(target relax-plugin-${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  if(TARGET relax_compiler)
    set(_compiler relax_compiler)
  else()
    set(_compiler Relax::relax_compiler)
  endif()
  target_link_libraries(${target} PRIVATE ${_compiler} ${ARG_LINK_LIBRARIES})
  target_include_directories(${target} PRIVATE ${RELAX_SDK_INCLUDE_DIR})
  if(ARG_OUTPUT_DIRECTORY)
    set(_dir ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED RELAX_PLUGIN_OUTPUT_DIR)
    set(_dir ${RELAX_PLUGIN_OUTPUT_DIR})
  else()
    set(_dir ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME relax-${name}
    LIBRARY_OUTPUT_DIRECTORY ${_dir}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION lib/relax/plugins)
  endif()
endfunction()

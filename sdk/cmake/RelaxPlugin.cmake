# The CMake half of the Relax SDK (docs/sdk.md). In the Relax tree it is included by
# plugins/CMakeLists.txt; out of tree, find_package(Relax) includes it.
#
# relax_add_plugin(<name> SOURCES <src>... [LINK_LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>]
#                  [NO_INSTALL])
#   Builds the compiler plugin librelax-<name>.so (target relax-plugin-<name>): a MODULE library
#   with hidden visibility (only relax_plugin_info is exported), linked to the compiler library.
#   It goes to OUTPUT_DIRECTORY, else the build's plugin directory (RELAX_PLUGIN_OUTPUT_DIR:
#   lib/relax/plugins, where relax-driver finds it by short name), and installs to
#   lib/relax/plugins unless NO_INSTALL.
#
# relax_add_runtime_plugin(<name> SOURCES <src>... [LINK_LIBRARIES <lib>...]
#                          [OUTPUT_DIRECTORY <dir>] [NO_INSTALL])
#   Builds the runtime plugin librelax-<name>-runtime.so (target relax-runtime-plugin-<name>),
#   C or C++, linked to the runtime library only: it may include relax/runtime/c_abi.h (and
#   relax/transform/plugin_abi.h) and nothing else of Relax. Installed with the `runtime`
#   component, so a deploy-only install has it.
#
# Both check, when CMake configures, the quoted #includes of the sources: one reaching into
# Relax's private sources (core/src/...) or naming a relax/... header that is not public fails
# the configure, naming the file and the include.
#
# relax_check_plugin_includes(<target>)
#   The same include check for a plugin target built another way (add_library), over its
#   SOURCES.
#
# In the Relax tree the libraries are the targets relax_compiler / relax_runtime; out of tree,
# find_package(Relax) provides Relax::compiler (alias Relax::relax_compiler) and Relax::runtime.
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/../include/relax/sdk/plugin.h)
  set(RELAX_SDK_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../include)  # the source tree
else()
  set(RELAX_SDK_INCLUDE_DIR "")  # an install: the headers come with Relax::compiler
endif()
set(_RELAX_PLUGIN_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# Fails the configure when a quoted #include of `sources` reaches Relax's private sources
# (core/src) or names a relax/... header that is not public (not in `include_dirs`).
function(_relax_scan_plugin_includes name include_dirs)
  foreach(src ${ARGN})
    get_filename_component(_abs ${src} ABSOLUTE)
    if(NOT EXISTS ${_abs})
      continue()  # generated
    endif()
    get_filename_component(_dir ${_abs} DIRECTORY)
    file(STRINGS ${_abs} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(_line ${_lines})
      string(REGEX REPLACE ".*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" _inc "${_line}")
      set(_bad "")
      if(EXISTS ${_dir}/${_inc})
        get_filename_component(_resolved ${_dir}/${_inc} ABSOLUTE)
        if(_resolved MATCHES "/core/src/")
          set(_bad "a private source of Relax")
        endif()
      elseif(_inc MATCHES "core/src/")
        set(_bad "a private source of Relax")
      elseif(_inc MATCHES "^relax/")
        set(_bad "not a public Relax header")
        foreach(_d ${include_dirs})
          if(EXISTS ${_d}/${_inc})
            set(_bad "")
          endif()
        endforeach()
      endif()
      if(_bad)
        message(FATAL_ERROR "plugin ${name}: ${src} includes \"${_inc}\", ${_bad} (docs/sdk.md "
                "lists what a plugin may include)")
      endif()
    endforeach()
  endforeach()
endfunction()

# The public include directories of a Relax library target (build tree or install).
function(_relax_public_include_dirs out lib)
  set(_dirs ${RELAX_SDK_INCLUDE_DIR})
  if(TARGET ${lib})
    get_target_property(_inc ${lib} INTERFACE_INCLUDE_DIRECTORIES)
    foreach(_d ${_inc})
      string(REGEX REPLACE "^\\$<BUILD_INTERFACE:(.*)>$" "\\1" _d "${_d}")
      if(NOT _d MATCHES "^\\$<")
        list(APPEND _dirs ${_d})
      endif()
    endforeach()
  endif()
  if(TARGET relax_runtime)
    list(APPEND _dirs ${_RELAX_PLUGIN_CMAKE_DIR}/../../core/include)  # the source tree
  endif()
  if(Relax_INCLUDE_DIR)
    list(APPEND _dirs ${Relax_INCLUDE_DIR})  # an install (RelaxConfig.cmake)
  endif()
  set(${out} ${_dirs} PARENT_SCOPE)
endfunction()

function(_relax_add_module target output_name lib)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIRECTORY;COMPONENT" "SOURCES;LINK_LIBRARIES"
                        ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "${target}: SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${lib} ${ARG_LINK_LIBRARIES})
  if(RELAX_SDK_INCLUDE_DIR)
    target_include_directories(${target} PRIVATE ${RELAX_SDK_INCLUDE_DIR})
  endif()
  _relax_public_include_dirs(_dirs ${lib})
  _relax_scan_plugin_includes(${output_name} "${_dirs}" ${ARG_SOURCES})
  if(ARG_OUTPUT_DIRECTORY)
    set(_dir ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED RELAX_PLUGIN_OUTPUT_DIR)
    set(_dir ${RELAX_PLUGIN_OUTPUT_DIR})
  else()
    set(_dir ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME relax-${output_name}
    LIBRARY_OUTPUT_DIRECTORY ${_dir}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/../..")  # lib/relax/plugins -> lib
  if(NOT ARG_NO_INSTALL)
    if(ARG_COMPONENT)
      install(TARGETS ${target} LIBRARY DESTINATION lib/relax/plugins COMPONENT ${ARG_COMPONENT})
    else()
      install(TARGETS ${target} LIBRARY DESTINATION lib/relax/plugins)
    endif()
  endif()
endfunction()

function(relax_add_plugin name)
  if(TARGET relax_compiler)
    set(_lib relax_compiler)
  else()
    set(_lib Relax::relax_compiler)
  endif()
  _relax_add_module(relax-plugin-${name} ${name} ${_lib} ${ARGN})
endfunction()

function(relax_add_runtime_plugin name)
  if(TARGET relax_runtime)
    set(_lib relax_runtime)
  else()
    set(_lib Relax::runtime)
  endif()
  _relax_add_module(relax-runtime-plugin-${name} ${name}-runtime ${_lib} COMPONENT runtime ${ARGN})
endfunction()

function(relax_check_plugin_includes target)
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_src_dir ${target} SOURCE_DIR)
  set(_abs)
  foreach(_s ${_sources})
    if(IS_ABSOLUTE ${_s})
      list(APPEND _abs ${_s})
    else()
      list(APPEND _abs ${_src_dir}/${_s})
    endif()
  endforeach()
  if(TARGET relax_runtime)
    set(_lib relax_runtime)
  else()
    set(_lib Relax::runtime)
  endif()
  _relax_public_include_dirs(_dirs ${_lib})
  _relax_scan_plugin_includes(${target} "${_dirs}" ${_abs})
endfunction()

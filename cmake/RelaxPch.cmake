# Precompiled headers (RELAX_PCH, on by default): the headers nearly every source of a target
# parses, compiled once per target. A cold build takes about a third less CPU time under
# clang -O0/-O1 (the sanitizer builds) and a quarter less under gcc -O2.
#
# relax_precompile_headers(TARGET LEVEL [EXTRA...]): LEVEL picks the project headers, never
# above the target's own layer (docs/architecture.md), so a precompiled header cannot let a
# source use an area it may not include:
#   runtime  the standard library and relax/support/object.h (support, runtime)
#   tir      + relax/tir/expr.h (tir, arith)
#   ir       + the IR, the block builder and the analyzer (ir and every area above it, tests)
# EXTRA: more headers, e.g. <gtest/gtest.h>. Headers go in as written: <...> as an include.
option(RELAX_PCH "Precompile the headers the sources of a target share (faster cold builds)" ON)

if(RELAX_PCH AND CMAKE_CXX_COMPILER_LAUNCHER)
  # ccache caches sources that use a precompiled header only with this sloppiness (and, under
  # clang, without the header's timestamp in it: -fno-pch-timestamp below).
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()

function(relax_precompile_headers target level)
  if(NOT RELAX_PCH)
    return()
  endif()
  set(_pch <algorithm> <functional> <memory> <optional> <ostream> <sstream> <string>
           <unordered_map> <vector> <relax/support/object.h>)
  if(level STREQUAL "tir" OR level STREQUAL "ir")
    list(APPEND _pch <relax/tir/expr.h>)
  endif()
  if(level STREQUAL "ir")
    list(APPEND _pch <relax/ir/expr.h> <relax/ir/module.h> <relax/ir/block_builder.h>
         <relax/arith/analyzer.h>)
  elseif(NOT level STREQUAL "runtime" AND NOT level STREQUAL "tir")
    message(FATAL_ERROR "relax_precompile_headers(${target}): unknown level '${level}' "
                        "(runtime, tir or ir)")
  endif()
  target_precompile_headers(${target} PRIVATE ${_pch} ${ARGN})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Xclang -fno-pch-timestamp)
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports its known false positives inside libstdc++'s std::string (char_traits::copy
    # inlined into `s.substr(...) + "..."`: -Warray-bounds, then -Wstringop-overflow/-overread
    # on the same statement) when the standard headers come from a precompiled header: the
    # system-header suppression is lost there. ASan checks bounds for real in CI.
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow
                                             -Wno-stringop-overread)
  endif()
endfunction()

# Dependencies of core/src/transform, kept out of the public headers (STYLE.md habit 10):
# oneTBB for parallel passes, yaml-cpp for pipeline files, Boost.DLL (header-only, on
# std::filesystem) for plugins. Included once, after relax_compiler exists (from
# core/CMakeLists.txt).
get_property(_rx_transform_deps GLOBAL PROPERTY RELAX_TRANSFORM_DEPS_ADDED)
if(_rx_transform_deps)
  return()
endif()
set_property(GLOBAL PROPERTY RELAX_TRANSFORM_DEPS_ADDED TRUE)
find_package(TBB REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Boost 1.74 REQUIRED)
target_link_libraries(relax_compiler PRIVATE TBB::tbb yaml-cpp Boost::headers ${CMAKE_DL_LIBS})

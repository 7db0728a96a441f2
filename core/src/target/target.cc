// Target helpers of the target area (relax/target/target.h); Target itself is parsed in
// core/src/transform/target_kind.cc.
#include "relax/target/target.h"

namespace relax {

std::string backend_build_function(std::string_view kind) {
  return "relax.backend." + std::string(kind) + ".build";
}

}  // namespace relax

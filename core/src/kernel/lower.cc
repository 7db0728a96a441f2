// lower: the lowering steps in order, then the verifier (tir/lower.h).
#include "relax/kernel/lower.h"

#include "relax/support/diagnostic.h"

namespace relax::tir {

Ref<PrimFunc> lower(const Ref<PrimFunc>& func) {
  Ref<PrimFunc> f = simplify_indices(flatten_buffers(lower_blocks(func)));
  std::vector<std::string> problems = verify_lowered(f);
  if (!problems.empty()) {
    std::string msg;
    for (const auto& p : problems) msg += "\n  " + p;
    RX_IFAIL() << "lowering produced an invalid PrimFunc:" << msg << "\n" << to_string(f);
  }
  return f;
}

}  // namespace relax::tir

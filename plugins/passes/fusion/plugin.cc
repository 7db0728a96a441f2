// The entry point of librelax-fusion.so: registers annotate-op-pattern, fuse-ops, fuse-tir and
// fuse-ops-by-pattern (fusion.h describes them).
#include "fusion.h"
#include "relax/sdk/plugin.h"

namespace {

void register_fusion(relax::transform::PluginRegistrar& r) {
  relax::fusion::register_annotate_op_pattern(r);
  relax::fusion::register_fuse_ops(r);
  relax::fusion::register_fuse_tir(r);
  relax::fusion::register_fuse_ops_by_pattern(r);
}

}  // namespace

RELAX_PLUGIN("fusion", "0.1.0", register_fusion)

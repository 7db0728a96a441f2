// librelax-layout.so: the layout passes (DESIGN.md §5), one per file:
//   convert-layout  convert_layout.cc
//   fold-layout     fold_layout.cc
//   pack-weights    pack_weights.cc
//   flow-layout     flow_layout.cc (with tir_relayout.cc, flow_callbacks.cc)
//   freeze-layout   freeze_layout.cc
//   hoist-layout-rewrite  hoist_layout_rewrite.cc
//   compact-layout-rewrite  compact_layout_rewrite.cc
#include "relax/sdk/plugin.h"

namespace relax::layout {
void register_convert_layout(transform::PluginRegistrar& r);
void register_fold_layout(transform::PluginRegistrar& r);
void register_pack_weights(transform::PluginRegistrar& r);
void register_flow_layout(transform::PluginRegistrar& r);
void register_freeze_layout(transform::PluginRegistrar& r);
void register_hoist_layout_rewrite(transform::PluginRegistrar& r);
void register_compact_layout_rewrite(transform::PluginRegistrar& r);
}  // namespace relax::layout

namespace {

void register_layout(relax::transform::PluginRegistrar& r) {
  relax::layout::register_convert_layout(r);
  relax::layout::register_fold_layout(r);
  relax::layout::register_pack_weights(r);
  relax::layout::register_flow_layout(r);
  relax::layout::register_freeze_layout(r);
  relax::layout::register_hoist_layout_rewrite(r);
  relax::layout::register_compact_layout_rewrite(r);
}

}  // namespace

RELAX_PLUGIN("layout", "0.1.0", register_layout)

// The core's target kind, target resolution in a session and GPU limits
// (relax/target/targets.h).
#include "relax/target/targets.h"

#include <algorithm>
#include <mutex>

#include "relax/support/diagnostic.h"
#include "relax/transform/plugin.h"

namespace relax {

using transform::TargetAttrType;
using transform::TargetKind;

namespace {
tir::GpuLimits read_gpu_limits(const Target& validated, std::string_view written);
}  // namespace

void register_core_target_kinds(transform::TargetKindRegistry& kinds) {
  TargetKind k;
  k.name = kTirInterpTarget;
  k.device_type = transform::kDeviceCPU;
  k.device_name = "cpu";
  k.gpu = false;
  k.help = "kernels run by the reference TIR interpreter (slow; for tests and references)";
  k.schedule_rules = "none";
  k.attrs = {
      {"gpu", TargetAttrType::kBool, "0",
       "1: run the whole GPU path (placement, GPU schedule rules, lowering, launch "
       "descriptions) in the interpreter, with the limits below"},
      {"max-threads-per-block", TargetAttrType::kInt, "1024",
       "threads in one block, all dimensions together"},
      {"max-shared-memory-bytes", TargetAttrType::kInt, "49152",
       "shared memory of one block, in bytes"},
      {"max-grid", TargetAttrType::kIntList, "2147483647x65535x65535",
       "blocks per grid dimension, x, y and z"},
      {"max-block", TargetAttrType::kIntList, "1024x1024x64",
       "threads per block dimension, x, y and z"},
      {"subgroup-size", TargetAttrType::kInt, "32", "threads that run in lockstep (warp)"},
      {"buffer-alignment", TargetAttrType::kInt, "64",
       "alignment of the buffers the runtime allocates, in bytes"},
  };
  kinds.add(std::move(k));
}

std::vector<TargetKind> available_target_kinds(transform::PluginManager& plugins) {
  std::vector<TargetKind> out;
  for (const TargetKind* k : plugins.registry().target_kinds().kinds()) out.push_back(*k);
  for (const transform::AvailablePlugin& a : plugins.scan()) {
    if (!a.refused.empty()) continue;
    for (const TargetKind& k : a.target_kinds) {
      bool known = std::any_of(out.begin(), out.end(),
                               [&](const TargetKind& o) { return o.name == k.name; });
      if (!known) out.push_back(k);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const TargetKind& a, const TargetKind& b) { return a.name < b.name; });
  return out;
}

const TargetKind& find_target_kind(const std::string& name, transform::PluginManager& plugins) {
  transform::TargetKindRegistry& kinds = plugins.registry().target_kinds();
  if (const TargetKind* k = kinds.find(name)) return *k;
  static std::mutex load_mutex;
  std::lock_guard lock(load_mutex);
  if (const TargetKind* k = kinds.find(name)) return *k;
  // The plugin named like the kind first (no scan of the whole search path), then whichever
  // plugin on the search path declares the kind.
  std::string why;
  try {
    const transform::LoadedPlugin& p = plugins.load_by_name(name);
    if (const TargetKind* k = kinds.find(name)) return *k;
    why = "plugin '" + p.name + "' (" + p.path + ") is loaded but registers no target kind '" +
          name + "'";
  } catch (const Error& e) {
    why = e.message();
  }
  if (const transform::AvailablePlugin* a = plugins.provider_of_target_kind(name)) {
    if (!a->loaded) plugins.load_path(std::string(a->path));
    if (const TargetKind* k = kinds.find(name)) return *k;
  }
  std::vector<std::string> known;
  for (const TargetKind& k : available_target_kinds(plugins)) known.push_back(k.name);
  RX_THROW() << "unknown target kind \"" << name
             << "\"; known kinds: " << transform::join_names(known) << " (" << why << ")";
}

Target resolve_target(std::string_view text, transform::PluginManager& plugins) {
  Target t = Target::parse(text);
  const TargetKind* kind = nullptr;
  try {
    kind = &find_target_kind(t.kind, plugins);
  } catch (const Error& e) {
    RX_THROW() << "target \"" << text << "\": " << e.message();
  }
  Target valid = transform::validate_target(t, *kind);
  read_gpu_limits(valid,
                  text);  // a malformed limit fails here, whether or not the target is a GPU now
  return valid;
}

namespace {

/// gpu_limits(), naming the target as `written` in messages.
tir::GpuLimits read_gpu_limits(const Target& validated, std::string_view written) {
  tir::GpuLimits limits;
  limits.target = validated.str();
  auto positive = [&](const char* name, int64_t v) {
    RX_CHECK(v > 0) << "target \"" << written << "\": attribute " << name << "=" << v
                    << ": expected a positive limit";
    return v;
  };
  auto scalar = [&](const char* name, int64_t& field) {
    std::optional<std::string> text = validated.attr(name);
    if (!text) return;
    std::optional<int64_t> v = transform::parse_target_int(*text);
    RX_CHECK(v) << "target \"" << written << "\": attribute " << name << "=" << *text
                << ": expected an int";
    field = positive(name, *v);
  };
  auto xyz =
      [&](const char* name, std::array<int64_t, 3>& field) {
        std::optional<std::string> text = validated.attr(name);
        if (!text) return;
        std::optional<std::vector<int64_t>> v = transform::parse_target_int_list(*text);
        RX_CHECK(v && v->size() == 3)
            << "target \"" << written << "\": attribute " << name << "=" << *text
            << ": expected three ints x, y and z separated by 'x' (e.g. 1024x1024x64)";
        for (size_t i = 0; i < 3; ++i) field[i] = positive(name, (*v)[i]);
      };
  scalar("max-threads-per-block", limits.max_threads_per_block);
  scalar("max-shared-memory-bytes", limits.max_shared_memory_bytes);
  scalar("subgroup-size", limits.subgroup_size);
  scalar("buffer-alignment", limits.buffer_alignment);
  xyz("max-grid", limits.max_grid);
  xyz("max-block", limits.max_block);
  if (std::optional<std::string> dtypes = validated.attr("dtypes")) {
    size_t pos = 0;
    while (pos <= dtypes->size()) {
      size_t colon = std::min(dtypes->find(':', pos), dtypes->size());
      limits.dtypes.push_back(dtypes->substr(pos, colon - pos));
      pos = colon + 1;
    }
  }
  return limits;
}

}  // namespace

tir::GpuLimits gpu_limits(const Target& validated) {
  return read_gpu_limits(validated, validated.str());
}

}  // namespace relax

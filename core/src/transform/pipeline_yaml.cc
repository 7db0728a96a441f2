// YAML pipelines (pipeline.h): the one file that includes yaml-cpp.
//
//   plugins: [fusion]            optional; short names or paths, loaded before validation
//   target: llvm                 optional; a target string, or a map
//                                {kind: tir-interp, gpu: 1, max-grid: [65535, 65535, 65535]}
//                                (a list is joined as its attribute type spells it)
//   host: llvm                   optional; the host of a GPU target, a string or a map
//   passes:                      required; each item `name` or `name: {option: value, ...}`
//     - normalize
//     - fuse-ops: {max-depth: 8}
//   instruments:                 optional
//     time-passes: true
//     verify-each: true
//     dump-ir-before: [normalize]   (or "all")
//     dump-ir-after: all
//     dump-dir: dumps
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"
#include "relax/transform/target_kind.h"

namespace relax::transform {

namespace {

class YamlReader {
 public:
  YamlReader(std::string file, PassRegistry& registry, PluginManager* plugins)
      : file_(std::move(file)), registry_(registry), plugins_(plugins) {}

  Pipeline read(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      RX_THROW_AT(span(e.mark)) << "invalid YAML: " << e.msg;
    }
    if (!root.IsMap())
      RX_THROW_AT(span(root.Mark())) << "a pipeline file is a map with the keys " << kTopKeys;
    reject_duplicate_keys(root);
    Pipeline p;
    for (const auto& kv : root) {
      std::string key = scalar(kv.first, "a key");
      if (key == "plugins") {
        p.plugins = string_list(kv.second, "plugins");
        load_plugins(kv.second);
      } else if (key == "target") {
        p.target = target(kv.second, key);
      } else if (key == "host") {
        p.host = target(kv.second, key);
      } else if (key == "passes" || key == "instruments") {
        // Read after the plugins, which may register the passes named here.
      } else {
        RX_THROW_AT(span(kv.first.Mark()))
            << "unknown key '" << key << "' in a pipeline file; valid keys: " << kTopKeys;
      }
    }
    const YAML::Node passes = root["passes"];
    if (!passes) RX_THROW_AT(span(root.Mark())) << "a pipeline file needs a 'passes' list";
    if (!passes.IsSequence() && !passes.IsNull())
      RX_THROW_AT(span(passes.Mark()))
          << "'passes' is a list of pass names or `name: {options}` maps";
    for (const auto& item : passes)
      p.passes.push_back(resolve_pass_spec(pass_spec(item), registry_));
    if (const YAML::Node inst = root["instruments"]) p.instruments = instruments(inst);
    return p;
  }

 private:
  static constexpr const char* kTopKeys = "plugins, target, host, passes, instruments";
  static constexpr const char* kInstrumentKeys =
      "time-passes, verify-each, dump-ir-before, dump-ir-after, dump-dir";

  SourceSpan span(const YAML::Mark& m) const {
    if (m.line < 0) return SourceSpan{file_, 0, 0};
    return SourceSpan{file_, m.line + 1, m.column + 1};
  }

  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) RX_THROW_AT(span(n.Mark())) << "expected " << what << " (a scalar)";
    return n.Scalar();
  }

  /// A target written as a string or as a map {kind: K, attr: value, ...}, as a target string;
  /// validated here when its kind is registered already (else compile() validates it).
  std::string target(const YAML::Node& n, const std::string& key) const {
    std::string text;
    if (n.IsScalar()) {
      text = n.Scalar();
    } else if (n.IsMap()) {
      const YAML::Node kind = n["kind"];
      if (!kind) RX_THROW_AT(span(n.Mark())) << "'" << key << "' as a map needs a 'kind'";
      text = scalar(kind, "the target kind");
      const TargetKind* k = registry_.target_kinds().find(text);
      for (const auto& kv : n) {
        std::string attr = scalar(kv.first, "an attribute name");
        if (attr == "kind") continue;
        std::string value;
        if (kv.second.IsSequence()) {
          const TargetAttrSpec* spec = k ? k->find_attr(attr) : nullptr;
          bool ints = true;
          std::vector<std::string> items;
          for (const auto& item : kv.second) {
            items.push_back(scalar(item, "an item of attribute '" + attr + "'"));
            ints = ints && parse_target_int(items.back()).has_value();
          }
          bool int_list = spec ? spec->type == TargetAttrType::kIntList : ints;
          for (size_t i = 0; i < items.size(); ++i)
            value += (i ? (int_list ? "x" : ":") : "") + items[i];
        } else {
          value = scalar(kv.second, "the value of attribute '" + attr + "'");
        }
        if (value.find(',') != std::string::npos)
          RX_THROW_AT(span(kv.second.Mark()))
              << "attribute '" << attr << "' of '" << key << "': a value holds no ','";
        text += "," + attr + "=" + value;
      }
    } else {
      RX_THROW_AT(span(n.Mark())) << "'" << key
                                  << "' is a target string (llvm,mcpu=skylake) or a map "
                                     "{kind: llvm, mcpu: skylake}";
    }
    try {
      Target t = Target::parse(text);
      if (const TargetKind* k = registry_.target_kinds().find(t.kind)) validate_target(t, *k);
    } catch (const Error& e) {
      RX_THROW_AT(span(n.Mark())) << "'" << key << "': " << e.message();
    }
    return text;
  }

  bool boolean(const YAML::Node& n, const std::string& key) const {
    auto v = parse_option_value(OptionType::kBool, scalar(n, "a bool"));
    if (!v)
      RX_THROW_AT(span(n.Mark())) << "'" << key << "' expects a bool (true or false), got '"
                                  << n.Scalar() << "'";
    return std::get<bool>(*v);
  }

  std::vector<std::string> string_list(const YAML::Node& n, const std::string& key) const {
    std::vector<std::string> out;
    if (n.IsNull()) return out;
    if (n.IsScalar()) return {n.Scalar()};
    if (!n.IsSequence()) RX_THROW_AT(span(n.Mark())) << "'" << key << "' is a list of names";
    for (const auto& item : n) out.push_back(scalar(item, "a name in '" + key + "'"));
    return out;
  }

  void load_plugins(const YAML::Node& n) {
    if (!plugins_) return;
    size_t i = 0;
    for (const auto& name : string_list(n, "plugins")) {
      YAML::Mark at = n.IsSequence() ? n[i].Mark() : n.Mark();
      ++i;
      try {
        plugins_->load(name);
      } catch (const Error& e) {
        RX_THROW_AT(span(at)) << "plugin '" << name
                              << "' named by the pipeline cannot be loaded: " << e.message();
      }
    }
  }

  PassSpec pass_spec(const YAML::Node& item) const {
    PassSpec spec;
    spec.span = span(item.Mark());
    if (item.IsScalar()) {
      spec.name = item.Scalar();
      return spec;
    }
    if (!item.IsMap() || item.size() != 1)
      RX_THROW_AT(spec.span) << "a pass is a name or a one-key map `name: {option: value}`";
    auto kv = *item.begin();
    spec.name = scalar(kv.first, "a pass name");
    spec.span = span(kv.first.Mark());
    const YAML::Node& opts = kv.second;
    if (opts.IsNull()) return spec;
    if (!opts.IsMap())
      RX_THROW_AT(span(opts.Mark())) << "the options of pass '" << spec.name << "' are a map";
    for (const auto& o : opts) {
      std::string key = scalar(o.first, "an option name");
      spec.options.emplace_back(key,
                                OptionValue(scalar(o.second, "the value of option '" + key + "'")));
      spec.option_spans.push_back(span(o.first.Mark()));
    }
    return spec;
  }

  /// yaml-cpp keeps every entry of a map with a repeated key, and a lookup sees only one of
  /// them: a repeated key anywhere in the file is an error at its second occurrence.
  void reject_duplicate_keys(const YAML::Node& n) const {
    if (n.IsSequence()) {
      for (const auto& item : n) reject_duplicate_keys(item);
      return;
    }
    if (!n.IsMap()) return;
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (kv.first.IsScalar() && !seen.insert(kv.first.Scalar()).second)
        RX_THROW_AT(span(kv.first.Mark()))
            << "key '" << kv.first.Scalar() << "' appears twice in the same map";
      reject_duplicate_keys(kv.second);
    }
  }

  std::vector<std::string> pass_names(const YAML::Node& n, const std::string& key) const {
    auto names = string_list(n, key);
    for (size_t i = 0; i < names.size(); ++i) {
      std::string hint;
      if (names[i] == "all" || registry_.find_or_provide(names[i], &hint)) continue;
      YAML::Mark at = n.IsSequence() ? n[i].Mark() : n.Mark();
      RX_THROW_AT(span(at)) << "unknown pass '" << names[i] << "' in '" << key << "'" << hint
                            << "; valid passes: all, " << join_names(registry_.names());
    }
    return names;
  }

  InstrumentSpec instruments(const YAML::Node& n) const {
    InstrumentSpec out;
    if (n.IsNull()) return out;
    if (!n.IsMap())
      RX_THROW_AT(span(n.Mark())) << "'instruments' is a map with the keys " << kInstrumentKeys;
    for (const auto& kv : n) {
      std::string key = scalar(kv.first, "an instrument name");
      if (key == "time-passes") {
        out.time_passes = boolean(kv.second, key);
      } else if (key == "verify-each") {
        out.verify_each = boolean(kv.second, key);
      } else if (key == "dump-ir-before") {
        out.dump_ir_before = pass_names(kv.second, key);
      } else if (key == "dump-ir-after") {
        out.dump_ir_after = pass_names(kv.second, key);
      } else if (key == "dump-dir") {
        out.dump_dir = scalar(kv.second, "a directory");
      } else {
        RX_THROW_AT(span(kv.first.Mark()))
            << "unknown instrument '" << key << "'; valid instruments: " << kInstrumentKeys;
      }
    }
    return out;
  }

  std::string file_;
  PassRegistry& registry_;
  PluginManager* plugins_;
};

}  // namespace

Pipeline parse_pipeline_yaml(const std::string& text, const std::string& file,
                             PassRegistry& registry, PluginManager* plugins) {
  try {
    return YamlReader(file, registry, plugins).read(text);
  } catch (const YAML::Exception& e) {
    // Conversion errors and the like that the reader did not turn into a Diagnostic itself.
    SourceSpan at{file, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                  e.mark.column >= 0 ? e.mark.column + 1 : 0};
    RX_THROW_AT(at) << "invalid pipeline: " << e.msg;
  }
}

Pipeline load_pipeline_file(const std::string& path, PassRegistry& registry,
                            PluginManager* plugins) {
  std::ifstream in(path);
  RX_CHECK(in) << "cannot read the pipeline file '" << path << "'";
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_pipeline_yaml(ss.str(), path, registry, plugins);
}

}  // namespace relax::transform

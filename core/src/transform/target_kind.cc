// Targets, target kinds and their validation (relax/transform/target_kind.h).
#include "relax/transform/target_kind.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "relax/support/diagnostic.h"
#include "relax/transform/pass.h"

namespace relax {

// ---- Target.

Target Target::parse(std::string_view text) {
  Target t;
  size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (first) {
      RX_CHECK(!item.empty() && item.find('=') == std::string_view::npos)
          << "target \"" << text << "\": expected a kind first (\"llvm\", \"llvm,mcpu=skylake\")";
      t.kind = std::string(item);
      first = false;
    } else {
      size_t eq = item.find('=');
      std::string key(item.substr(0, eq));
      std::string value = eq == std::string_view::npos ? "1" : std::string(item.substr(eq + 1));
      RX_CHECK(!key.empty()) << "target \"" << text << "\": empty attribute name in \"" << item
                             << "\"";
      RX_CHECK(!t.attr(key)) << "target \"" << text << "\": attribute " << key << " given twice";
      t.attrs.emplace_back(std::move(key), std::move(value));
    }
    pos = comma + 1;
  }
  return t;
}

std::string Target::attr_string() const {
  std::string out;
  for (const auto& [k, v] : attrs) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string Target::str() const {
  std::string a = attr_string();
  return a.empty() ? kind : kind + "," + a;
}

std::optional<std::string> Target::attr(std::string_view key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return v;
  return std::nullopt;
}

}  // namespace relax

namespace relax::transform {

namespace {

bool is_kebab_case(std::string_view s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return s.back() != '-';
}

/// `text` split at `sep`; an empty text gives one empty item.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find(sep, pos);
    out.push_back(
        text.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
    if (at == std::string_view::npos) return out;
    pos = at + 1;
  }
}

/// How a type is spelled, for "expected ..." in messages.
const char* expected_spelling(TargetAttrType type) {
  switch (type) {
    case TargetAttrType::kInt:
      return "an int (a decimal int64)";
    case TargetAttrType::kBool:
      return "a bool (0, 1, true or false)";
    case TargetAttrType::kString:
      return "a string";
    case TargetAttrType::kIntList:
      return "an int list (ints separated by 'x', e.g. 1024x1024x64)";
    case TargetAttrType::kStringList:
      return "a string list (strings separated by ':', e.g. float32:float16)";
  }
  return "?";
}

std::string who(const std::string& plugin) {
  return plugin.empty() ? std::string("the core") : "plugin '" + plugin + "'";
}

}  // namespace

const char* to_string(TargetAttrType t) {
  switch (t) {
    case TargetAttrType::kInt:
      return "int";
    case TargetAttrType::kBool:
      return "bool";
    case TargetAttrType::kString:
      return "string";
    case TargetAttrType::kIntList:
      return "int list";
    case TargetAttrType::kStringList:
      return "string list";
  }
  return "?";
}

std::string device_type_name(int device_type) {
  switch (device_type) {
    case kDeviceCPU:
      return "cpu";
    case kDeviceOpenCL:
      return "opencl";
    case kDeviceVulkan:
      return "vulkan";
    case kDeviceExtDev:
      return "ext_dev";
  }
  return "device " + std::to_string(device_type);
}

// ---- Attribute values.

std::optional<int64_t> parse_target_int(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

std::optional<std::vector<int64_t>> parse_target_int_list(std::string_view text) {
  std::vector<int64_t> out;
  for (std::string_view item : split(text, 'x')) {
    std::optional<int64_t> v = parse_target_int(item);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<std::string> normalize_target_attr(TargetAttrType type, std::string_view text) {
  switch (type) {
    case TargetAttrType::kInt:
      if (!parse_target_int(text)) return std::nullopt;
      break;
    case TargetAttrType::kBool:
      if (text == "1" || text == "true") return "1";
      if (text == "0" || text == "false") return "0";
      return std::nullopt;
    case TargetAttrType::kString:
      break;
    case TargetAttrType::kIntList:
      if (!parse_target_int_list(text)) return std::nullopt;
      break;
    case TargetAttrType::kStringList:
      for (std::string_view item : split(text, ':'))
        if (item.empty()) return std::nullopt;
      break;
  }
  if (text.find(',') != std::string_view::npos) return std::nullopt;
  return std::string(text);
}

// ---- TargetKind.

const TargetAttrSpec* TargetKind::find_attr(std::string_view n) const {
  for (const auto& a : attrs)
    if (a.name == n) return &a;
  return nullptr;
}

std::vector<std::string> TargetKind::attr_names() const {
  std::vector<std::string> out;
  for (const auto& a : attrs) out.push_back(a.name);
  return out;
}

// ---- TargetKindRegistry.

void TargetKindRegistry::add(TargetKind kind) {
  RX_ICHECK(is_kebab_case(kind.name)) << "target kind name '" << kind.name << "' is not kebab-case";
  RX_ICHECK(kind.schedule_rules == "cpu" || kind.schedule_rules == "gpu" ||
            kind.schedule_rules == "none")
      << "target kind '" << kind.name << "': schedule_rules is '" << kind.schedule_rules
      << "'; expected cpu, gpu or none";
  std::set<std::string> seen;
  for (const auto& a : kind.attrs) {
    RX_ICHECK(is_kebab_case(a.name))
        << "attribute '" << a.name << "' of target kind '" << kind.name << "' is not kebab-case";
    RX_ICHECK(seen.insert(a.name).second)
        << "target kind '" << kind.name << "' declares attribute '" << a.name << "' twice";
    RX_ICHECK(a.default_value.empty() || normalize_target_attr(a.type, a.default_value))
        << "default '" << a.default_value << "' of attribute '" << a.name << "' of target kind '"
        << kind.name << "' is not " << expected_spelling(a.type);
  }
  if (const TargetKind* old = find(kind.name)) {
    RX_THROW() << "target kind '" << kind.name << "' is registered twice: by " << who(old->plugin)
               << " and by " << who(kind.plugin);
  }
  auto pos = std::lower_bound(kinds_.begin(), kinds_.end(), kind.name,
                              [](const auto& k, const std::string& n) { return k->name < n; });
  kinds_.insert(pos, std::make_unique<TargetKind>(std::move(kind)));
}

bool TargetKindRegistry::remove(const std::string& name) {
  auto it =
      std::find_if(kinds_.begin(), kinds_.end(), [&](const auto& k) { return k->name == name; });
  if (it == kinds_.end()) return false;
  kinds_.erase(it);
  return true;
}

const TargetKind* TargetKindRegistry::find(std::string_view name) const {
  auto pos = std::lower_bound(kinds_.begin(), kinds_.end(), name,
                              [](const auto& k, std::string_view n) { return k->name < n; });
  if (pos != kinds_.end() && (*pos)->name == name) return pos->get();
  return nullptr;
}

std::vector<const TargetKind*> TargetKindRegistry::kinds() const {
  std::vector<const TargetKind*> out;
  for (const auto& k : kinds_) out.push_back(k.get());
  return out;
}

std::vector<std::string> TargetKindRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& k : kinds_) out.push_back(k->name);
  return out;
}

// ---- Validation.

Target validate_target(const Target& t, const TargetKind& kind) {
  RX_ICHECK(t.kind == kind.name) << "validating target \"" << t.str() << "\" against kind "
                                 << kind.name;
  for (const auto& [key, value] : t.attrs) {
    const TargetAttrSpec* spec = kind.find_attr(key);
    RX_CHECK(spec) << "target \"" << t.str() << "\": unknown attribute \"" << key << "\"; "
                   << kind.name << " takes: " << join_names(kind.attr_names())
                   << (parse_target_int(key) ? " (an int list is written 1024x1024x64)" : "");
    RX_CHECK(normalize_target_attr(spec->type, value))
        << "target \"" << t.str() << "\": attribute " << key << "=" << value << ": expected "
        << expected_spelling(spec->type);
  }
  Target out;
  out.kind = t.kind;
  for (const TargetAttrSpec& spec : kind.attrs) {
    std::optional<std::string> given = t.attr(spec.name);
    if (given)
      out.attrs.emplace_back(spec.name, *normalize_target_attr(spec.type, *given));
    else if (!spec.default_value.empty())
      out.attrs.emplace_back(spec.name, *normalize_target_attr(spec.type, spec.default_value));
  }
  return out;
}

bool is_gpu(const Target& t, const TargetKind& kind) {
  if (kind.gpu) return true;
  const TargetAttrSpec* spec = kind.find_attr("gpu");
  if (!spec || spec->type != TargetAttrType::kBool) return false;
  std::optional<std::string> v = t.attr("gpu");
  if (!v) v = spec->default_value;
  return normalize_target_attr(TargetAttrType::kBool, *v) == "1";
}

}  // namespace relax::transform

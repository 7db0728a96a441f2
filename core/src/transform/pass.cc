// Pass declarations, option values, pass instances and the registry.
#include "relax/transform/pass.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

namespace relax::transform {

const char* to_string(Granularity g) {
  switch (g) {
    case Granularity::kModule:
      return "module";
    case Granularity::kFunction:
      return "function";
    case Granularity::kDataflowBlock:
      return "dataflow-block";
    case Granularity::kPrimFunc:
      return "prim-func";
  }
  return "?";
}

const char* to_string(OptionType t) {
  switch (t) {
    case OptionType::kBool:
      return "bool";
    case OptionType::kInt:
      return "int";
    case OptionType::kFloat:
      return "float";
    case OptionType::kString:
      return "string";
  }
  return "?";
}

OptionType type_of(const OptionValue& v) {
  static constexpr OptionType kTypes[] = {OptionType::kBool, OptionType::kInt, OptionType::kFloat,
                                          OptionType::kString};
  return kTypes[v.index()];
}

namespace {

bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  for (char c : s) {
    // Any white space or control character: the unquoted form trims white space (a value of
    // "\fvulkan" read back as "vulkan": fuzz_pipeline).
    if (c == ',' || c == '{' || c == '}' || c == '=' || c == '"' || c == '\\' || c == ' ' ||
        (unsigned char)c < 0x20 || c == 0x7f)
      return true;
  }
  return false;
}

}  // namespace

std::string to_string(const OptionValue& v) {
  switch (type_of(v)) {
    case OptionType::kBool:
      return std::get<bool>(v) ? "true" : "false";
    case OptionType::kInt:
      return std::to_string(std::get<int64_t>(v));
    case OptionType::kFloat: {
      // Shortest text that reads back to the same double.
      double d = std::get<double>(v);
      for (int precision = 1; precision <= 17; ++precision) {
        std::ostringstream os;
        os.precision(precision);
        os << d;
        if (std::strtod(os.str().c_str(), nullptr) == d) {
          std::string s = os.str();
          // Keep a float recognisable as one ("1" would read back as an int).
          if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
          return s;
        }
      }
      return std::to_string(d);
    }
    case OptionType::kString: {
      const auto& s = std::get<std::string>(v);
      if (!needs_quotes(s)) return s;
      std::string out = "\"";
      for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
  }
  return "?";
}

std::optional<OptionValue> parse_option_value(OptionType type, const std::string& text) {
  switch (type) {
    case OptionType::kBool:
      if (text == "true" || text == "1" || text == "on" || text == "yes") return OptionValue(true);
      if (text == "false" || text == "0" || text == "off" || text == "no")
        return OptionValue(false);
      return std::nullopt;
    case OptionType::kInt: {
      if (text.empty()) return std::nullopt;
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(text.c_str(), &end, 0);
      if (errno != 0 || *end != '\0') return std::nullopt;
      return OptionValue(int64_t(v));
    }
    case OptionType::kFloat: {
      if (text.empty()) return std::nullopt;
      char* end = nullptr;
      errno = 0;
      double v = std::strtod(text.c_str(), &end);
      if (errno != 0 || *end != '\0') return std::nullopt;
      return OptionValue(v);
    }
    case OptionType::kString:
      return OptionValue(text);
  }
  return std::nullopt;
}

const PassOption* PassInfo::find_option(const std::string& n) const {
  for (const auto& o : options)
    if (o.name == n) return &o;
  return nullptr;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out.empty() ? "(none)" : out;
}

namespace {

std::vector<std::string> option_names(const PassInfo& info) {
  std::vector<std::string> names;
  for (const auto& o : info.options) names.push_back(o.name);
  return names;
}

}  // namespace

// ---- PassOptions.

PassOptions::PassOptions(const PassInfo& info) {
  for (const auto& o : info.options) values_.emplace_back(o.name, o.default_value);
}

void PassOptions::set(const PassInfo& info, const std::string& name, OptionValue value) {
  const PassOption* opt = info.find_option(name);
  RX_CHECK(opt) << "pass '" << info.name << "' has no option '" << name
                << "'; valid options: " << join_names(option_names(info));
  if (opt->type == OptionType::kFloat && type_of(value) == OptionType::kInt)
    value = double(std::get<int64_t>(value));
  RX_CHECK(type_of(value) == opt->type)
      << "option '" << name << "' of pass '" << info.name << "' expects " << to_string(opt->type)
      << ", got " << to_string(type_of(value)) << " '" << to_string(value) << "'";
  for (auto& [n, v] : values_) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  RX_IFAIL() << "options of '" << info.name << "' were not built from its declaration";
}

const OptionValue& PassOptions::get(const std::string& name) const {
  for (const auto& [n, v] : values_)
    if (n == name) return v;
  RX_IFAIL() << "the pass declares no option '" << name << "'";
}

bool PassOptions::get_bool(const std::string& name) const {
  const auto* v = std::get_if<bool>(&get(name));
  RX_ICHECK(v) << "option '" << name << "' is not a bool";
  return *v;
}
int64_t PassOptions::get_int(const std::string& name) const {
  const auto* v = std::get_if<int64_t>(&get(name));
  RX_ICHECK(v) << "option '" << name << "' is not an int";
  return *v;
}
double PassOptions::get_float(const std::string& name) const {
  const auto* v = std::get_if<double>(&get(name));
  RX_ICHECK(v) << "option '" << name << "' is not a float";
  return *v;
}
const std::string& PassOptions::get_string(const std::string& name) const {
  const auto* v = std::get_if<std::string>(&get(name));
  RX_ICHECK(v) << "option '" << name << "' is not a string";
  return *v;
}

// ---- Pass.

Pass::Pass(std::shared_ptr<const PassRegistration> reg, PassOptions options)
    : reg_(std::move(reg)), options_(std::move(options)) {
  RX_ICHECK(reg_) << "a pass needs a registration";
}

std::string Pass::to_string() const {
  std::string out = name();
  if (options_.values().empty()) return out;
  out += "{";
  bool first = true;
  for (const auto& [n, v] : options_.values()) {
    if (!first) out += ",";
    first = false;
    out += n + "=" + transform::to_string(v);
  }
  return out + "}";
}

// ---- PassRegistry.

namespace {

bool is_kebab_case(const std::string& s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return s.back() != '-';
}

size_t body_index(Granularity g) {
  switch (g) {
    case Granularity::kModule:
      return 0;
    case Granularity::kFunction:
      return 1;
    case Granularity::kDataflowBlock:
      return 2;
    case Granularity::kPrimFunc:
      return 3;
  }
  return 0;
}

}  // namespace

void PassRegistry::add(PassInfo info, PassBody body, std::string plugin) {
  RX_ICHECK(is_kebab_case(info.name)) << "pass name '" << info.name << "' is not kebab-case";
  RX_ICHECK(body.index() == body_index(info.granularity))
      << "pass '" << info.name << "' is declared " << to_string(info.granularity)
      << "-level but its body is of another granularity";
  std::set<std::string> seen;
  for (const auto& o : info.options) {
    RX_ICHECK(is_kebab_case(o.name))
        << "option '" << o.name << "' of pass '" << info.name << "' is not kebab-case";
    RX_ICHECK(seen.insert(o.name).second)
        << "pass '" << info.name << "' declares option '" << o.name << "' twice";
    RX_ICHECK(type_of(o.default_value) == o.type)
        << "default of option '" << o.name << "' of pass '" << info.name << "' is not a "
        << to_string(o.type);
  }
  if (auto old = find(info.name)) {
    auto who = [](const std::string& plugin) {
      return plugin.empty() ? std::string("the core") : "plugin '" + plugin + "'";
    };
    RX_THROW() << "pass '" << info.name << "' is registered twice: by " << who(old->plugin)
               << " and by " << who(plugin);
  }
  auto reg = std::make_shared<PassRegistration>(
      PassRegistration{std::move(info), std::move(body), std::move(plugin)});
  auto pos = std::lower_bound(passes_.begin(), passes_.end(), reg->info.name,
                              [](const auto& r, const std::string& n) { return r->info.name < n; });
  passes_.insert(pos, std::move(reg));
}

bool PassRegistry::remove(const std::string& name) {
  auto it = std::find_if(passes_.begin(), passes_.end(),
                         [&](const auto& r) { return r->info.name == name; });
  if (it == passes_.end()) return false;
  passes_.erase(it);
  return true;
}

std::shared_ptr<const PassRegistration> PassRegistry::find(const std::string& name) const {
  auto pos = std::lower_bound(passes_.begin(), passes_.end(), name,
                              [](const auto& r, const std::string& n) { return r->info.name < n; });
  if (pos != passes_.end() && (*pos)->info.name == name) return *pos;
  return nullptr;
}

std::vector<std::shared_ptr<const PassRegistration>> PassRegistry::list() const { return passes_; }

std::vector<std::string> PassRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& r : passes_) out.push_back(r->info.name);
  return out;
}

Pass PassRegistry::create(const std::string& name) const { return create(name, {}); }

std::shared_ptr<const PassRegistration> PassRegistry::find_or_provide(const std::string& name,
                                                                     std::string* hint) const {
  if (hint) hint->clear();
  auto reg = find(name);
  if (reg || !missing_) return reg;
  std::string why = missing_(name);
  if (hint) *hint = why;
  return find(name);
}

Pass PassRegistry::create(const std::string& name,
                          const std::vector<std::pair<std::string, OptionValue>>& options) const {
  std::string hint;
  auto reg = find_or_provide(name, &hint);
  RX_CHECK(reg) << "unknown pass '" << name << "'" << hint << "; valid passes: "
                << join_names(names());
  PassOptions values(reg->info);
  for (const auto& [n, v] : options) values.set(reg->info, n, v);
  return Pass(std::move(reg), std::move(values));
}

}  // namespace relax::transform

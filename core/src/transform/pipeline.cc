// Pipelines: the one-line form, validation against the registry, and printing (YAML parsing
// is in pipeline_yaml.cc, the one file that includes yaml-cpp).
#include "relax/transform/pipeline.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace relax::transform {

std::string PassSpec::to_string() const {
  if (options.empty()) return name;
  std::string out = name + "{";
  for (size_t i = 0; i < options.size(); ++i) {
    if (i) out += ",";
    out += options[i].first + "=" + transform::to_string(options[i].second);
  }
  return out + "}";
}

std::string Pipeline::to_line() const {
  std::string out;
  for (const auto& p : passes) out += (out.empty() ? "" : ",") + p.to_string();
  return out;
}

namespace {

/// A YAML scalar: plain when safe, double-quoted otherwise (control characters escaped, so
/// that what is printed loads back to the same bytes; UTF-8 text is written as it is).
std::string yaml_scalar(const std::string& s) {
  auto control = [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; };
  bool plain = !s.empty() && s.find_first_of(":#{}[],&*!|>'\"%@`\n") == std::string::npos &&
               !std::isspace((unsigned char)s.front()) && !std::isspace((unsigned char)s.back()) &&
               std::none_of(s.begin(), s.end(), control);
  // Words YAML would read as another type stay strings only when quoted.
  static const char* kSpecial[] = {"true", "false", "yes", "no", "on", "off", "null", "~"};
  for (const char* w : kSpecial)
    if (s == w) plain = false;
  if (plain && (std::isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+' || s[0] == '.'))
    plain = false;
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (control(c)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", (unsigned)(unsigned char)c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string yaml_value(const OptionValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return yaml_scalar(*s);
  return to_string(v);
}

std::string yaml_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + yaml_scalar(items[i]);
  return out + "]";
}

}  // namespace

std::string Pipeline::to_yaml() const {
  std::ostringstream os;
  os << "plugins: " << yaml_list(plugins) << "\n";
  if (!target.empty()) os << "target: " << yaml_scalar(target) << "\n";  // absent: the default
  if (!host.empty()) os << "host: " << yaml_scalar(host) << "\n";
  os << "passes:\n";
  if (passes.empty()) os << "  []\n";
  for (const auto& p : passes) {
    os << "  - " << yaml_scalar(p.name);
    if (!p.options.empty()) {
      os << ": {";
      for (size_t i = 0; i < p.options.size(); ++i)
        os << (i ? ", " : "") << p.options[i].first << ": " << yaml_value(p.options[i].second);
      os << "}";
    }
    os << "\n";
  }
  os << "instruments:\n";
  os << "  time-passes: " << (instruments.time_passes ? "true" : "false") << "\n";
  if (instruments.verify_each)
    os << "  verify-each: " << (*instruments.verify_each ? "true" : "false") << "\n";
  os << "  dump-ir-before: " << yaml_list(instruments.dump_ir_before) << "\n";
  os << "  dump-ir-after: " << yaml_list(instruments.dump_ir_after) << "\n";
  if (!instruments.dump_dir.empty())
    os << "  dump-dir: " << yaml_scalar(instruments.dump_dir) << "\n";
  return os.str();
}

std::vector<Pass> Pipeline::build(const PassRegistry& registry) const {
  std::vector<Pass> out;
  for (const auto& spec : passes) {
    PassSpec resolved = resolve_pass_spec(spec, registry);
    out.push_back(registry.create(resolved.name, resolved.options));
  }
  return out;
}

PassSpec resolve_pass_spec(const PassSpec& spec, const PassRegistry& registry) {
  std::string hint;
  auto reg = registry.find_or_provide(spec.name, &hint);
  if (!reg) {
    RX_THROW_AT(spec.span) << "unknown pass '" << spec.name << "'" << hint
                           << "; valid passes: " << join_names(registry.names());
  }
  const PassInfo& info = reg->info;
  PassOptions values(info);
  std::vector<std::string> seen;
  for (size_t i = 0; i < spec.options.size(); ++i) {
    const auto& [key, raw] = spec.options[i];
    SourceSpan at = i < spec.option_spans.size() ? spec.option_spans[i] : spec.span;
    const PassOption* opt = info.find_option(key);
    if (!opt) {
      std::vector<std::string> valid;
      for (const auto& o : info.options) valid.push_back(o.name + " (" + to_string(o.type) + ")");
      RX_THROW_AT(at) << "pass '" << info.name << "' has no option '" << key
                      << "'; valid options: " << join_names(valid);
    }
    for (const auto& s : seen)
      if (s == key)
        RX_THROW_AT(at) << "option '" << key << "' of pass '" << info.name << "' is given twice";
    seen.push_back(key);
    OptionValue v = raw;
    const auto* text = std::get_if<std::string>(&raw);
    if (text && opt->type != OptionType::kString) {
      auto parsed = parse_option_value(opt->type, *text);
      if (!parsed) {
        RX_THROW_AT(at) << "option '" << key << "' of pass '" << info.name << "' expects "
                        << to_string(opt->type) << ", got '" << *text << "'";
      }
      v = std::move(*parsed);
    }
    try {
      values.set(info, key, std::move(v));
    } catch (const Error& e) {
      RX_THROW_AT(at) << e.message();
    }
  }
  PassSpec out;
  out.name = spec.name;
  out.options = values.values();
  out.span = spec.span;
  return out;
}

// ---- The one-line form.

namespace {

class LineParser {
 public:
  explicit LineParser(const std::string& text) : text_(text) {}

  std::vector<PassSpec> parse() {
    std::vector<PassSpec> out;
    skip_space();
    if (at_end()) return out;
    while (true) {
      out.push_back(parse_spec());
      skip_space();
      if (at_end()) break;
      expect(',', "',' between passes");
      skip_space();
    }
    return out;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && std::isspace((unsigned char)text_[pos_])) ++pos_;
  }
  SourceSpan span_here() const { return SourceSpan{"<pipeline>", 1, int(pos_) + 1}; }

  [[noreturn]] void fail(const std::string& what) {
    std::string found = at_end() ? "the end of the pipeline" : "'" + std::string(1, peek()) + "'";
    RX_THROW_AT(span_here()) << "pipeline syntax: expected " << what << ", found " << found
                             << " in \"" << text_ << "\"";
  }
  void expect(char c, const std::string& what) {
    if (peek() != c) fail(what);
    ++pos_;
  }

  std::string parse_name(const std::string& what) {
    size_t start = pos_;
    while (!at_end() &&
           (std::isalnum((unsigned char)peek()) || peek() == '-' || peek() == '_' || peek() == '.'))
      ++pos_;
    if (start == pos_) fail(what);
    return text_.substr(start, pos_ - start);
  }

  std::string parse_value() {
    skip_space();
    if (peek() == '"') {
      ++pos_;
      std::string out;
      while (!at_end() && peek() != '"') {
        if (peek() == '\\') {
          ++pos_;
          if (at_end()) break;
        }
        out += text_[pos_++];
      }
      expect('"', "a closing '\"'");
      return out;
    }
    size_t start = pos_;
    while (!at_end() && peek() != ',' && peek() != '}') ++pos_;
    std::string v = text_.substr(start, pos_ - start);
    while (!v.empty() && std::isspace((unsigned char)v.back())) v.pop_back();
    if (v.empty()) fail("an option value");
    return v;
  }

  PassSpec parse_spec() {
    PassSpec spec;
    spec.span = span_here();
    spec.name = parse_name("a pass name");
    skip_space();
    if (peek() != '{') return spec;
    ++pos_;
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return spec;
    }
    while (true) {
      skip_space();
      SourceSpan at = span_here();
      std::string key = parse_name("an option name");
      skip_space();
      expect('=', "'=' after option '" + key + "'");
      spec.options.emplace_back(key, OptionValue(parse_value()));
      spec.option_spans.push_back(at);
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return spec;
      }
      expect(',', "',' or '}' after an option");
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<PassSpec> parse_pipeline_line_syntax(const std::string& line) {
  return LineParser(line).parse();
}

Pipeline parse_pipeline_line(const std::string& line, const PassRegistry& registry) {
  Pipeline p;
  for (const auto& spec : parse_pipeline_line_syntax(line))
    p.passes.push_back(resolve_pass_spec(spec, registry));
  return p;
}

}  // namespace relax::transform

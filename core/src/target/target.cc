// Target strings (relax/target/target.h).
#include "relax/target/target.h"

#include "relax/support/diagnostic.h"

namespace relax {

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

std::string backend_build_function(std::string_view kind) {
  return "relax.backend." + std::string(kind) + ".build";
}

}  // namespace relax

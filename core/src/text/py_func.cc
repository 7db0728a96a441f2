// `@I.py_func` methods of a module class (the Python-module design, docs/python.md): Python
// functions kept as source in the module. The parser does not read Python; it takes each such
// method out of the text before tokenizing (every line of it becomes an empty line, so
// positions of the rest stay as written) and the module keeps the sources in its attribute
// kPyFuncsAttr; the printer writes them back as methods.
#include <algorithm>
#include <cctype>

#include "parser_internal.h"
#include "printer_internal.h"
#include "relax/text/parser.h"

namespace relax::script {

namespace {

size_t indent_of(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

bool blank(std::string_view line) { return indent_of(line) == line.size(); }

/// Whether `line` (after its indentation) is the decorator `@I.py_func`, optionally called.
bool is_py_func_decorator(std::string_view line) {
  std::string_view rest = line.substr(indent_of(line));
  constexpr std::string_view kDeco = "@I.py_func";
  if (!rest.starts_with(kDeco)) return false;
  rest.remove_prefix(kDeco.size());
  return rest.empty() || rest[0] == '(' || std::isspace(static_cast<unsigned char>(rest[0]));
}

}  // namespace

std::vector<std::string> extract_py_funcs(std::string& text, const std::string& file) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> sources;
  std::vector<std::pair<size_t, size_t>> cut;  // line ranges [first, last)
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!is_py_func_decorator(lines[i])) continue;
    size_t indent = indent_of(lines[i]);
    size_t j = i + 1;
    // Further decorators, then the def line, all at the decorator's indentation.
    while (j < lines.size() && !blank(lines[j]) && indent_of(lines[j]) == indent &&
           lines[j].substr(indent).starts_with("@"))
      ++j;
    if (j >= lines.size() || indent_of(lines[j]) != indent ||
        !lines[j].substr(indent).starts_with("def "))
      throw Error("expected a 'def' after @I.py_func",
                  SourceSpan{file, int(std::min(j, lines.size() - 1) + 1), int(indent) + 1, 0, 0});
    ++j;  // the def line
    size_t last = j;            // one past the last non-blank line of the body
    for (; j < lines.size(); ++j) {
      if (blank(lines[j])) continue;
      if (indent_of(lines[j]) <= indent) break;
      last = j + 1;
    }
    std::string source;
    for (size_t k = i; k < last; ++k) {
      std::string_view l = lines[k];
      source += std::string(blank(l) ? std::string_view() : l.substr(std::min(indent, l.size())));
      source += "\n";
    }
    sources.push_back(std::move(source));
    cut.emplace_back(i, last);
    i = last - 1;
  }
  if (cut.empty()) return sources;
  std::string out;
  size_t c = 0;
  for (size_t k = 0; k < lines.size(); ++k) {
    while (c < cut.size() && k >= cut[c].second) ++c;
    bool removed = c < cut.size() && k >= cut[c].first;
    if (!removed) out += lines[k];
    if (k + 1 < lines.size()) out += "\n";
  }
  text = std::move(out);
  return sources;
}

std::pair<Attrs, const std::vector<std::string>*> split_py_funcs(const Attrs& attrs) {
  if (!attrs.defined() || !attrs->has(kPyFuncsAttr)) return {attrs, nullptr};
  std::vector<std::pair<std::string, AttrValue>> rest;
  const std::vector<std::string>* sources = nullptr;
  for (const auto& [k, v] : attrs->fields) {
    if (k == kPyFuncsAttr && std::holds_alternative<std::vector<std::string>>(v))
      sources = &std::get<std::vector<std::string>>(v);
    else
      rest.emplace_back(k, v);
  }
  return {make_attrs(std::move(rest)), sources};
}

bool write_py_funcs(const std::vector<std::string>& sources, Writer* w) {
  bool first = true;
  for (const std::string& source : sources) {
    if (!first) w->out += "\n";
    first = false;
    for (size_t start = 0; start < source.size();) {
      size_t end = source.find('\n', start);
      if (end == std::string::npos) end = source.size();
      std::string_view line = std::string_view(source).substr(start, end - start);
      if (line.empty())
        w->out += "\n";
      else
        w->line(1, std::string(line));
      start = end + 1;
    }
  }
  return first;
}

}  // namespace relax::script

#include "relax/support/diagnostic.h"

namespace relax {

std::string SourceSpan::to_string() const {
  std::string s = file.empty() ? "<input>" : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

const SourceSpan& Span::get() const {
  static const SourceSpan kNone;
  return span_ ? *span_ : kNone;
}

std::string Diagnostic::to_string() const {
  const char* level_name = level == Level::kError ? "error" : level == Level::kWarning ? "warning" : "note";
  std::string s;
  if (span.defined() || !span.file.empty()) s = span.to_string() + ": ";
  return s + level_name + ": " + message;
}

namespace {
std::string join(const std::vector<Diagnostic>& diagnostics) {
  std::string s;
  for (const auto& d : diagnostics) {
    if (!s.empty()) s += "\n";
    s += d.to_string();
  }
  return s;
}
}  // namespace

Error::Error(std::string message, SourceSpan span)
    : Error(std::vector<Diagnostic>{Diagnostic{Diagnostic::Level::kError, std::move(span), std::move(message)}}) {}

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {
  if (diagnostics_.empty()) diagnostics_.push_back({Diagnostic::Level::kError, {}, "unknown error"});
}

Error Error::located(const SourceSpan& span) const {
  if (!span.defined()) return *this;
  std::vector<Diagnostic> out = diagnostics_;
  for (auto& d : out)
    if (!d.span.defined()) d.span = span;
  return Error(std::move(out));
}

InternalError::InternalError(const char* file, int line, const std::string& message)
    : std::logic_error("internal error at " + std::string(file) + ":" + std::to_string(line) + ": " + message),
      file_(file), line_(line), detail_(message) {}

namespace detail {
ErrorStream::~ErrorStream() noexcept(false) {
  if (internal_) throw InternalError(file_, line_, stream_.str());
  throw Error(stream_.str(), span_);
}
}  // namespace detail

}  // namespace relax

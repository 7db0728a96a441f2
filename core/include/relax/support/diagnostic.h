// Errors and diagnostics.
//
// Three tiers (STYLE.md habit 5):
//  - RX_ICHECK(cond) << msg: a compiler bug. Throws InternalError carrying file:line.
//  - relax::Error (thrown through RX_THROW or built from Diagnostics): a user mistake — bad IR,
//    bad text, bad configuration. It names the thing, the place and what was expected, and
//    the process survives it.
//  - status codes with messages across the C ABI (runtime/c_abi.h).
#pragma once

#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace relax {

/// A region of a source file; line and column are 1-based, 0 means unknown.
struct SourceSpan {
  std::string file;
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;

  bool defined() const { return line > 0; }
  /// "file:line:column" (or what part of it is known).
  std::string to_string() const;
};

/// Where an IR node came from, held by the node as an annotation: structural equality, hashing
/// and printing ignore it. The SourceSpan sits behind a shared pointer so that nodes built in
/// code (no place) pay one null pointer and copies never duplicate the file name.
class Span {
 public:
  Span() = default;
  explicit Span(SourceSpan span) : span_(std::make_shared<const SourceSpan>(std::move(span))) {}

  /// True when a line is known.
  bool defined() const { return span_ && span_->defined(); }
  /// The place; an empty SourceSpan (line 0) when none is known.
  const SourceSpan& get() const;
  /// "file:line:column", or "" when no place is known.
  std::string to_string() const { return defined() ? span_->to_string() : std::string(); }

 private:
  std::shared_ptr<const SourceSpan> span_;
};

/// One message about user input, tied to a place when one is known.
struct Diagnostic {
  enum class Level { kError, kWarning, kNote };
  Level level = Level::kError;
  SourceSpan span;
  std::string message;

  /// "file:3:7: error: message".
  std::string to_string() const;
};

/// A user-facing error: bad input, not a compiler bug. Catch it, report it, carry on.
class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, SourceSpan span = {});
  explicit Error(std::vector<Diagnostic> diagnostics);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// The message without the span prefix (the first diagnostic's text).
  const std::string& message() const { return diagnostics_.front().message; }
  /// The place of the first diagnostic (line 0 when it has none).
  const SourceSpan& span() const { return diagnostics_.front().span; }
  /// This error, with `span` given to the diagnostics that have no line yet. An error raised
  /// deep inside (an op's inference, a check on attributes) thus takes the place of the node
  /// being processed, while one that already names a more precise place keeps it.
  Error located(const SourceSpan& span) const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

/// A violated internal invariant: a bug in Relax or in a plugin.
class InternalError : public std::logic_error {
 public:
  InternalError(const char* file, int line, const std::string& message);
  const std::string& detail() const { return detail_; }
  const char* file() const { return file_; }
  int line() const { return line_; }

 private:
  const char* file_;
  int line_;
  std::string detail_;
};

namespace detail {
/// Collects a message with operator<< and throws from its destructor.
class ErrorStream {
 public:
  ErrorStream(bool internal, const char* file, int line, const char* condition, SourceSpan span = {})
      : internal_(internal), file_(file), line_(line), span_(std::move(span)) {
    if (condition) stream_ << "check failed: " << condition << ": ";
  }
  ErrorStream(const ErrorStream&) = delete;
  [[noreturn]] ~ErrorStream() noexcept(false);
  template <class T>
  ErrorStream& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  bool internal_;
  const char* file_;
  int line_;
  SourceSpan span_;
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace relax

/// Internal invariant: throws relax::InternalError with file:line when `cond` is false.
#define RX_ICHECK(cond) \
  if (cond) {           \
  } else                \
    ::relax::detail::ErrorStream(true, __FILE__, __LINE__, #cond)

/// Unconditional internal error.
#define RX_IFAIL() ::relax::detail::ErrorStream(true, __FILE__, __LINE__, nullptr)

/// Throws a user-facing relax::Error built from the streamed message.
#define RX_THROW() ::relax::detail::ErrorStream(false, __FILE__, __LINE__, nullptr)

/// Throws a user-facing relax::Error tied to a source span.
#define RX_THROW_AT(span) ::relax::detail::ErrorStream(false, __FILE__, __LINE__, nullptr, span)

/// User-facing check: throws relax::Error with the streamed message when `cond` is false.
#define RX_CHECK(cond) \
  if (cond) {          \
  } else               \
    ::relax::detail::ErrorStream(false, __FILE__, __LINE__, nullptr)

// vm.builtin.print_format and vm.builtin.assert_format: the run-time side of R.print and
// R.assert_op (op/script_ops.cc), with the semantics of TVM's relax.run.print/assert_op.
// The format is Python's str.format restricted to `{}` and `{N}` placeholders and the `{{`/`}}`
// escapes; an empty format prints the values separated by spaces.
#include <iostream>
#include <sstream>

#include "builtins_internal.h"
#include "relax/runtime/device_api.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime::builtin {

namespace {

std::string value_text(const Value& v) {
  // Scalars as Python writes them; tensors and tuples as vm.builtin.print does.
  if (v.is(ValueKind::kString)) return v.as_string();
  if (v.is(ValueKind::kInt)) return std::to_string(v.as_int());
  if (v.is(ValueKind::kBool)) return v.as_bool() ? "True" : "False";
  std::ostringstream os;
  if (v.is(ValueKind::kFloat)) {
    os << v.as_float();
    return os.str();
  }
  print_value(os, v);
  return os.str();
}

/// `format` with its placeholders replaced by vals[from..]; errors name `builtin`.
std::string format_values(std::string_view builtin, const std::string& format, Args args,
                          size_t from) {
  size_t count = args.size() - from;
  if (format.empty()) {
    std::string s;
    for (size_t i = from; i < args.size(); ++i) s += (i > from ? " " : "") + value_text(args[i]);
    return s;
  }
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    RX_CHECK(c != '}') << builtin << ": unmatched '}' in format \"" << format << "\"";
    if (c != '{') {
      out += c;
      continue;
    }
    size_t close = format.find('}', i);
    RX_CHECK(close != std::string::npos)
        << builtin << ": unterminated '{' in format \"" << format << "\"";
    std::string field = format.substr(i + 1, close - i - 1);
    size_t index = next++;
    if (!field.empty()) {
      RX_CHECK(field.find_first_not_of("0123456789") == std::string::npos && field.size() < 9)
          << builtin << ": placeholder {" << field << "} is not supported (only {} and {N})";
      index = size_t(std::stoul(field));
    }
    RX_CHECK(index < count) << builtin << ": format \"" << format << "\" needs value " << index
                            << " but " << count << " were given";
    out += value_text(args[from + index]);
    i = close;
  }
  return out;
}

bool condition_value(const Value& v) {
  if (v.is(ValueKind::kInt) || v.is(ValueKind::kBool)) return v.as_int() != 0;
  RX_CHECK(v.is(ValueKind::kTensor))
      << "vm.builtin.assert_format: the condition must be a bool or a one-element bool tensor, got "
      << v.describe();
  NDArray t = v.as_tensor();
  RX_CHECK(t.numel() == 1 && t.dtype().is_bool())
      << "vm.builtin.assert_format: the condition must be a one-element bool tensor, got "
      << v.describe();
  if (t.device().device_type != kDLCPU) t = t.copy_to(DLDevice{kDLCPU, 0});
  return *static_cast<const uint8_t*>(t.data()) != 0;
}

}  // namespace

void register_format_builtins() {
  // print_format(format: string, values...) -> null: one line on stdout.
  define("print_format", [](Args args) -> Value {
    const std::string& format = string_arg("print_format", args, 0, "format");
    std::cout << format_values("vm.builtin.print_format", format, args, 1) << "\n" << std::flush;
    return {};
  });
  // assert_format(cond, format: string, values...) -> null; a relax::Error with the formatted
  // message ("Assertion Failed" when the format is empty) when cond is false.
  define("assert_format", [](Args args) -> Value {
    RX_CHECK(args.size() >= 2) << "vm.builtin.assert_format takes (condition, format, values...)";
    const std::string& format = string_arg("assert_format", args, 1, "format");
    if (condition_value(args[0])) return {};
    std::string message = format.empty()
                              ? std::string("Assertion Failed")
                              : format_values("vm.builtin.assert_format", format, args, 2);
    RX_THROW() << "R.assert_op: " << message;
    __builtin_unreachable();
  });
}

}  // namespace relax::runtime::builtin

// Helpers shared by the script printer/parser tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "../../common/merge_plain_blocks.h"
#include "relax/ir/structural_equal.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

namespace relax::testing {

/// The contents of a file under the source tree.
inline std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(RELAX_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using relax::test::merge_plain_blocks;

/// Checks parse(print(m)) == m structurally (after merge_plain_blocks) and that printing the result
/// again gives the same text; returns the printed text.
inline std::string expect_round_trip(const IRModule& m) {
  std::string text = print_module(m);
  IRModule back;
  try {
    back = parse_module(text, "<printed>");
  } catch (const Error& e) {
    ADD_FAILURE() << "printed module does not parse: " << e.what() << "\n" << text;
    return text;
  }
  if (auto diff = structural_diff(merge_plain_blocks(m), back))
    ADD_FAILURE() << *diff << "\n" << text << "\n---\n" << print_module(back);
  EXPECT_EQ(print_module(back), text);
  return text;
}

/// Parses `text`, then checks print(parse(text)) is a fixed point after one step.
inline IRModule expect_fixed_point(const std::string& text, const std::string& file = "<input>") {
  IRModule m = parse_module(text, file);
  std::string once = print_module(m);
  IRModule again;
  try {
    again = parse_module(once, "<printed>");
  } catch (const Error& e) {
    ADD_FAILURE() << "printed module does not parse: " << e.what() << "\n" << once;
    return m;
  }
  if (auto diff = structural_diff(m, again)) ADD_FAILURE() << *diff << "\n" << once;
  EXPECT_EQ(print_module(again), once);
  return m;
}

/// Expects parsing `text` to fail with a message containing `message` at line:column.
inline void expect_parse_error(const std::string& text, const std::string& message, int line,
                               int column) {
  try {
    parse_module(text, "bad.rx");
    ADD_FAILURE() << "expected an error containing '" << message << "' for:\n" << text;
  } catch (const Error& e) {
    const Diagnostic& d = e.diagnostics().front();
    EXPECT_NE(d.message.find(message), std::string::npos) << "message: " << e.what();
    EXPECT_EQ(d.span.file, "bad.rx");
    EXPECT_EQ(d.span.line, line) << e.what();
    EXPECT_EQ(d.span.column, column) << e.what();
    // The message ends with the source line and a caret under the column.
    EXPECT_NE(d.message.find("\n    "), std::string::npos) << e.what();
    EXPECT_EQ(d.message.back(), '^') << e.what();
  }
}

}  // namespace relax::testing

// No input crashes the Relay frontend: every prefix of the corpus programs and of a model
// with metadata, and every single-byte corruption of a program, either imports or raises a
// relax::Error.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "relay_test_util.h"

namespace relax::relay_test {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Imports `text`: success or a relax::Error pass; any other exception fails with `what`.
void import_or_error(const std::string& text, const std::string& what) {
  try {
    import_text(text, "robust");
  } catch (const Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not a relax::Error: " << e.what();
  }
}

TEST(RelayRobust, EveryPrefixOfTheCorpus) {
  for (const auto& entry : fs::directory_iterator(fs::path(RELAX_SOURCE_DIR) / "tests" / "relay" / "corpus")) {
    std::string text = read(entry.path());
    for (size_t n = 0; n < text.size(); n += 7) import_or_error(text.substr(0, n), entry.path().filename().string() + " prefix " + std::to_string(n));
  }
}

TEST(RelayRobust, CorruptedBytes) {
  const std::string text = read(fs::path(RELAX_SOURCE_DIR) / "tests" / "relay" / "corpus" / "metadata.relay");
  const char replacements[] = {'(', ')', '%', '"', '[', '0', ']', '{', '}', '-', '/', '*', '\0', 'A'};
  for (size_t pos = 0; pos < text.size(); pos += 5) {
    std::string bad = text;
    bad[pos] = replacements[pos % sizeof(replacements)];
    import_or_error(bad, "byte " + std::to_string(pos));
  }
}

}  // namespace
}  // namespace relax::relay_test

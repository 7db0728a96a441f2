// The Relay text lexer (lexer.cc): the text as tokens, comments skipped. `#[metadata]` ends the
// token stream; its place is kept so that the parser can decode the JSON that follows.
#pragma once

#include <string>
#include <vector>

#include "relay_ast.h"

namespace relax::relay_frontend {

struct Token {
  enum class Kind {
    kLocal,    ///< %x, %0 (text: without '%')
    kGlobal,   ///< @f (text: without '@')
    kIdent,    ///< nn.conv2d, float32, Tensor, let (dotted names joined)
    kInt,      ///< 3, 3i64, 3u8 (text: the digits; suffix: "i64")
    kFloat,    ///< 1.5, 1f, 1e-05f, 2f16 (text: the number; suffix: "f16")
    kString,   ///< "NCHW" (text: unescaped)
    kPunct,    ///< ( ) [ ] { } , ; : = . ? -> #[ and the operators + - * / < > <= >= == !=
    kMetadata, ///< #[metadata] (the JSON follows at `offset`)
    kEnd,
  };
  Kind kind = Kind::kEnd;
  std::string text;
  std::string suffix;
  Loc loc;
  size_t offset = 0;  ///< kMetadata: where the JSON starts
};

/// Tokenizes `src`; a relax::Error at the first bad character or unterminated comment/string.
std::vector<Token> tokenize(const Source& src);

}  // namespace relax::relay_frontend

// The Relay frontend's internals (never installed): the syntax tree the parser (parser.cc)
// builds from Relay text (format 0.0.5, as TVM v0.8-v0.14 print and parse it), the metadata
// decoder (metadata.cc) and the converter to Relax (convert.cc, ops_*.cc).
//
// The tree is untyped: types are checked while converting, where Relax infers them. Every node
// keeps its place (line, column) so that conversion errors can point at the text with a caret
// (Source::error). ADTs are recognised by the parser and refused there with one error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "relax/runtime/ndarray.h"

namespace relax::relay_frontend {

/// A place in the text: 1-based line and column.
struct Loc {
  int line = 0;
  int col = 0;
};

/// The text being parsed, for messages "file:line:col: msg" followed by the line and a caret.
class Source {
 public:
  Source(std::string file, std::string text);
  const std::string& file() const { return file_; }
  const std::string& text() const { return text_; }
  /// "file:line:col: `msg`\n  <line>\n  ^" .
  std::string format(Loc loc, const std::string& msg) const;
  /// Throws a relax::Error with format(loc, msg).
  [[noreturn]] void error(Loc loc, const std::string& msg) const;

 private:
  std::string file_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

// ---- Types.

struct Type;
using TypeP = std::shared_ptr<const Type>;

/// One dim of a tensor type: a number, `?` (unknown) or a name (a symbolic size).
struct Dim {
  int64_t value = -1;  ///< >= 0 for a number
  std::string name;    ///< for a named dim
  bool any() const { return value < 0 && name.empty(); }
};

struct Type {
  enum class Kind { kTensor, kTuple, kFunc, kIncomplete };
  Kind kind = Kind::kIncomplete;
  Loc loc;
  std::vector<Dim> dims;       ///< kTensor
  std::string dtype;           ///< kTensor: "float32"
  std::vector<TypeP> fields;   ///< kTuple: the fields; kFunc: the parameters
  TypeP ret;                   ///< kFunc
};

/// The type as Relay writes it: "Tensor[(1, ?), float32]".
std::string type_string(const Type& t);

// ---- Attribute values of calls and functions.

struct AttrValue {
  enum class Kind { kInt, kFloat, kString, kBool, kNone, kList };
  Kind kind = Kind::kNone;
  Loc loc;
  int64_t i = 0;
  double f = 0;
  std::string s;
  bool b = false;
  std::vector<AttrValue> list;
};

// ---- Expressions.

struct Node;
using NodeP = std::shared_ptr<const Node>;

struct Param {
  std::string name;  ///< without the '%'
  TypeP type;        ///< null when not annotated
  Loc loc;
};

struct Node {
  enum class Kind {
    kVar,      ///< %name (name)
    kGlobal,   ///< @name (name)
    kOp,       ///< an operator name: nn.conv2d (name)
    kLiteral,  ///< 1f, 2i64, True (number, dtype)
    kMeta,     ///< meta[relay.Constant][N] (name = "relay.Constant", index)
    kCall,     ///< a(args..., attrs...)
    kTuple,    ///< (args...)
    kProj,     ///< a.index
    kLet,      ///< let %name (: type)? = a; b   (also the graph form %name = a; b)
    kIf,       ///< if (a) { b } else { c }
    kFunc,     ///< fn (params, attrs) -> ret { a }
  };
  Node(Kind k, Loc l, std::string n = {}) : kind(k), loc(l), name(std::move(n)) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  /// Releases a let chain (`b`) iteratively: chains are as long as the program.
  ~Node() {
    while (b && b.use_count() == 1) {
      NodeP rest = std::move(const_cast<Node&>(*b).b);
      b = std::move(rest);
    }
  }
  Kind kind;
  Loc loc;
  std::string name;
  double number = 0;  ///< kLiteral
  std::string dtype;  ///< kLiteral: "float32", "int64", "bool"
  int64_t index = 0;  ///< kMeta, kProj
  NodeP a, b, c;
  std::vector<NodeP> args;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<Param> params;  ///< kFunc
  TypeP type;                 ///< kLet: the annotation; kFunc: the return type (may be null)
};

/// A use of an ADT feature (type parameters, ADT types, constructors, match).
struct AdtUse {
  Loc loc;
  std::string what;  ///< "constructor 'Cons'"
};

/// A `def @name(...)` of the module.
struct GlobalDef {
  std::string name;
  NodeP fn;  ///< a kFunc node
  Loc loc;
  /// The first ADT feature the def uses: it is not converted (an error only when called).
  std::optional<AdtUse> adt;
};

/// A parsed Relay program: the defs (a bare `fn` program becomes def "main"), and the
/// constants of the `#[metadata]` section, in meta[relay.Constant] order.
struct Program {
  std::vector<GlobalDef> defs;
  /// ADT type definitions (`type List[A] {...}`), parsed and skipped.
  std::vector<std::string> adt_types;
  std::vector<runtime::NDArray> constants;
  bool has_metadata = false;
  Loc metadata_loc;
};

/// Parses Relay text; errors are relax::Errors placed by `src`.
Program parse_program(const Source& src);

/// Decodes the `#[metadata]` JSON (TVM's object graph with base64 NDArrays) starting at byte
/// `offset` of the text: the relay.Constant array, in order. Errors name the place.
std::vector<runtime::NDArray> decode_metadata(const Source& src, size_t offset, Loc loc);

/// Decodes one NDArray in TVM's save format (magic, reserved, DLDevice, ndim, DLDataType,
/// shape, byte count, data); `what` names it in errors.
runtime::NDArray decode_ndarray(const std::string& bytes, const std::string& what);
/// Base64 (RFC 4648, with or without padding); nullopt on a bad character or length.
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace relax::relay_frontend

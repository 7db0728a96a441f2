// Index maps: the compact form of a layout rewrite, `lambda i, j: (i // 4, j, i % 4)`, read as
// out[map(i)] = in[i] (relax.layout_transform, TIR's transform_layout).
//
// The maps this file understands are mixed-radix rearrangements: every input index is cut into
// pieces `(v // lo) % ext` (lo = 1 and ext = the rest of the axis for a whole index), and every
// result is a dense mixed-radix number of pieces, `p0 + p1 * ext0 + p2 * ext0 * ext1 ...`
// (a constant 0 result is a unit axis). That covers permutations, tiling (`c // 4, c % 4`),
// untiling (`a * 4 + c`), fusing (`i * 3 + j`) and splitting of axes. Such a map is injective;
// it is bijective unless a tiled axis does not divide (then the result has padding positions
// no input maps to). Anything else (offsets, overlaps, `i + j`) is "not a rearrangement" and
// the functions below say so by returning nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/arith/analyzer.h"
#include "relax/tir/expr.h"

namespace relax::arith {

/// `lambda vars: (results)`: one variable per input axis, one expression per result axis.
struct IndexMap {
  std::vector<Ref<tir::Var>> vars;
  std::vector<PrimExpr> results;

  /// "lambda i, j: (i // 4, j, i % 4)" (the form error messages and docs use).
  std::string to_string() const;
  /// The results with `indices` substituted for the variables (indices.size() == vars.size()).
  std::vector<PrimExpr> apply(const std::vector<PrimExpr>& indices) const;
};

/// The inverse of `map` over an input of `shape` (one extent per variable): a map from the
/// result indices back to the input indices, the identity on every position some input maps
/// to. Nothing when `map` is not a mixed-radix rearrangement (see the file comment) or the
/// extents needed to prove it are not known. `padded` (optional) is set when some result
/// positions have no input (a tiled axis that does not divide).
std::optional<IndexMap> inverse_map(const IndexMap& map, const std::vector<PrimExpr>& shape,
                                    bool* padded = nullptr);

/// The extents of `map`'s result over an input of `shape`, or nothing when `map` is not a
/// rearrangement.
std::optional<std::vector<PrimExpr>> mapped_shape(const IndexMap& map,
                                                  const std::vector<PrimExpr>& shape);

/// `second` after `first`: lambda x: second(first(x)), simplified with each variable of
/// `first` bounded by `shape` (first's input extents).
IndexMap compose_maps(const IndexMap& first, const IndexMap& second,
                      const std::vector<PrimExpr>& shape);

/// True when `map` provably sends every index of an input of `shape` to itself (same rank,
/// each result simplifies to its variable under the shape's bounds).
bool is_identity_map(const IndexMap& map, const std::vector<PrimExpr>& shape);

/// The permutation `map` performs (result k is variable perm[k]), or nothing when it is not a
/// plain permutation of its variables.
std::optional<std::vector<int64_t>> as_permutation(const IndexMap& map);

}  // namespace relax::arith

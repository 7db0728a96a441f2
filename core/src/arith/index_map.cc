// Index maps as mixed-radix rearrangements (arith/index_map.h).
//
// The analysis cuts each result expression (simplified under the input's bounds) into pieces
// `(v // lo) % ext * scale`, then checks the two radix conditions: within a result the scales
// are 1, ext0, ext0 * ext1, ... (dense, no overlap), and within an input index the pieces' `lo`
// are 1, ext0, ext0 * ext1, ... with the top piece covering the rest of the axis. Both hold
// exactly for the rearrangements; the inverse then reads each piece back out of its result.
#include "relax/arith/index_map.h"

#include <algorithm>

#include "relax/tir/expr_functor.h"

namespace relax::arith {

namespace {

using tir::int_imm;

/// `(vars[var] // lo) % ext`, multiplied by `scale`, inside one result.
struct Piece {
  size_t var = 0;
  int64_t lo = 1;
  PrimExpr ext;
  int64_t scale = 1;
  size_t result = 0;
};

class Cutter {
 public:
  Cutter(const IndexMap& map, const std::vector<PrimExpr>& shape, Analyzer& ana)
      : map_(map), shape_(shape), ana_(ana) {}

  std::optional<std::vector<Piece>> cut(const PrimExpr& e) {
    if (const int64_t* c = tir::as_const_int(e)) {
      if (*c == 0) return std::vector<Piece>{};
      return std::nullopt;
    }
    if (auto* v = e.as<tir::Var>()) {
      for (size_t k = 0; k < map_.vars.size(); ++k)
        if (map_.vars[k].get() == v) return std::vector<Piece>{Piece{k, 1, shape_[k], 1, 0}};
      return std::nullopt;
    }
    if (auto* b = e.as<tir::Add>()) {
      auto l = cut(b->a), r = cut(b->b);
      if (!l || !r) return std::nullopt;
      l->insert(l->end(), r->begin(), r->end());
      return l;
    }
    if (auto* b = e.as<tir::Mul>()) {
      const int64_t* c = tir::as_const_int(b->b);
      PrimExpr other = b->a;
      if (!c) {
        c = tir::as_const_int(b->a);
        other = b->b;
      }
      if (!c || *c <= 0) return std::nullopt;
      auto p = cut(other);
      if (!p) return std::nullopt;
      for (Piece& q : *p) q.scale *= *c;
      return p;
    }
    if (auto* b = e.as<tir::FloorDiv>()) {
      const int64_t* c = tir::as_const_int(b->b);
      if (!c || *c <= 0) return std::nullopt;
      auto p = cut(b->a);
      if (!p) return std::nullopt;
      if (p->size() == 1 && (*p)[0].scale == 1) {
        Piece& q = (*p)[0];
        q.lo *= *c;
        q.ext = ana_.simplify(tir::floordiv(q.ext + (*c - 1), *c));
        return p;
      }
      for (Piece& q : *p) {
        if (q.scale % *c != 0) return std::nullopt;
        q.scale /= *c;
      }
      return p;
    }
    if (auto* b = e.as<tir::FloorMod>()) {
      const int64_t* c = tir::as_const_int(b->b);
      if (!c || *c <= 0) return std::nullopt;
      auto p = cut(b->a);
      if (!p || p->size() != 1 || (*p)[0].scale != 1) return std::nullopt;
      Piece& q = (*p)[0];
      if (!ana_.can_prove(tir::le(q.ext, int_imm(*c)))) q.ext = int_imm(*c);
      return p;
    }
    return std::nullopt;
  }

 private:
  const IndexMap& map_;
  const std::vector<PrimExpr>& shape_;
  Analyzer& ana_;
};

/// The pieces of every result (in one list, Piece::result saying whose) and the extent of
/// each result, when `map` is a rearrangement over `shape`; `padded` as in inverse_map.
struct Analysis {
  std::vector<Piece> pieces;
  std::vector<PrimExpr> extents;
  bool padded = false;
};

void bind_shape(Analyzer& ana, const IndexMap& map, const std::vector<PrimExpr>& shape) {
  for (size_t k = 0; k < map.vars.size() && k < shape.size(); ++k)
    ana.bind_range(map.vars[k], int_imm(0), shape[k]);
}

std::optional<Analysis> analyse(const IndexMap& map, const std::vector<PrimExpr>& shape) {
  if (map.vars.size() != shape.size()) return std::nullopt;
  Analyzer ana;
  bind_shape(ana, map, shape);
  Cutter cutter(map, shape, ana);
  Analysis out;
  for (size_t j = 0; j < map.results.size(); ++j) {
    auto p = cutter.cut(ana.simplify(map.results[j]));
    if (!p) return std::nullopt;
    std::sort(p->begin(), p->end(), [](const Piece& a, const Piece& b) { return a.scale < b.scale; });
    // Dense: scales 1, ext0, ext0 * ext1, ...; every extent but the top one constant.
    int64_t next = 1;
    for (size_t k = 0; k < p->size(); ++k) {
      Piece& q = (*p)[k];
      q.result = j;
      if (q.scale != next) return std::nullopt;
      if (k + 1 < p->size()) {
        const int64_t* e = tir::as_const_int(q.ext);
        if (!e) return std::nullopt;
        next *= *e;
      }
    }
    out.extents.push_back(p->empty() ? int_imm(1) : ana.simplify(p->back().ext * p->back().scale));
    out.pieces.insert(out.pieces.end(), p->begin(), p->end());
  }
  // Covering: each index's pieces have lo 1, ext0, ext0 * ext1, ... and the top one reaches the
  // end of the axis.
  for (size_t v = 0; v < map.vars.size(); ++v) {
    std::vector<const Piece*> mine;
    for (const Piece& q : out.pieces)
      if (q.var == v) mine.push_back(&q);
    std::sort(mine.begin(), mine.end(), [](const Piece* a, const Piece* b) { return a->lo < b->lo; });
    if (mine.empty()) {
      if (!ana.can_prove(tir::eq(shape[v], int_imm(1)))) return std::nullopt;
      continue;
    }
    int64_t next = 1;
    for (size_t k = 0; k < mine.size(); ++k) {
      if (mine[k]->lo != next) return std::nullopt;
      if (k + 1 < mine.size()) {
        const int64_t* e = tir::as_const_int(mine[k]->ext);
        if (!e) return std::nullopt;
        next *= *e;
      }
    }
    const Piece& top = *mine.back();
    PrimExpr need = ana.simplify(tir::floordiv(shape[v] + (top.lo - 1), top.lo));
    if (!ana.prove_equal(top.ext, need)) return std::nullopt;
    if (!ana.can_prove(tir::eq(tir::floormod(shape[v], top.lo), int_imm(0)))) out.padded = true;
  }
  return out;
}

}  // namespace

std::string IndexMap::to_string() const {
  std::string s = "lambda ";
  for (size_t k = 0; k < vars.size(); ++k) s += (k ? ", " : "") + vars[k]->name;
  s += ": (";
  for (size_t k = 0; k < results.size(); ++k) s += (k ? ", " : "") + tir::to_string(results[k]);
  return s + ")";
}

std::vector<PrimExpr> IndexMap::apply(const std::vector<PrimExpr>& indices) const {
  std::vector<PrimExpr> out;
  for (const PrimExpr& r : results)
    out.push_back(tir::substitute(r, [&](const tir::Var* v) -> PrimExpr {
      for (size_t k = 0; k < vars.size() && k < indices.size(); ++k)
        if (vars[k].get() == v) return indices[k];
      return PrimExpr();
    }));
  return out;
}

std::optional<IndexMap> inverse_map(const IndexMap& map, const std::vector<PrimExpr>& shape,
                                    bool* padded) {
  auto a = analyse(map, shape);
  if (!a) return std::nullopt;
  if (padded) *padded = a->padded;
  IndexMap inv;
  for (size_t j = 0; j < map.results.size(); ++j) inv.vars.push_back(tir::var("ax" + std::to_string(j)));
  std::vector<size_t> count(map.results.size(), 0);
  std::vector<int64_t> top_scale(map.results.size(), 0);
  for (const Piece& q : a->pieces) {
    ++count[q.result];
    top_scale[q.result] = std::max(top_scale[q.result], q.scale);
  }
  for (size_t v = 0; v < map.vars.size(); ++v) {
    PrimExpr sum = int_imm(0);
    for (const Piece& q : a->pieces) {
      if (q.var != v) continue;
      PrimExpr o = inv.vars[q.result];
      PrimExpr value = q.scale == 1 ? o : tir::floordiv(o, q.scale);
      if (count[q.result] > 1 && q.scale != top_scale[q.result]) value = tir::floormod(value, q.ext);
      sum = sum + value * q.lo;
    }
    inv.results.push_back(simplify(sum));
  }
  return inv;
}

std::optional<std::vector<PrimExpr>> mapped_shape(const IndexMap& map,
                                                  const std::vector<PrimExpr>& shape) {
  auto a = analyse(map, shape);
  if (!a) return std::nullopt;
  return a->extents;
}

IndexMap compose_maps(const IndexMap& first, const IndexMap& second,
                      const std::vector<PrimExpr>& shape) {
  Analyzer ana;
  bind_shape(ana, first, shape);
  IndexMap out{first.vars, {}};
  for (const PrimExpr& r : second.apply(first.results)) out.results.push_back(ana.simplify(r));
  return out;
}

bool is_identity_map(const IndexMap& map, const std::vector<PrimExpr>& shape) {
  if (map.results.size() != map.vars.size() || shape.size() != map.vars.size()) return false;
  Analyzer ana;
  bind_shape(ana, map, shape);
  for (size_t k = 0; k < map.vars.size(); ++k)
    if (!ana.prove_equal(map.results[k], map.vars[k])) return false;
  return true;
}

std::optional<std::vector<int64_t>> as_permutation(const IndexMap& map) {
  if (map.results.size() != map.vars.size()) return std::nullopt;
  std::vector<int64_t> perm;
  std::vector<bool> seen(map.vars.size(), false);
  for (const PrimExpr& r : map.results) {
    auto* v = r.as<tir::Var>();
    size_t k = 0;
    while (k < map.vars.size() && map.vars[k].get() != v) ++k;
    if (v == nullptr || k == map.vars.size() || seen[k]) return std::nullopt;
    seen[k] = true;
    perm.push_back(int64_t(k));
  }
  return perm;
}

}  // namespace relax::arith

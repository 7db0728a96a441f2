// Layout rewrites as the layout passes see them (the design's compact form): a call of
// relax.layout_transform, relax.permute_dims (a permutation map), relax.pad or relax.crop.
//
// A bijective rewrite (layout_transform without padding, permute_dims) is read as an
// arith::IndexMap over its operand's shape; folding, flowing and freezing all work on that
// form and build relax.layout_transform (or permute_dims, for a permutation) back from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "relax/arith/index_map.h"
#include "relax/ir/expr.h"
#include "relax/ir/op.h"

namespace relax::layout {

/// The PrimFunc attribute the LLVM backend reads (llvm_backend::kAttrWeightPanel): a right
/// operand stored in column panels of this width (pack-weights, freeze-layout's llvm request);
/// the register-blocked rule must then take exactly that panel.
inline constexpr const char* kAttrWeightPanel = "weight_panel";

/// The host's float32 SIMD lanes: 16 (AVX-512F), 8 (AVX2), 4 (anything else: SSE, NEON). The
/// layout passes size tiles and panels for the machine that compiles (the llvm target's default
/// is the host; a pipeline for another machine gives the sizes as options).
inline int64_t host_lanes() {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2")) return 8;
#endif
  return 4;
}

/// The op name of `call` ("" when it does not call an Op).
std::string op_name(const Call& call);

/// The constant-or-symbolic shape of `e`'s tensor struct info, if known.
std::optional<std::vector<PrimExpr>> shape_of(const Expr& e);

/// The map of a bijective rewrite (permute_dims, or layout_transform whose map is a
/// rearrangement without padding over its operand), or nothing.
std::optional<arith::IndexMap> rewrite_map(const Call& call);

/// `map` applied to `x`, as permute_dims when it is a permutation (not the identity: callers
/// drop those), else as layout_transform.
Expr apply_map(const Expr& x, const arith::IndexMap& map);

/// `map` with fresh variables (named after the originals), so that two uses do not share them.
arith::IndexMap fresh_copy(const arith::IndexMap& map);

/// Folds `outer` applied to the result of `inner` (both rewrites, inner's result the operand of
/// outer) into one rewrite of inner's operand, or into that operand itself; nothing when the
/// pair does not fold. The rules (the design's "Folding adjacent layout rewrites"):
///  - two index maps compose (permute_dims and layout_transform alike); a map followed by its
///    inverse cancels;
///  - a crop after a pad always folds (into a smaller pad, a crop of the operand, or nothing);
///  - a pad after a crop folds only when it restores exactly the cropped positions and the
///    crop's `cropped_value` promises the pad's value.
std::optional<Expr> fold_pair(const Call& outer, const Call& inner);

/// fold-layout on one function (fold_layout.cc): adjacent rewrites folded, rewrites of
/// constants computed; dead bindings stay.
Ref<Function> fold_layout_rewrites(const Ref<Function>& func);

}  // namespace relax::layout

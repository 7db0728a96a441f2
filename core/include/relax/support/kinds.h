// Kind-tag ranges. Each IR numbers its node kinds from its own base, generated from that IR's
// one node list (an X-macro), so kind tags are unique across every node type in the process.
#pragma once

#include <cstdint>

namespace relax {

inline constexpr uint32_t kPrimExprKindBase = 0x0100;    ///< tir/expr.h
inline constexpr uint32_t kRelaxExprKindBase = 0x0200;   ///< ir/expr.h
inline constexpr uint32_t kStructInfoKindBase = 0x0300;  ///< ir/struct_info.h
inline constexpr uint32_t kBindingKindBase = 0x0400;     ///< ir/expr.h (bindings and blocks)
inline constexpr uint32_t kTirStmtKindBase = 0x0500;     ///< tir/stmt.h
inline constexpr uint32_t kTirMiscKindBase = 0x0600;     ///< tir buffers, iteration variables, PrimFunc
inline constexpr uint32_t kMiscKindBase = 0x0700;        ///< IRModule, op attributes, ...
inline constexpr uint32_t kRuntimeKindBase = 0x0800;     ///< runtime objects

}  // namespace relax

// Targets: what kernels are compiled for, written as a kind and attributes.
//
//   Target t = Target::parse("llvm,mcpu=skylake-avx512,opt-level=2");
//   t.kind == "llvm"; t.attr("mcpu") == "skylake-avx512"; t.attr_string() == "mcpu=...,opt-level=2"
//
// `Target` itself and the registry of target kinds live in the transform area
// (relax/transform/target_kind.h), beside the plugin registrar through which backends register
// their kinds; the target area resolves a target string against a session's kinds
// (relax/target/targets.h). The kind names a backend: "tir-interp" is core's (kernels run by
// the TIR reference interpreter); every other kind is registered by a backend plugin
// (librelax-<kind>.so, loaded on demand) together with the packed function that builds its
// kernel library (TargetKind::build_function, by convention backend_build_function(kind)):
//   (attrs: str, name0: str, func0: PrimFunc, name1, func1, ...) -> Tuple(format: str, bytes: str)
// It receives the module's PrimFuncs unscheduled and unlowered (it applies its own default
// schedules, lowers and compiles them) and returns one kernel library. The attribute string
// is the target validated against the kind's schema, defaults filled in.
#pragma once

#include <string>
#include <string_view>

#include "relax/transform/target_kind.h"

namespace relax {

/// The conventional name of the packed function a backend of `kind` registers to build
/// kernel libraries ("relax.backend.<kind>.build").
std::string backend_build_function(std::string_view kind);

}  // namespace relax

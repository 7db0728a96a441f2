// Inputs of a run: tensors from files (.npy, ONNX TensorProto .pb) or random ones made from
// the parameter types an executable records, and the small integer inputs a frontend may
// specialise on. Shared by relax-driver and relax-conformance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relax/runtime/executable.h"
#include "relax/runtime/value.h"

namespace relax::tools {

/// A tensor parameter's type as the executable records it (to_string of its struct info):
/// `Tensor((n, 4), float32)`; the TVMScript spelling `R.Tensor((n, 4), "float32")` is read too.
struct TensorType {
  std::vector<std::string> dims;  ///< integers or symbolic names
  std::string dtype;
};
/// The type `text` spells, or nullopt when it is not a tensor of known rank.
std::optional<TensorType> parse_tensor_type(std::string text);

/// What the command line says about a function's inputs.
struct InputSpec {
  std::vector<std::string> inputs;  ///< NAME=FILE, or FILE for the next parameter in order
  std::vector<std::string> dims;    ///< NAME=VALUE: symbolic dims of random inputs (default 1)
  uint32_t seed = 0;                ///< seed of the random inputs
};

/// The arguments of `f`: the files given, random data (uniform [-1, 1) for floats, float16 and
/// bfloat16 rounded to nearest; [0, 10) for integers) for the others. Throws relax::Error naming
/// the parameter or the option when they do not fit.
std::vector<runtime::Value> make_inputs(const InputSpec& spec, const runtime::FunctionInfo& f);

/// Frontend options giving the importer the values of inputs (ONNX `value.NAME=FILE`, with
/// `unknown-values=ignore`): of `specs` (NAME=FILE, or FILE of a .pb naming its tensor), those
/// holding small integer tensors (rank 0 or 1, at most 64 elements) — the axes, counts and
/// shapes an importer needs as static values. The importer guards each one it uses at run time.
std::map<std::string, std::string> input_value_options(const std::vector<std::string>& specs);

}  // namespace relax::tools

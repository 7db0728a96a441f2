// Helpers shared by the builtin files (not installed).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "relax/runtime/packed_func.h"
#include "relax/runtime/registry.h"

namespace relax::runtime::builtin {

/// Registers `body` as "vm.builtin.<name>"; replaces nothing that is already there.
void define(std::string_view name, PackedFuncObj::Body body);

/// Argument `index` as an int/string/tensor/shape; errors name the builtin and the argument.
int64_t int_arg(std::string_view builtin, Args args, size_t index, const char* what);
const std::string& string_arg(std::string_view builtin, Args args, size_t index, const char* what);
NDArray tensor_arg(std::string_view builtin, Args args, size_t index, const char* what);
Shape shape_arg(std::string_view builtin, Args args, size_t index, const char* what);

/// Writes `v` for print: tensors as their description and first elements, tuples in ().
void print_value(std::ostream& os, const Value& v);

void register_memory_builtins();
void register_shape_builtins();
void register_misc_builtins();
void register_vision_builtins();
void register_index_builtins();
void register_format_builtins();

}  // namespace relax::runtime::builtin

// The position of a flat element in a row-major shape, as error messages name it ("[1, 0]"):
// the index checks of the gathers and scatters report the offending index by it, at import
// (the ONNX frontend) and at run time (vm.builtin.check_indices).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace relax::runtime {

/// The multi-index of flat element `flat` of `shape`, as "[i, j]" (0 for empty axes).
inline std::string index_position(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t a = shape.size(); a-- > 0;) {
    idx[a] = shape[a] ? flat % shape[a] : 0;
    flat = shape[a] ? flat / shape[a] : 0;
  }
  std::ostringstream os;
  os << "[";
  for (size_t a = 0; a < idx.size(); ++a) os << (a ? ", " : "") << idx[a];
  os << "]";
  return os.str();
}

}  // namespace relax::runtime

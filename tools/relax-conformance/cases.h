// relax-conformance's test cases: the directories in the ONNX backend-test layout under a root
// (OUTDIR/node/test_x, OUTDIR/simple/test_y, or test directories given directly), each
// classified from its model.onnx: the op type its failures are grouped under, and whether it
// is outside what is measured (training-only ops; random outputs: random ops and Dropout in
// training mode; sequence, optional or map values).
#pragma once

#include <string>
#include <vector>

namespace relax::conformance {

struct Case {
  std::string name;      ///< "node/test_abs": the path below the root
  std::string dir;       ///< the case directory
  std::string op_type;   ///< the op under test (an "_expanded" case: its base case's op)
  std::string excluded;  ///< why the case is not counted; empty: it is counted
};

/// The cases under `root` (itself, or directories up to two levels down holding model.onnx),
/// sorted by name, keeping those whose name contains `filter`. Throws relax::Error when
/// `root` does not exist or a model cannot be parsed.
std::vector<Case> discover_cases(const std::string& root, const std::string& filter);

}  // namespace relax::conformance

// Showing and saving a run's outputs.
#pragma once

#include <iosfwd>
#include <string>

#include "relax/runtime/value.h"

namespace relax::tools {

/// "LABEL: tensor (2, 3) float32 [v0, v1, ...]  sum=S" (at most `limit` elements), or the
/// value's description for non-tensors.
void print_value(std::ostream& os, const std::string& label, const runtime::Value& v, int limit);

/// Prints the outputs to `os` (labelled "PREFIXoutput i"; print_limit < 0: not printed) and
/// writes them as DIR/output_<i>.npy when `dir` is given.
void report_outputs(const runtime::Value& result, const std::string& prefix, const std::string& dir,
                    int print_limit, std::ostream& os);

}  // namespace relax::tools

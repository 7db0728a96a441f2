// Read-only IR nodes for Python visitors and mutators (relax/ir.py builds on them).
#include "bindings.h"

namespace relax::python {

void bind_nodes(py::module_& m) {}

}  // namespace relax::python

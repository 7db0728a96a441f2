// Passes written in Python, registered in the session's pass registry.
#include "bindings.h"

namespace relax::python {

void bind_passes(py::module_& m) {}

}  // namespace relax::python

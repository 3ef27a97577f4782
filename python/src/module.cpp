// mxv._core: the compiled half of the Python module. Each file binds one concept; the Python
// package (python/mxv) turns numpy arrays, torch tensors and shapes into what these take.
#include <nanobind/nanobind.h>

#include "bindings.h"

NB_MODULE(_core, m) {
  m.doc() = "Compiled core of the mxv Python module; use the `mxv` package, not this module.";
  m.attr("__version__") = MXV_VERSION;
  mxv::python::bind_formats(m);
  mxv::python::bind_recipe(m);
  mxv::python::bind_quantize(m);
  mxv::python::bind_check(m);
}

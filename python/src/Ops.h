//===- Ops.h - tessera.ops' library operations -----------------*- C++ -*-===//

#ifndef TESSERA_PYTHON_OPS_H
#define TESSERA_PYTHON_OPS_H

#include <nanobind/nanobind.h>

namespace tessera::python {
/// Adds the library operations (class Library) and quantize_weights to `m`.
void bindOps(nanobind::module_ &m);
} // namespace tessera::python

#endif // TESSERA_PYTHON_OPS_H

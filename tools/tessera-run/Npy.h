//===- Npy.h - NumPy .npy arrays for tessera-run ---------------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (version 1.0 and 2.0 headers, C
// order): how tessera-run hands a kernel's inputs to a user's own
// reference program and reads that program's expected outputs back.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_TESSERA_RUN_NPY_H
#define TESSERA_TOOLS_TESSERA_RUN_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::run {

/// An array's shape and values (as doubles: every element type a view
/// holds converts exactly).
struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// Reads `path`: element types f2, f4, f8, i1, i2, i4, i8, u1, u2, u4, u8
/// and b1 (little endian or byte-sized). Returns false with `error` set on
/// anything else (Fortran order, other types, a short file).
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// Writes `values` of `shape` to `path` with NumPy's element type `descr`
/// ("<f4", "<f2", "|i1", "<i4" or "<i8"), converting each value to it.
bool writeNpy(const std::string &path, const std::vector<int64_t> &shape,
              const std::vector<double> &values, const std::string &descr,
              std::string &error);

} // namespace tessera::run

#endif // TESSERA_TOOLS_TESSERA_RUN_NPY_H

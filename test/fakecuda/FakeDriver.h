//===- FakeDriver.h - What the stand-in GPU drivers share -------*- C++ -*-===//
//
// test/fakecuda (libcuda.so.1) and test/fakehip (libamdhip64.so) stand in
// for the GPU drivers over host memory: both read their settings from the
// environment, log loads and launches to a file, time events on the host
// clock and run the one kernel they know from its launch parameters.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TEST_FAKEDRIVER_H
#define TESSERA_TEST_FAKEDRIVER_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace fake {

inline int env(const char *name, int fallback) {
  const char *value = std::getenv(name);
  return value ? std::atoi(value) : fallback;
}

/// Appends `line` to the file the environment variable `variable` names.
inline void log(const char *variable, const std::string &line) {
  if (const char *path = std::getenv(variable))
    if (FILE *file = std::fopen(path, "a")) {
      std::fprintf(file, "%s\n", line.c_str());
      std::fclose(file);
    }
}

/// "launch NAME grid X Y Z block X Y Z shared BYTES".
inline std::string launchLine(const std::string &name, unsigned gx, unsigned gy,
                              unsigned gz, unsigned bx, unsigned by,
                              unsigned bz, unsigned shared) {
  return "launch " + name + " grid " + std::to_string(gx) + " " +
         std::to_string(gy) + " " + std::to_string(gz) + " block " +
         std::to_string(bx) + " " + std::to_string(by) + " " +
         std::to_string(bz) + " shared " + std::to_string(shared);
}

struct Event {
  std::chrono::steady_clock::time_point when;
};

template <typename T> T param(void **params, int index) {
  T value;
  std::memcpy(&value, params[index], sizeof(T));
  return value;
}

/// Runs test/unit/Inputs/scale.mlir's `scale(X, Y, factor)` (Y[i] = factor
/// * X[i], 64 elements per program) from its launch parameters: X and Y as
/// {allocated, aligned, offset, size, stride}, then the factor.
inline void runScale(void **params, unsigned gx) {
  auto *x = param<float *>(params, 1) + param<int64_t>(params, 2);
  int64_t n = param<int64_t>(params, 3), xStride = param<int64_t>(params, 4);
  auto *y = param<float *>(params, 6) + param<int64_t>(params, 7);
  int64_t yStride = param<int64_t>(params, 9);
  float factor = param<float>(params, 10);
  for (int64_t i = 0; i < int64_t(gx) * 64 && i < n; ++i)
    y[i * yStride] = factor * x[i * xStride];
}

} // namespace fake

#endif // TESSERA_TEST_FAKEDRIVER_H

//===- BundleFile.h - Load a bundle file the build made ---------*- C++ -*-===//

#ifndef TESSERA_TEST_UNIT_BUNDLEFILE_H
#define TESSERA_TEST_UNIT_BUNDLEFILE_H

#include "tessera/runtime/tessera_runtime.h"

#include <fstream>
#include <sstream>
#include <string>

namespace tessera::test {
/// Loads the bundle at `path` on `device`; the status says how it went.
inline tessera_status loadBundleFile(tessera_device *device, const char *path,
                                     tessera_module **module) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  std::string bundle = bytes.str();
  return tesseraModuleLoad(device, bundle.data(), bundle.size(), module);
}

/// Launches the kernel named `name` of `module` and waits for it.
inline tessera_status launchNamed(tessera_module *module, const char *name,
                                  tessera_grid grid, void *const *args) {
  tessera_kernel *kernel = nullptr;
  if (tessera_status status = tesseraModuleGetKernel(module, name, &kernel))
    return status;
  return tesseraLaunch(kernel, grid, args, nullptr);
}
} // namespace tessera::test

#endif // TESSERA_TEST_UNIT_BUNDLEFILE_H

//===- Compare.h - Any kernel: a device's image against the host's -*- C++ -*-//

#ifndef TESSERA_TOOLS_TESSERA_RUN_COMPARE_H
#define TESSERA_TOOLS_TESSERA_RUN_COMPARE_H

#include "tessera/runtime/tessera.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::run {

struct CompareOptions {
  /// The reference image: "host", or "emu" (exact: small-integer inputs,
  /// equal bits required).
  std::string reference = "host";
  std::string bundle, kernel, device = "emu", chip;
  bool races = false;
  int64_t grid[3] = {1, 1, 1};
  /// (argument index, "D0xD1...") and (argument index, value).
  std::vector<std::pair<int64_t, std::string>> views, scalars;
  int64_t seed = 1, threads = -1, programs = -1;
  /// Another kernel as the reference (of `referenceBundle`, or the same
  /// bundle), launched on `referenceGrid`.
  std::string referenceKernel, referenceBundle;
  int64_t referenceGrid[3] = {1, 1, 1};
  /// A user's inputs (DIR/argI.npy where present) and where to write the
  /// inputs instead of running anything.
  std::string inputs, saveInputs;
  /// (view index, .npy file): the expected outputs, instead of a reference
  /// image.
  std::vector<std::pair<int64_t, std::string>> expected;
};

/// Runs the comparison; prints one line per view and PASS or FAIL. Returns
/// 0 (pass), 1 (fail) or 2 (usage or setup error). Outputs start poisoned
/// (NaN, or 0x5A bytes for integers) on both sides, so an element the
/// tested image leaves unwritten fails.
int runCompare(const CompareOptions &options);

} // namespace tessera::run

#endif // TESSERA_TOOLS_TESSERA_RUN_COMPARE_H

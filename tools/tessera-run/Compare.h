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
};

/// Runs the comparison; prints one line per view and PASS or FAIL. Returns
/// 0 (pass), 1 (fail) or 2 (usage or setup error).
int runCompare(const CompareOptions &options);

} // namespace tessera::run

#endif // TESSERA_TOOLS_TESSERA_RUN_COMPARE_H

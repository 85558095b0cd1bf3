//===- Devices.h - The devices a parameterized test runs on ----*- C++ -*-===//

#ifndef TESSERA_TEST_UNIT_DEVICES_H
#define TESSERA_TEST_UNIT_DEVICES_H

#include "tessera/runtime/tessera_runtime.h"

#include "gtest/gtest.h"

#include <ostream>
#include <string>

namespace tessera::test {
/// A device: the host, or the emulator of a chip.
struct Where {
  tessera_device_kind kind;
  const char *chip;
};

inline void PrintTo(const Where &where, std::ostream *os) {
  *os << (where.chip ? where.chip : "host");
}

/// A test's name for its device: Host, or Emulator_<chip>.
inline std::string deviceName(const ::testing::TestParamInfo<Where> &info) {
  return info.param.kind == TESSERA_DEVICE_HOST
             ? std::string("Host")
             : "Emulator_" + std::string(info.param.chip);
}
} // namespace tessera::test

#endif // TESSERA_TEST_UNIT_DEVICES_H

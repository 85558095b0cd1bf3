//===- EmulatorEntry.h - The emulator's entries for unit tests -*- C++ -*-===//
//
// Unit tests call the emulator's entries (what an image's device code
// calls through its table) directly, by their intrinsic names.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TEST_UNIT_EMULATORENTRY_H
#define TESSERA_TEST_UNIT_EMULATORENTRY_H

#include "emu/Emulator.h"

#include "gtest/gtest.h"

namespace tessera::test {
/// The emulator's entry for `name` as a function of type F (a test
/// failure, and null, where the emulator has none).
template <typename F> F emulatorEntry(const char *name) {
  void *found = emu::lookup(name);
  EXPECT_NE(found, nullptr) << name;
  return reinterpret_cast<F>(found);
}
} // namespace tessera::test

#endif // TESSERA_TEST_UNIT_EMULATORENTRY_H

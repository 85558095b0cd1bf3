//===- TestPasses.h - Test-only passes -------------------------*- C++ -*-===//
//
// Passes that exist for the test suites (planted bugs, and rewrites that
// controls need), registered by the
// tools only in builds with TESSERA_INCLUDE_TESTS, never part of a
// production pass.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TEST_LIB_TESTPASSES_H
#define TESSERA_TEST_LIB_TESTPASSES_H

namespace tessera::test {
void registerTestGPUPlantBugPass();
void registerTestGPUControlPasses();
void registerTestLayoutPlantBugPass();
void registerTestQuantizePlantBugPass();

/// Registers every test-only pass.
inline void registerTestPasses() {
  registerTestGPUPlantBugPass();
  registerTestGPUControlPasses();
  registerTestLayoutPlantBugPass();
  registerTestQuantizePlantBugPass();
}
} // namespace tessera::test

#endif // TESSERA_TEST_LIB_TESTPASSES_H

//===- EmulatorLibraryAsm.h - libdevice's inline PTX as host IR -*- C++ -*-===//
//
// Private to lib/Target: the emulator image builder replaces the inline PTX
// that CUDA's libdevice functions contain with host IR of the same meaning.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_TARGET_EMULATORLIBRARYASM_H
#define TESSERA_LIB_TARGET_EMULATORLIBRARYASM_H

namespace llvm {
class Module;
} // namespace llvm

namespace tessera {
/// Replaces each inline-assembly call of `module` whose text is one of
/// libdevice's (rcp.approx.ftz.f32, sub.rn.f32/.ftz.f32/.f64, the
/// mad.lo.cc/madc.hi multiply-add) by the equivalent IR; other inline
/// assembly is left as it is.
void rewriteLibraryAsm(llvm::Module &module);
} // namespace tessera

#endif // TESSERA_LIB_TARGET_EMULATORLIBRARYASM_H

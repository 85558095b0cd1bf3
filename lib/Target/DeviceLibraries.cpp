//===- DeviceLibraries.cpp - The vendors' math libraries ------------------===//

#include "DeviceLibraries.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace tessera;

static std::string fromEnvironment(std::initializer_list<const char *> names,
                                   const char *configured) {
  for (const char *name : names)
    if (const char *value = std::getenv(name); value && *value)
      return value;
  return configured;
}

std::string tessera::cudaToolkitPath() {
  return fromEnvironment({"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"},
                         TESSERA_DEFAULT_CUDA_PATH);
}

std::string tessera::rocmDeviceLibsPath() {
  return fromEnvironment({"ROCM_PATH"}, TESSERA_DEFAULT_ROCM_PATH);
}

/// The library file a module calling it needs.
static std::string libraryFile(bool amd) {
  llvm::SmallString<256> path(amd ? rocmDeviceLibsPath() : cudaToolkitPath());
  if (path.empty())
    return "";
  if (amd)
    llvm::sys::path::append(path, "amdgcn", "bitcode", "ocml.bc");
  else
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return path.str().str();
}

/// The first call in `module` of a function whose name starts with
/// `prefix`.
static LLVM::CallOp firstLibraryCall(Operation *module, StringRef prefix) {
  LLVM::CallOp found;
  module->walk([&](LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (callee && callee->starts_with(prefix)) {
      found = call;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

LogicalResult tessera::checkDeviceLibrary(ModuleOp module, bool amd) {
  LLVM::CallOp call = firstLibraryCall(module, amd ? "__ocml_" : "__nv_");
  if (!call)
    return success();
  std::string file = libraryFile(amd);
  if (!file.empty() && llvm::sys::fs::is_regular_file(file))
    return success();
  InFlightDiagnostic diag = call.emitError()
                            << "calls " << *call.getCallee() << " from ";
  if (amd)
    diag << "ROCm's device libraries (ocml)";
  else
    diag << "CUDA's libdevice";
  if (file.empty())
    diag << ", which Tessera's configuration did not find";
  else
    diag << ", which is not at " << file;
  if (amd)
    diag << "; install rocm-device-libs or set ROCM_PATH";
  else
    diag << "; set CUDA_HOME to a CUDA toolkit";
  return diag << " (or allow the hardware's approximation with "
                 "fastmath<afn> where there is one)";
}

void tessera::defineIsaVersion(ModuleOp module, StringRef chip) {
  // gfxXYZ: major X, minor Y, stepping Z (hexadecimal: gfx90a is 9.0.10).
  StringRef digits = chip;
  if (!digits.consume_front("gfx") || digits.size() < 3)
    return;
  unsigned major = 0, minor = 0, stepping = 0;
  if (digits.drop_back(2).getAsInteger(10, major) ||
      digits.take_back(2).take_front(1).getAsInteger(16, minor) ||
      digits.take_back(1).getAsInteger(16, stepping))
    return;
  llvm::SmallString<256> file(rocmDeviceLibsPath());
  llvm::sys::path::append(file, "amdgcn", "bitcode",
                          "oclc_isa_version_" + digits + ".bc");
  if (llvm::sys::fs::is_regular_file(file))
    return;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    if (!firstLibraryCall(gpuModule, "__ocml_") ||
        gpuModule.lookupSymbol("__oclc_ISA_version"))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(gpuModule.getBody());
    auto i32 = b.getI32Type();
    // As the device libraries define it: a constant in address space 4.
    LLVM::GlobalOp::create(
        b, gpuModule.getLoc(), i32, /*isConstant=*/true,
        LLVM::Linkage::LinkonceODR, "__oclc_ISA_version",
        b.getI32IntegerAttr(major * 1000 + minor * 100 + stepping),
        /*alignment=*/4, /*addrSpace=*/4);
  });
}

//===- Bundle.h - Multi-target kernel bundles ------------------*- C++ -*-===//
//
// A bundle is a sequence of LLVM offload binaries (one per target, 8-byte
// aligned; `llvm-offload-binary` and `llvm-objdump --offloading` list them),
// each holding the target's binary and the kernels' metadata as strings:
//   "triple", "arch" (host, sm_90a, ...), "tessera.kernels".
// "tessera.kernels" has one line per kernel:
//   <name> <threads> <shared-bytes> <arg>... <tensor-map>...
// with each argument `view:<element>:<rank>` or `scalar:<type>`, and each
// tensor map (sm_90a kernels that copy with TMA) `tmap:<arg>:<cols>x<rows>`:
// a trailing kernel parameter, a pointer to the 128-byte tensor map of 2-D
// view argument <arg> with a box of <cols> x <rows> elements and 128-byte
// swizzling, which the runtime encodes at launch; last, an sm_90a kernel
// declared with `cluster(...)` has `cluster:<x>x<y>x<z>`, the thread-block
// cluster its launches use. The runtime reads bundles with a small reader
// of its own.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TARGET_BUNDLE_H
#define TESSERA_TARGET_BUNDLE_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera {

struct KernelInfo {
  std::string name;
  int64_t threads = 0;
  /// The dynamic shared memory a GPU launch needs: the kernel's buffers at
  /// 128-byte aligned offsets, in program order.
  int64_t sharedBytes = 0;
  std::vector<std::string> args;
  /// The arguments' names in the source (without `%`), for headers.
  std::vector<std::string> argNames;
  /// The sizes the view arguments' types fix (`dims:...`), for views with
  /// a static size.
  std::vector<std::string> dims;
  /// The conditions on the arguments its proof assumed (`assume:...`).
  std::vector<std::string> assumptions;
  /// The tensor maps one target's image needs (`tmap:...`).
  std::vector<std::string> tensorMaps;
  /// A persistent kernel (tile-persistent): its last
  /// TESSERA_PERSISTENT_ARGS arguments are the runtime's to pass.
  bool persistent = false;
  /// The thread-block cluster one target's image launches with
  /// (`cluster:<x>x<y>x<z>`), empty for none.
  std::string cluster;
};

struct TargetImage {
  std::string arch;
  std::string triple;
  std::string image;
  /// What `image` holds: a host shared object, a cubin, PTX text or an AMD
  /// HSA code object.
  enum class Kind { Object, Cubin, Ptx, Hsaco } kind = Kind::Object;
  /// This image's kernel metadata when it differs from the bundle's (the
  /// shared memory and tensor maps of one GPU target's lowering).
  std::optional<std::vector<KernelInfo>> kernels;
};

/// The launch metadata of every kernel in `module`.
std::vector<KernelInfo> collectKernelInfo(mlir::ModuleOp module);

/// The `assume:` tokens of `kernel` (LaunchAssumptions.cpp): its
/// tag.assume conditions computed from the launch's arguments alone.
std::vector<std::string> launchAssumptions(tile::KernelOp kernel);

/// The metadata string of `kernels`.
std::string serializeKernelInfo(const std::vector<KernelInfo> &kernels);

/// A C++ header with one typed launch function per kernel (namespace
/// `ns`), over the runtime's C++ wrapper. With `embedded`, it also declares
/// the embedded bundle and `load(device)`.
std::string writeLaunchHeader(const std::vector<KernelInfo> &kernels,
                              llvm::StringRef ns, llvm::StringRef source,
                              bool embedded);

/// A C++ source defining `ns::bundle` and `ns::bundleSize`.
std::string writeEmbeddedBundle(llvm::StringRef bundle, llvm::StringRef ns,
                                llvm::StringRef source);

/// The bytes of a bundle holding `images`, each with `kernels`' metadata.
std::string writeBundle(const std::vector<KernelInfo> &kernels,
                        const std::vector<TargetImage> &images);

} // namespace tessera

#endif // TESSERA_TARGET_BUNDLE_H

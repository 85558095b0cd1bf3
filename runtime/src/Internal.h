//===- Internal.h - Runtime internals --------------------------*- C++ -*-===//

#ifndef TESSERA_RUNTIME_INTERNAL_H
#define TESSERA_RUNTIME_INTERNAL_H

#include "tessera/runtime/tessera_runtime.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::runtime {

/// Records `message` as the calling thread's last error and returns status.
tessera_status fail(tessera_status status, std::string message);

/// The status of the exception being handled, its message recorded: memory
/// or threads exhausted (bad_alloc, length_error, system_error) are
/// TESSERA_ERROR_OUT_OF_RESOURCES, anything else TESSERA_ERROR_INTERNAL.
tessera_status failOnException() noexcept;

/// Runs the body of a C entry point (or a queued task): an exception it
/// throws becomes a status, so that none crosses the C API.
template <typename Body> tessera_status guarded(Body &&body) noexcept {
  try {
    return body();
  } catch (...) {
    return failOnException();
  }
}

/// One argument of a kernel, from its `view:<element>:<rank>` or
/// `scalar:<type>` metadata.
struct ArgSpec {
  bool view = false;
  std::string element; // the view's element type or the scalar's type
  int rank = 0;        // views
  size_t bytes = 0;    // scalars: the size of the value
  /// Views: each dimension's size as the kernel's type fixes it, -1 where
  /// it is dynamic (empty: all are).
  std::vector<int64_t> fixed;
};

/// A tensor map an sm_90a kernel takes after its arguments (`tmap:`): of
/// 2-D view argument `arg`, a box of `boxCols` x `boxRows` elements.
struct TensorMapSpec {
  size_t arg = 0;
  uint32_t boxCols = 0, boxRows = 0;
};

/// A node of an assumption's expression, in postfix order (operands
/// first, the root last).
struct AssumptionNode {
  enum Kind { Const, Arg, Dim, Op } kind = Const;
  int64_t value = 0;              // Const: the value; Dim: the dimension
  size_t arg = 0;                 // Arg and Dim: the argument
  const char *op = nullptr;       // Op: its name ("eq", "add", ...)
  size_t operands[3] = {0, 0, 0}; // Op: its operands' nodes
};

/// A condition on the launch's arguments the kernel's proof assumed
/// (`assume:<expr>:<message>`, kernel_abi.h).
struct Assumption {
  std::vector<AssumptionNode> nodes;
  std::string message;
};

struct KernelEntry {
  std::string name;
  int64_t threads = 0;
  int64_t sharedBytes = 0;
  std::vector<std::string> args;
  std::vector<ArgSpec> specs; // args, parsed
  std::vector<TensorMapSpec> tensorMaps;
  /// The thread-block cluster shape of the image's launches (`cluster:`);
  /// {1, 1, 1} for none.
  uint32_t cluster[3] = {1, 1, 1};
  /// A persistent kernel (`persistent`): it takes TESSERA_PERSISTENT_ARGS
  /// index arguments after `args` (the launched grid's size, the programs
  /// started), which the launch appends.
  bool persistent = false;
  /// The conditions every launch's arguments must meet (`assume:`).
  std::vector<Assumption> assumptions;
  /// The arguments' names in the source (`names:`), "" where unknown.
  std::vector<std::string> argNames;
  bool hasCluster() const { return cluster[0] * cluster[1] * cluster[2] > 1; }
  std::vector<const char *> argPointers;  // for tessera_kernel_info
  std::vector<const char *> namePointers; // for tessera_kernel_info
};

/// The kinds of LLVM offload images (llvm::object::ImageKind) the runtime
/// tells apart.
enum ImageKind : uint16_t { kImageObject = 1, kImageCubin = 3, kImagePtx = 5 };

/// The bytes of a scalar argument (or view element) of MLIR type `type`;
/// 0 if the runtime cannot pass it.
size_t scalarBytes(std::string_view type);

/// "host", "sm_80 cubin", "sm_80 PTX": an image as error messages name it.
std::string describeImage(std::string_view arch, uint16_t kind);

struct BundleImage {
  uint16_t kind = 0; // ImageKind
  std::string arch;
  std::string triple;
  std::string_view image;
  std::vector<KernelEntry> kernels;
};

/// Parses the offload binaries of a bundle; the images point into `data`.
/// Kernel metadata is validated here, once: every argument has a known
/// form, rank and scalar type.
tessera_status readBundle(std::string_view data,
                          std::vector<BundleImage> &images);

/// Parses an `assume:` token of `kernel`'s metadata (its arguments
/// already parsed): false for malformed text, unknown operations, depth
/// past 32, or arguments that are not integer scalars or view sizes.
bool parseAssumption(std::string_view token, const KernelEntry &kernel,
                     Assumption &out);
/// The value of `assumption` on a launch's marshalled arguments (`slots`,
/// as LaunchArgs holds them), in 64-bit integers; none where it divides by
/// zero.
std::optional<int64_t>
evaluateAssumption(const Assumption &assumption, const KernelEntry &kernel,
                   const std::vector<std::vector<int64_t>> &slots);

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_INTERNAL_H

//===- Bundle.cpp - Multi-target kernel bundles -----------------*- C++ -*-===//

#include "tessera/Target/Bundle.h"

#include "llvm/Support/MathExtras.h"

#include "tessera/Analysis/SourceNames.h"
#include "tessera/runtime/kernel_abi.h"
#include "tessera/runtime/tessera_runtime.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Object/OffloadBinary.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera;

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

// What tile-persistent appends is what the runtime passes; views have the
// ranks it passes.
static_assert(TESSERA_PERSISTENT_ARGS == tile::kPersistentArguments);
static_assert(TESSERA_MAX_RANK == tile::kMaxViewRank);

std::vector<KernelInfo> tessera::collectKernelInfo(ModuleOp module) {
  std::vector<KernelInfo> kernels;
  module.walk([&](tile::KernelOp kernel) {
    KernelInfo info;
    info.name = kernel.getSymName().str();
    info.threads = tile::launchedThreads(kernel);
    kernel.walk([&](tile::AllocSharedOp alloc) {
      // The GPU lowerings place buffers at 128-byte aligned offsets of the
      // dynamic shared memory, in program order.
      info.sharedBytes = llvm::alignTo(info.sharedBytes, 128) +
                         alloc.getType().getSizeInBytes();
    });
    tessera::analysis::SourceNames names;
    for (BlockArgument arg : kernel.getArguments()) {
      std::string name = names.get(arg);
      info.argNames.push_back(name.size() > 1 && name[0] == '%' ? name.substr(1)
                                                                : "");
    }
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      if (auto view = dyn_cast<tile::ViewType>(type)) {
        info.args.push_back("view:" + typeName(view.getElementType()) + ":" +
                            std::to_string(view.getRank()));
        if (!llvm::all_of(view.getShape(), ShapedType::isDynamic)) {
          std::string dims = TESSERA_DIMS_PREFIX + std::to_string(i) + ":";
          for (auto [d, size] : llvm::enumerate(view.getShape()))
            dims += (d ? "x" : "") + (ShapedType::isDynamic(size)
                                          ? std::string("?")
                                          : std::to_string(size));
          info.dims.push_back(std::move(dims));
        }
      } else
        info.args.push_back("scalar:" + typeName(type));
    }
    info.persistent = tile::isPersistentKernel(kernel);
    info.assumptions = launchAssumptions(kernel);
    kernels.push_back(std::move(info));
  });
  return kernels;
}

std::string
tessera::serializeKernelInfo(const std::vector<KernelInfo> &kernels) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const KernelInfo &kernel : kernels) {
    os << kernel.name << ' ' << kernel.threads << ' ' << kernel.sharedBytes;
    for (const std::string &arg : kernel.args)
      os << ' ' << arg;
    if (kernel.persistent)
      os << ' ' << TESSERA_PERSISTENT_TOKEN;
    // The names of the arguments the caller passes (not a persistent
    // kernel's trailing ones, which the runtime passes).
    size_t passed = kernel.args.size() -
                    (kernel.persistent ? size_t(TESSERA_PERSISTENT_ARGS) : 0);
    ArrayRef<std::string> names =
        ArrayRef(kernel.argNames)
            .take_front(std::min(passed, kernel.argNames.size()));
    if (llvm::any_of(names, [](const std::string &n) { return !n.empty(); }))
      os << ' ' << TESSERA_NAMES_PREFIX << llvm::join(names, ",");
    for (const std::string &dims : kernel.dims)
      os << ' ' << dims;
    for (const std::string &assumption : kernel.assumptions)
      os << ' ' << assumption;
    for (const std::string &map : kernel.tensorMaps)
      os << ' ' << map;
    if (!kernel.cluster.empty())
      os << ' ' << kernel.cluster;
    os << '\n';
  }
  return text;
}

/// TESSERA_BUNDLE_DIGEST_KEY's digest of an image and what describes it.
static std::string imageDigest(llvm::ArrayRef<llvm::StringRef> parts) {
  llvm::SHA256 hash;
  for (llvm::StringRef part : parts) {
    uint8_t length[8];
    llvm::support::endian::write64le(length, part.size());
    hash.update(llvm::ArrayRef<uint8_t>(length));
    hash.update(part);
  }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::string tessera::writeBundle(const std::vector<KernelInfo> &kernels,
                                 const std::vector<TargetImage> &images) {
  std::string bundle;
  std::string metadata = serializeKernelInfo(kernels);
  for (const TargetImage &target : images) {
    llvm::object::OffloadBinary::OffloadingImage image;
    switch (target.kind) {
    case TargetImage::Kind::Object:
      image.TheImageKind = llvm::object::IMG_Object;
      image.TheOffloadKind = llvm::object::OFK_None;
      break;
    case TargetImage::Kind::Cubin:
      image.TheImageKind = llvm::object::IMG_Cubin;
      image.TheOffloadKind = llvm::object::OFK_Cuda;
      break;
    case TargetImage::Kind::Ptx:
      image.TheImageKind = llvm::object::IMG_PTX;
      image.TheOffloadKind = llvm::object::OFK_Cuda;
      break;
    case TargetImage::Kind::Hsaco:
      image.TheImageKind = llvm::object::IMG_Object;
      image.TheOffloadKind = llvm::object::OFK_HIP;
      break;
    }
    image.StringData["triple"] = target.triple;
    image.StringData["arch"] = target.arch;
    std::string own;
    if (target.kernels)
      own = serializeKernelInfo(*target.kernels);
    llvm::StringRef described = target.kernels ? own : metadata;
    image.StringData[TESSERA_BUNDLE_KERNELS_KEY] = described;
    std::string digest =
        imageDigest({target.arch, target.triple, described, target.image});
    image.StringData[TESSERA_BUNDLE_DIGEST_KEY] = digest;
    image.Image = llvm::MemoryBuffer::getMemBuffer(target.image, "", false);
    llvm::SmallString<0> binary = llvm::object::OffloadBinary::write(image);
    bundle.append(binary.begin(), binary.end());
    // Each binary starts 8-byte aligned.
    bundle.resize((bundle.size() + 7) / 8 * 8, '\0');
  }
  return bundle;
}

/// The C++ type a scalar argument is passed as.
static std::string cppScalarType(llvm::StringRef type) {
  return llvm::StringSwitch<std::string>(type)
      .Case("f32", "float")
      .Case("f64", "double")
      .Cases({"f16", "bf16"}, "uint16_t")
      .Case("i1", "bool")
      .Case("i8", "int8_t")
      .Case("i16", "int16_t")
      .Case("i32", "int32_t")
      .Cases({"i64", "index"}, "int64_t")
      .Default("");
}

static bool isIdentifier(llvm::StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string tessera::writeLaunchHeader(const std::vector<KernelInfo> &kernels,
                                       llvm::StringRef ns,
                                       llvm::StringRef source, bool embedded) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Generated by tessera-compile from " << source << ". Do not edit.\n"
     << "#pragma once\n\n"
     << "#include \"tessera/runtime/tessera.hpp\"\n\n"
     << "#include <cstdint>\n\n"
     << "namespace " << ns << " {\n";
  if (embedded)
    os << "\n/// The bundle, embedded in the library.\n"
       << "extern const unsigned char bundle[];\n"
       << "extern const size_t bundleSize;\n\n"
       << "/// Loads the embedded bundle on `device`; empty on failure.\n"
       << "inline tessera::Module load(const tessera::Device &device) {\n"
       << "  return tessera::Module::load(device, bundle, bundleSize);\n"
       << "}\n";
  for (const KernelInfo &kernel : kernels) {
    os << "\n/// " << kernel.name << ": " << kernel.threads
       << " threads per program, " << kernel.sharedBytes
       << " bytes of shared memory.\n"
       << "inline tessera_status " << kernel.name
       << "(const tessera::Module &module, tessera_grid grid";
    std::vector<std::string> names;
    // A persistent kernel's last arguments are the runtime's to pass.
    size_t passed =
        kernel.args.size() - (kernel.persistent ? TESSERA_PERSISTENT_ARGS : 0);
    for (auto [i, arg] :
         llvm::enumerate(llvm::ArrayRef(kernel.args).take_front(passed))) {
      std::string name = i < kernel.argNames.size() ? kernel.argNames[i] : "";
      if (!isIdentifier(name) || name == "module" || name == "grid" ||
          name == "args" || name == "stream")
        name = "arg" + std::to_string(i);
      names.push_back(name);
      llvm::StringRef spec(arg);
      if (spec.consume_front("view:"))
        os << ",\n    const tessera_view &" << name;
      else
        os << ",\n    " << cppScalarType(spec.drop_front(7)) << " " << name;
    }
    os << ",\n    tessera_stream *stream = nullptr) {\n  void *args[] = {";
    for (auto [i, name] : llvm::enumerate(names))
      os << (i ? ", " : "") << "const_cast<void *>(static_cast<const void *>(&"
         << name << "))";
    os << "};\n  return module.launch(\"" << kernel.name
       << "\", grid, args, stream);\n}\n";
  }
  os << "\n} // namespace " << ns << "\n";
  return text;
}

std::string tessera::writeEmbeddedBundle(llvm::StringRef bundle,
                                         llvm::StringRef ns,
                                         llvm::StringRef source) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Generated by tessera-compile from " << source
     << ". Do not edit.\n#include <cstddef>\n\nnamespace " << ns << " {\n"
     << "extern const unsigned char bundle[];\n"
     << "extern const size_t bundleSize;\n"
     << "alignas(8) const unsigned char bundle[] = {";
  for (size_t i = 0; i < bundle.size(); ++i) {
    if (i % 16 == 0)
      os << "\n   ";
    os << ' ' << static_cast<unsigned>(static_cast<unsigned char>(bundle[i]))
       << ',';
  }
  os << "\n};\nconst size_t bundleSize = " << bundle.size()
     << ";\n} // namespace " << ns << "\n";
  return text;
}

//===- Bundle.cpp - Multi-target kernel bundles -----------------*- C++ -*-===//

#include "tessera/Target/Bundle.h"

#include "llvm/Object/OffloadBinary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera;

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::vector<KernelInfo> tessera::collectKernelInfo(ModuleOp module) {
  std::vector<KernelInfo> kernels;
  module.walk([&](tile::KernelOp kernel) {
    KernelInfo info;
    info.name = kernel.getSymName().str();
    info.threads = kernel.getThreadsAttr().getInt();
    kernel.walk([&](tile::AllocSharedOp alloc) {
      info.sharedBytes += alloc.getType().getSizeInBytes();
    });
    for (Type type : kernel.getArgumentTypes()) {
      if (auto view = dyn_cast<tile::ViewType>(type))
        info.args.push_back("view:" + typeName(view.getElementType()) + ":" +
                            std::to_string(view.getRank()));
      else
        info.args.push_back("scalar:" + typeName(type));
    }
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
    os << '\n';
  }
  return text;
}

std::string tessera::writeBundle(const std::vector<KernelInfo> &kernels,
                                 const std::vector<TargetImage> &images) {
  std::string bundle;
  std::string metadata = serializeKernelInfo(kernels);
  for (const TargetImage &target : images) {
    llvm::object::OffloadBinary::OffloadingImage image;
    image.TheImageKind = target.arch == "host" ? llvm::object::IMG_Object
                                               : llvm::object::IMG_None;
    image.TheOffloadKind = llvm::object::OFK_None;
    image.StringData["triple"] = target.triple;
    image.StringData["arch"] = target.arch;
    image.StringData["tessera.kernels"] = metadata;
    image.Image = llvm::MemoryBuffer::getMemBuffer(target.image, "", false);
    llvm::SmallString<0> binary = llvm::object::OffloadBinary::write(image);
    bundle.append(binary.begin(), binary.end());
    // Each binary starts 8-byte aligned.
    bundle.resize((bundle.size() + 7) / 8 * 8, '\0');
  }
  return bundle;
}

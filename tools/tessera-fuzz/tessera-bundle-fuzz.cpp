//===- tessera-bundle-fuzz.cpp - libFuzzer target: the bundle reader -----===//
//
// Feeds arbitrary bytes to the runtime's bundle reader (what
// tesseraModuleLoad parses before it loads any image). Any input must be
// accepted or refused with a status, never crash, and what is accepted must
// keep the promises launches rely on: images inside the input, kernels with
// 1 to 1024 threads and less than 2 GiB of shared memory, arguments that are
// `scalar:<type>` or `view:<element>:<rank>` with a one-digit rank in
// [1, TESSERA_MAX_RANK], one name per argument, tensor maps of 2-D or 3-D
// view arguments, and clusters of 1 to 16 blocks.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdio>
#include <cstdlib>

using namespace tessera::runtime;

// The reader reports errors through fail(); the rest of the runtime (which
// defines it) is not linked here.
tessera_status tessera::runtime::fail(tessera_status status, std::string) {
  return status;
}

static void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "tessera-bundle-fuzz: accepted a bundle with %s\n",
                 what);
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::vector<BundleImage> images;
  if (readBundle(bytes, images) != TESSERA_SUCCESS)
    return 0;
  check(!images.empty(), "no image");
  for (const BundleImage &image : images) {
    check(image.image.data() >= bytes.data() &&
              image.image.data() + image.image.size() <=
                  bytes.data() + bytes.size(),
          "an image outside the input");
    for (const KernelEntry &kernel : image.kernels) {
      check(!kernel.name.empty() && kernel.threads >= 1 &&
                kernel.threads <= 1024 && kernel.sharedBytes >= 0 &&
                kernel.sharedBytes < (int64_t(1) << 31),
            "a kernel without a name, or threads or shared bytes out of "
            "range");
      check(kernel.argNames.size() == kernel.args.size() &&
                kernel.namePointers.size() == kernel.args.size(),
            "argument names that are not one per argument");
      for (const TensorMapSpec &map : kernel.tensorMaps)
        check(map.arg < kernel.specs.size() && kernel.specs[map.arg].view &&
                  kernel.specs[map.arg].rank >= 2 &&
                  kernel.specs[map.arg].rank <= 3,
              "a tensor map of no 2-D or 3-D view argument");
      uint64_t blocks = 1;
      for (uint32_t dim : kernel.cluster) {
        check(dim >= 1 && dim <= 16, "a cluster dimension out of range");
        blocks *= dim;
      }
      check(blocks <= 16, "a cluster of more than 16 blocks");
      check(kernel.argPointers.size() == kernel.args.size(),
            "argument pointers that do not match the arguments");
      for (const std::string &arg : kernel.args) {
        if (arg.rfind("scalar:", 0) == 0) {
          check(arg.size() > 7, "a scalar argument without a type");
          continue;
        }
        check(arg.rfind("view:", 0) == 0, "an argument of unknown kind");
        char rank = arg.back();
        check(rank >= '1' && rank <= char('0' + TESSERA_MAX_RANK) &&
                  arg[arg.size() - 2] == ':',
              "a view rank launches cannot read");
      }
    }
  }
  return 0;
}

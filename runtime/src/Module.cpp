//===- Module.cpp - Kernel modules and launches -----------------*- C++ -*-===//
//
// A host module is the bundle's shared object, loaded from an anonymous
// in-memory file (memfd) with dlopen. A launch splits the grid's program
// instances into chunks that worker threads take in turn.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "emu/Emulator.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace tessera::runtime;

namespace {
using HostEntry = void (*)(void **, int64_t, int64_t, int64_t, int64_t,
                           int64_t);
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxViewSize = int64_t(1) << 48;
} // namespace

struct tessera_module {
  tessera_device *device = nullptr;
  std::string bundle; // owns the bytes the image views point into
  BundleImage image;
  void *library = nullptr;
  /// The memfd holding the image: kept open while loaded, so that its
  /// /proc/self/fd path stays unique (dlopen reuses libraries by path).
  int imageFd = -1;
  std::vector<HostEntry> entries;

  ~tessera_module() {
    if (library)
      dlclose(library);
    if (imageFd >= 0)
      close(imageFd);
  }
};

static tessera_status loadHostImage(tessera_module *module) {
  int fd = memfd_create("tessera-kernels", MFD_CLOEXEC);
  if (fd < 0)
    return fail(TESSERA_ERROR_UNSUPPORTED,
                std::string("memfd_create failed: ") + std::strerror(errno));
  std::string_view image = module->image.image;
  size_t written = 0;
  while (written < image.size()) {
    ssize_t n = write(fd, image.data() + written, image.size() - written);
    if (n <= 0) {
      close(fd);
      return fail(TESSERA_ERROR_UNSUPPORTED, "cannot stage the host image");
    }
    written += n;
  }
  module->imageFd = fd;
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  module->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module->library)
    return fail(TESSERA_ERROR_INVALID_BUNDLE,
                std::string("cannot load the host image: ") + dlerror());
  for (const KernelEntry &kernel : module->image.kernels) {
    std::string symbol = "tessera_kernel_" + kernel.name;
    auto entry =
        reinterpret_cast<HostEntry>(dlsym(module->library, symbol.c_str()));
    if (!entry)
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "the host image lacks " + symbol);
    module->entries.push_back(entry);
  }
  return TESSERA_SUCCESS;
}

extern "C" {

tessera_status tesseraModuleLoad(tessera_device *device, const void *bundle,
                                 size_t size, tessera_module **module) {
  if (!device || !bundle || !module)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
  *module = nullptr;
  if (!isHostMemory(device->kind))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "loading modules on GPU devices is not implemented yet");
  auto loaded = std::make_unique<tessera_module>();
  loaded->device = device;
  loaded->bundle.assign(static_cast<const char *>(bundle), size);
  std::vector<BundleImage> images;
  if (tessera_status status = readBundle(loaded->bundle, images))
    return status;
  // The emulator runs the first emu-<chip> image; the host its host image.
  bool emulate = device->kind == TESSERA_DEVICE_EMULATOR;
  auto host = std::find_if(images.begin(), images.end(), [&](auto &image) {
    return emulate ? image.arch.rfind("emu-", 0) == 0 : image.arch == "host";
  });
  if (host == images.end()) {
    std::string present;
    for (const BundleImage &image : images)
      present += (present.empty() ? "" : ", ") + image.arch;
    return fail(
        TESSERA_ERROR_INVALID_BUNDLE,
        std::string("the bundle has no ") +
            (emulate ? "emulator image; compile with --target=sm_80"
                     : "host image; compile with --target=host") +
            " (images present: " + (present.empty() ? "none" : present) + ")");
  }
  loaded->image = std::move(*host);
  if (tessera_status status = loadHostImage(loaded.get()))
    return status;
  std::string missing;
  if (emulate && !tessera::emu::bindImage(loaded->library, missing))
    return fail(TESSERA_ERROR_INVALID_BUNDLE,
                "the emulator does not implement '" + missing +
                    "', which the " + loaded->image.arch + " image calls");
  *module = loaded.release();
  return TESSERA_SUCCESS;
}

tessera_status tesseraModuleLoadFile(tessera_device *device, const char *path,
                                     tessera_module **module) {
  if (!path)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null path");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                std::string("cannot read ") + path);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  std::string data = bytes.str();
  return tesseraModuleLoad(device, data.data(), data.size(), module);
}

void tesseraModuleUnload(tessera_module *module) { delete module; }

size_t tesseraModuleKernelCount(const tessera_module *module) {
  return module ? module->image.kernels.size() : 0;
}

tessera_status tesseraModuleKernel(const tessera_module *module, size_t index,
                                   tessera_kernel_info *info) {
  if (!module || !info || index >= module->image.kernels.size())
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "no kernel at that index");
  const KernelEntry &kernel = module->image.kernels[index];
  *info = {kernel.name.c_str(), kernel.threads, kernel.sharedBytes,
           kernel.args.size(), kernel.argPointers.data()};
  return TESSERA_SUCCESS;
}

tessera_status tesseraModuleFindKernel(const tessera_module *module,
                                       const char *name,
                                       tessera_kernel_info *info) {
  if (!module || !name)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
  for (size_t i = 0; i < module->image.kernels.size(); ++i)
    if (module->image.kernels[i].name == name)
      return tesseraModuleKernel(module, i, info);
  return fail(TESSERA_ERROR_NOT_FOUND,
              std::string("no kernel named '") + name + "' in the module");
}

tessera_status tesseraLaunch(tessera_module *module, const char *kernel,
                             tessera_grid grid, void *const *args) {
  if (!module || !kernel || (!args && false))
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
  size_t index = 0;
  while (index < module->image.kernels.size() &&
         module->image.kernels[index].name != kernel)
    ++index;
  if (index == module->image.kernels.size())
    return fail(TESSERA_ERROR_NOT_FOUND,
                std::string("no kernel named '") + kernel + "' in the module");
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "grid sizes must be positive");
  // The limits the tag checker's proofs assume (docs/invariants.md), and
  // CUDA's: x below 2^31, y and z at most 65535.
  if (grid.x > kMaxGridX || grid.y > kMaxGridYZ || grid.z > kMaxGridYZ)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "grid sizes must be at most 2^31 - 1 (x) and 65535 (y, z)");
  const KernelEntry &entry = module->image.kernels[index];

  // Memref descriptors: {allocated, aligned, offset, sizes[r], strides[r]}.
  std::vector<std::vector<int64_t>> descriptors(entry.args.size());
  std::vector<void *> argv(entry.args.size());
  for (size_t i = 0; i < entry.args.size(); ++i) {
    if (!args || !args[i])
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "argument " + std::to_string(i) + " of " + entry.name +
                      " is null");
    if (entry.args[i].rfind("view:", 0) != 0) {
      argv[i] = args[i];
      continue;
    }
    const auto *view = static_cast<const tessera_view *>(args[i]);
    // "view:<element>:<rank>"
    const std::string &spec = entry.args[i];
    size_t colon = spec.rfind(':');
    int64_t rank = spec.back() - '0'; // one digit, checked by readBundle
    std::string element = spec.substr(5, colon - 5);
    if (view->dtype != TESSERA_DTYPE_UNSPECIFIED &&
        element != tesseraDTypeName(view->dtype))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "argument " + std::to_string(i) + " of " + entry.name +
                      " holds " + element + " but the view is " +
                      tesseraDTypeName(view->dtype));
    if (view->rank != rank)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "argument " + std::to_string(i) + " of " + entry.name +
                      " must be a view of rank " + std::to_string(rank));
    for (int64_t r = 0; r < rank; ++r)
      if (view->sizes[r] < 0 || view->sizes[r] >= kMaxViewSize)
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    "argument " + std::to_string(i) + " of " + entry.name +
                        ": size " + std::to_string(view->sizes[r]) +
                        " of dimension " + std::to_string(r) +
                        " is outside [0, 2^48)");
    // Strided views, innermost stride 1: what the lowerings assume.
    for (int64_t r = 0; r < rank; ++r)
      if (view->strides[r] < 0 || (r == rank - 1 && view->strides[r] != 1))
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    "argument " + std::to_string(i) + " of " + entry.name +
                        ": stride " + std::to_string(view->strides[r]) +
                        " of dimension " + std::to_string(r) +
                        (r == rank - 1 ? " must be 1 (the innermost)"
                                       : " is negative"));
    // int4 nibble pairs [.., n, 2]: the GPU backends copy the bytes of a
    // row as one run, so consecutive pairs are consecutive bytes.
    if (element == "i4" && rank >= 2 && view->sizes[rank - 1] == 2 &&
        view->strides[rank - 2] != 1)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "argument " + std::to_string(i) + " of " + entry.name +
                      ": the nibble pairs of an int4 view must be "
                      "consecutive bytes (stride 1 along dimension " +
                      std::to_string(rank - 2) + "), not stride " +
                      std::to_string(view->strides[rank - 2]));
    std::vector<int64_t> &d = descriptors[i];
    d.resize(3 + 2 * rank);
    std::memcpy(&d[0], &view->data, sizeof(void *));
    std::memcpy(&d[1], &view->data, sizeof(void *));
    d[2] = 0;
    for (int64_t r = 0; r < rank; ++r) {
      d[3 + r] = view->sizes[r];
      d[3 + rank + r] = view->strides[r];
    }
    argv[i] = d.data();
  }

  HostEntry fn = module->entries[index];
  if (module->device->kind == TESSERA_DEVICE_EMULATOR)
    tessera::emu::beginLaunch();
  int64_t total = grid.x * grid.y * grid.z;
  int threads = std::max(1, module->device->threads);
  threads = static_cast<int>(std::min<int64_t>(threads, total));
  int64_t chunk = std::max<int64_t>(1, total / (int64_t(threads) * 8));
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (;;) {
      int64_t begin = next.fetch_add(chunk);
      if (begin >= total)
        return;
      fn(argv.data(), grid.x, grid.y, grid.z, begin,
         std::min(total, begin + chunk));
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t)
    workers.emplace_back(work);
  work();
  for (std::thread &worker : workers)
    worker.join();
  if (module->device->kind == TESSERA_DEVICE_EMULATOR) {
    std::string error = tessera::emu::takeError();
    if (!error.empty())
      return fail(TESSERA_ERROR_KERNEL, entry.name + ": " + error);
  }
  return TESSERA_SUCCESS;
}

} // extern "C"

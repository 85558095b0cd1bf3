//===- Module.cpp - Kernel modules and launches -----------------*- C++ -*-===//
//
// A module loads the bundle image that best matches its device; its kernels
// keep the metadata the bundle reader validated. A launch checks the grid
// and every view against that metadata, copies the arguments, and hands
// them to the device's backend.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tessera::runtime;

namespace {
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxViewSize = int64_t(1) << 48;
constexpr uintmax_t kMaxBundleBytes = uintmax_t(4) << 30;

/// Checks the arguments of a launch of `entry` and copies them.
tessera_status marshal(const KernelEntry &entry, void *const *args,
                       LaunchArgs &out) {
  // "argument 1 (B) of gemm_bf16", without the name where the bundle has
  // none.
  auto where = [&](size_t i) {
    std::string name = i < entry.argNames.size() ? entry.argNames[i] : "";
    return "argument " + std::to_string(i) +
           (name.empty() ? "" : " (" + name + ")") + " of " + entry.name;
  };
  for (size_t i = 0; i < entry.specs.size(); ++i) {
    const ArgSpec &spec = entry.specs[i];
    if (!args || !args[i])
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, where(i) + " is null");
    std::vector<int64_t> slots;
    if (!spec.view) {
      slots.assign(1, 0);
      std::memcpy(slots.data(), args[i], spec.bytes);
      out.slots.push_back(std::move(slots));
      out.views.push_back(false);
      continue;
    }
    const auto *view = static_cast<const tessera_view *>(args[i]);
    int64_t rank = spec.rank;
    if (view->dtype != TESSERA_DTYPE_UNSPECIFIED &&
        spec.element != tesseraDTypeName(view->dtype))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  where(i) + " holds " + spec.element + " but the view is " +
                      tesseraDTypeName(view->dtype));
    if (view->rank != rank)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  where(i) + " must be a view of rank " + std::to_string(rank));
    // The sizes the kernel's type fixes (!tile.view<?x64xbf16>): the code
    // is compiled for them.
    for (int64_t r = 0; r < int64_t(spec.fixed.size()); ++r)
      if (spec.fixed[size_t(r)] >= 0 && view->sizes[r] != spec.fixed[size_t(r)])
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    where(i) + ": dimension " + std::to_string(r) + " is " +
                        std::to_string(view->sizes[r]) +
                        ", but the kernel's type fixes it at " +
                        std::to_string(spec.fixed[size_t(r)]));
    bool empty = false;
    for (int64_t r = 0; r < rank; ++r) {
      if (view->sizes[r] < 0 || view->sizes[r] >= kMaxViewSize)
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    where(i) + ": size " + std::to_string(view->sizes[r]) +
                        " of dimension " + std::to_string(r) +
                        " is outside [0, 2^48)");
      empty |= view->sizes[r] == 0;
    }
    if (!view->data && !empty)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  where(i) + " has elements but a null data pointer");
    // Strided views, innermost stride 1: what the lowerings assume.
    for (int64_t r = 0; r < rank; ++r)
      if (view->strides[r] < 0 || (r == rank - 1 && view->strides[r] != 1))
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    where(i) + ": stride " + std::to_string(view->strides[r]) +
                        " of dimension " + std::to_string(r) +
                        (r == rank - 1 ? " must be 1 (the innermost)"
                                       : " is negative"));
    // int4 nibble pairs [.., n, 2]: the GPU backends copy the bytes of a
    // row as one run, so consecutive pairs are consecutive bytes.
    if (spec.element == "i4" && rank >= 2 && view->sizes[rank - 1] == 2 &&
        view->strides[rank - 2] != 1)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  where(i) +
                      ": the nibble pairs of an int4 view must be "
                      "consecutive bytes (stride 1 along dimension " +
                      std::to_string(rank - 2) + "), not stride " +
                      std::to_string(view->strides[rank - 2]));
    slots.resize(3 + 2 * rank);
    std::memcpy(&slots[0], &view->data, sizeof(void *));
    std::memcpy(&slots[1], &view->data, sizeof(void *));
    slots[2] = 0;
    for (int64_t r = 0; r < rank; ++r) {
      slots[3 + r] = view->sizes[r];
      slots[3 + rank + r] = view->strides[r];
    }
    out.slots.push_back(std::move(slots));
    out.views.push_back(true);
  }
  // What the kernel's proof assumed of its arguments (tag.assume).
  for (const Assumption &assumption : entry.assumptions)
    if (evaluateAssumption(assumption, entry, out.slots) == int64_t(0))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  entry.name + " assumes that " + assumption.message +
                      " (its tag.assume), which these arguments break");
  for (const TensorMapSpec &map : entry.tensorMaps) {
    // Dimensions innermost first; a 3-D view's box is one deep.
    const auto *view = static_cast<const tessera_view *>(args[map.arg]);
    LaunchArgs::TensorMap m = {};
    m.base = view->data;
    m.rank = uint32_t(view->rank);
    m.elementBytes = uint32_t(scalarBytes(entry.specs[map.arg].element));
    for (uint32_t d = 0; d < m.rank; ++d) {
      m.dims[d] = uint64_t(view->sizes[m.rank - 1 - d]);
      if (d > 0)
        m.strideBytes[d - 1] =
            uint64_t(view->strides[m.rank - 1 - d]) * m.elementBytes;
    }
    m.box[0] = map.boxCols;
    m.box[1] = map.boxRows;
    m.box[2] = 1;
    out.tensorMaps.push_back(m);
  }
  return TESSERA_SUCCESS;
}
} // namespace

std::vector<void *> LaunchArgs::perArgument() {
  std::vector<void *> pointers;
  for (std::vector<int64_t> &argument : slots)
    pointers.push_back(argument.data());
  return pointers;
}

std::vector<void *> LaunchArgs::perParameter() {
  std::vector<void *> pointers;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!views[i]) {
      pointers.push_back(slots[i].data());
      continue;
    }
    for (int64_t &field : slots[i])
      pointers.push_back(&field);
  }
  return pointers;
}

extern "C" {

tessera_status tesseraModuleLoad(tessera_device *device, const void *bundle,
                                 size_t size, tessera_module **module) {
  return guarded([&]() -> tessera_status {
    if (!device || !bundle || !module)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    *module = nullptr;
    auto loaded = std::make_unique<tessera_module>();
    loaded->device = device;
    loaded->bundle.assign(static_cast<const char *>(bundle), size);
    std::vector<BundleImage> images;
    if (tessera_status status = readBundle(loaded->bundle, images))
      return status;
    Backend &backend = *device->backend;
    // The best match, the first of equals.
    BundleImage *best = nullptr;
    int bestScore = 0;
    for (BundleImage &image : images)
      if (int score = backend.matches(image); score > bestScore) {
        best = &image;
        bestScore = score;
      }
    if (!best) {
      std::string present;
      for (const BundleImage &image : images)
        present += (present.empty() ? "" : ", ") +
                   describeImage(image.arch, image.kind);
      tessera_device_properties props{};
      backend.properties(props);
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  std::string("the bundle has no image for ") + props.arch +
                      ": it needs " + backend.wanted() +
                      " (images present: " + present + ")");
    }
    loaded->image = std::move(*best);
    if (tessera_status status = backend.load(loaded->image, loaded->loaded))
      return status;
    const std::vector<KernelEntry> &entries = loaded->image.kernels;
    for (size_t i = 0; i < entries.size(); ++i) {
      void *function = loaded->loaded->function(i);
      if (!function)
        return fail(TESSERA_ERROR_INVALID_BUNDLE, "the " + loaded->image.arch +
                                                      " image has no kernel " +
                                                      entries[i].name);
      loaded->kernels.push_back({loaded.get(), {&entries[i], function}});
    }
    *module = loaded.release();
    retain(device);
    return TESSERA_SUCCESS;
  });
}

tessera_status tesseraModuleLoadFile(tessera_device *device, const char *path,
                                     tessera_module **module) {
  return guarded([&]() -> tessera_status {
    if (!path)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null path");
    // A directory, a device or a pipe is no bundle (and /dev/zero would
    // be read until memory ran out); bundles are regular files of at most
    // kMaxBundleBytes.
    std::error_code error;
    auto status = std::filesystem::status(path, error);
    if (!error && !std::filesystem::is_regular_file(status))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  std::string(path) + " is not a bundle file (" +
                      (std::filesystem::is_directory(status)
                           ? "a directory"
                           : "not a regular file") +
                      ")");
    if (!error && std::filesystem::file_size(path, error) > kMaxBundleBytes &&
        !error)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  std::string(path) + " is larger than a bundle may be (" +
                      std::to_string(kMaxBundleBytes >> 30) + " GiB)");
    std::ifstream file(path, std::ios::binary);
    if (!file)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  std::string("cannot read ") + path);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    std::string data = bytes.str();
    return tesseraModuleLoad(device, data.data(), data.size(), module);
  });
}

void tesseraModuleUnload(tessera_module *module) {
  if (!module)
    return;
  // Queued launches may still run the module's code.
  tessera_device *device = module->device;
  device->backend->waitIdle();
  delete module;
  release(device);
}

const char *tesseraModuleArch(const tessera_module *module) {
  return module ? module->image.arch.c_str() : "";
}

size_t tesseraModuleKernelCount(const tessera_module *module) {
  return module ? module->kernels.size() : 0;
}

tessera_status tesseraModuleGetKernelAt(const tessera_module *module,
                                        size_t index, tessera_kernel **kernel) {
  return guarded([&]() -> tessera_status {
    if (!module || !kernel)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    if (index >= module->kernels.size())
      return fail(TESSERA_ERROR_NOT_FOUND,
                  "no kernel at index " + std::to_string(index) + " of " +
                      std::to_string(module->kernels.size()));
    *kernel = const_cast<tessera_kernel *>(&module->kernels[index]);
    return TESSERA_SUCCESS;
  });
}

tessera_status tesseraModuleGetKernel(const tessera_module *module,
                                      const char *name,
                                      tessera_kernel **kernel) {
  return guarded([&]() -> tessera_status {
    if (!module || !name || !kernel)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    for (const tessera_kernel &candidate : module->kernels)
      if (candidate.kernel.entry->name == name) {
        *kernel = const_cast<tessera_kernel *>(&candidate);
        return TESSERA_SUCCESS;
      }
    return fail(TESSERA_ERROR_NOT_FOUND,
                std::string("no kernel named '") + name + "' in the module");
  });
}

tessera_status tesseraKernelGetInfo(const tessera_kernel *kernel,
                                    tessera_kernel_info *info) {
  return guarded([&]() -> tessera_status {
    if (!kernel || !info)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    const KernelEntry &entry = *kernel->kernel.entry;
    *info = {entry.name.c_str(),
             entry.threads,
             entry.sharedBytes,
             entry.args.size(),
             entry.argPointers.data(),
             {entry.cluster[0], entry.cluster[1], entry.cluster[2]},
             entry.persistent,
             entry.namePointers.data()};
    return TESSERA_SUCCESS;
  });
}

namespace {
/// A persistent kernel's launch: `grid` becomes as many program instances
/// along x as the device keeps resident (or as the device's cap says), no
/// more than the grid has tiles, in whole clusters; the grid's size and
/// that count go to its trailing index arguments.
tessera_status persist(const tessera_kernel &kernel, tessera_grid &grid,
                       LaunchArgs &args) {
  tessera_device &device = *kernel.module->device;
  int64_t programs = device.maxPrograms;
  if (!programs)
    if (tessera_status status =
            device.backend->residentPrograms(kernel.kernel, programs))
      return status;
  // Whole clusters: rounded down (within the cap and the grid limit), to
  // one cluster at least (idle programs where it has more than the tiles).
  int64_t cluster = kernel.kernel.entry->cluster[0];
  programs = std::min(programs, grid.x * grid.y * grid.z);
  programs = std::max(cluster, programs / cluster * cluster);
  for (int64_t value : {grid.x, grid.y, grid.z, programs}) {
    args.slots.push_back({value});
    args.views.push_back(false);
  }
  grid = {programs, 1, 1};
  return TESSERA_SUCCESS;
}
} // namespace

tessera_status tesseraLaunch(tessera_kernel *kernel, tessera_grid grid,
                             void *const *args, tessera_stream *stream) {
  return guarded([&]() -> tessera_status {
    if (!kernel)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null kernel");
    tessera_device *device = kernel->module->device;
    if (stream && stream->device != device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "the stream belongs to another device than the kernel");
    if (grid.x < 1 || grid.y < 1 || grid.z < 1)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "grid sizes must be positive");
    // The limits the tag checker's proofs assume (docs/invariants.md), and
    // CUDA's: x below 2^31, y and z at most 65535.
    if (grid.x > kMaxGridX || grid.y > kMaxGridYZ || grid.z > kMaxGridYZ)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "grid sizes must be at most 2^31 - 1 (x) and 65535 (y, z)");
    const KernelEntry &entry = *kernel->kernel.entry;
    int64_t sizes[3] = {grid.x, grid.y, grid.z};
    // A persistent kernel's launch rounds its programs to whole clusters.
    for (int d = 0; d < 3 && !entry.persistent; ++d)
      if (sizes[d] % entry.cluster[d])
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    "the grid (" + std::to_string(grid.x) + ", " +
                        std::to_string(grid.y) + ", " + std::to_string(grid.z) +
                        ") of " + entry.name +
                        " is not a whole number of its clusters (" +
                        std::to_string(entry.cluster[0]) + ", " +
                        std::to_string(entry.cluster[1]) + ", " +
                        std::to_string(entry.cluster[2]) + ")");
    LaunchArgs copied;
    if (tessera_status status = marshal(entry, args, copied))
      return status;
    if (entry.persistent)
      if (tessera_status status = persist(*kernel, grid, copied))
        return status;
    return device->backend->launch(kernel->kernel, grid, std::move(copied),
                                   stream ? stream->stream.get() : nullptr);
  });
}

} // extern "C"

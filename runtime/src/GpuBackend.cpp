//===- GpuBackend.cpp - CUDA and HIP devices over a driver table ----------===//
//
// Device memory, modules, streams and events are the driver's; a launch
// passes each kernel parameter by address, a view's descriptor fields being
// parameters of their own (the kernels' ABI). Calls without a stream run on
// the driver's default stream and wait for it.
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>

using namespace tessera::runtime;

namespace {
/// A device's driver table with what makes the device current: objects of
/// a device are released with it current (the driver frees them from the
/// current context).
struct DeviceRef {
  const GpuApi &api;
  int ordinal;
  void *context;
  void makeCurrent() const { api.makeCurrent(ordinal, context); }
};

class GpuImage : public LoadedImage {
public:
  explicit GpuImage(DeviceRef device) : device(device) {}
  ~GpuImage() override {
    if (!module)
      return;
    device.makeCurrent();
    device.api.moduleUnload(module);
  }
  void *function(size_t index) override {
    return index < functions.size() ? functions[index] : nullptr;
  }

  DeviceRef device;
  void *module = nullptr;
  std::vector<void *> functions;
};

class GpuStream : public Stream {
public:
  /// A stream of the driver's; destroyed with this object if `owned`.
  GpuStream(DeviceRef device, void *handle, bool owned = true)
      : device(device), handle(handle), owned(owned) {}
  ~GpuStream() override {
    if (!owned)
      return;
    device.makeCurrent();
    device.api.streamDestroy(handle);
  }
  DeviceRef device;
  void *handle;
  bool owned;
};

class GpuEvent : public Event {
public:
  GpuEvent(DeviceRef device, void *handle) : device(device), handle(handle) {}
  ~GpuEvent() override {
    device.makeCurrent();
    device.api.eventDestroy(handle);
  }
  DeviceRef device;
  void *handle;
  bool recorded = false;
};

class GpuBackend : public Backend {
public:
  GpuBackend(const GpuApi &api, int ordinal, void *context)
      : api(api), ordinal(ordinal), context(context) {
    tessera_device_properties props{};
    if (api.properties(ordinal, props) == 0)
      arch = props.arch;
  }
  ~GpuBackend() override {
    if (!tensorMaps.empty() && api.makeCurrent(ordinal, context) == 0)
      for (auto &[map, pointer] : tensorMaps)
        api.release(pointer);
    api.close(ordinal, context);
  }

  tessera_device_kind kind() const override { return api.kind; }

  tessera_status properties(tessera_device_properties &props) override {
    if (tessera_status status = current())
      return status;
    return check(api.properties(ordinal, props), "reading the properties");
  }

  int matches(const BundleImage &image) const override {
    return api.matches(arch, image.arch, image.kind);
  }

  std::string wanted() const override {
    bool cuda = api.kind == TESSERA_DEVICE_CUDA;
    // HIP target IDs carry features: gfx942:sramecc+:xnack-.
    std::string target = arch.substr(0, arch.find(':'));
    return std::string(cuda ? "a cubin or PTX" : "a code object") + " for " +
           arch + "; compile with --target=" + target +
           (cuda && arch == "sm_90" ? "a" : "");
  }

  tessera_status load(const BundleImage &image,
                      std::unique_ptr<LoadedImage> &loaded) override {
    if (tessera_status status = current())
      return status;
    auto gpu = std::make_unique<GpuImage>(self());
    // Drivers read PTX as a C string: give them a terminated copy.
    std::string bytes(image.image);
    if (tessera_status status =
            check(api.moduleLoad(&gpu->module, bytes.c_str()),
                  "loading the " + image.arch + " image",
                  TESSERA_ERROR_INVALID_BUNDLE))
      return status;
    for (const KernelEntry &kernel : image.kernels) {
      void *function = nullptr;
      if (tessera_status status = check(
              api.getFunction(&function, gpu->module, kernel.name.c_str()),
              "finding kernel " + kernel.name + " in the " + image.arch +
                  " image",
              TESSERA_ERROR_INVALID_BUNDLE))
        return status;
      if (kernel.sharedBytes > 48 * 1024)
        if (tessera_status status =
                check(api.setDynamicShared(
                          function, static_cast<int>(kernel.sharedBytes)),
                      "giving " + kernel.name + " " +
                          std::to_string(kernel.sharedBytes) +
                          " bytes of shared memory"))
          return status;
      gpu->functions.push_back(function);
    }
    loaded = std::move(gpu);
    return TESSERA_SUCCESS;
  }

  tessera_status allocate(size_t bytes, void **data) override {
    if (tessera_status status = current())
      return status;
    return check(api.allocate(data, std::max<size_t>(bytes, 1)),
                 "allocating " + std::to_string(bytes) + " bytes");
  }
  void release(void *data) override {
    if (current() == TESSERA_SUCCESS)
      api.release(data);
  }

  tessera_status createStream(std::unique_ptr<Stream> &stream) override {
    void *handle = nullptr;
    if (tessera_status status = current())
      return status;
    if (tessera_status status =
            check(api.streamCreate(&handle), "creating a stream"))
      return status;
    stream = std::make_unique<GpuStream>(self(), handle);
    return TESSERA_SUCCESS;
  }
  tessera_status wrapStream(void *native,
                            std::unique_ptr<Stream> &stream) override {
    stream = std::make_unique<GpuStream>(self(), native, /*owned=*/false);
    return TESSERA_SUCCESS;
  }
  tessera_status createEvent(std::unique_ptr<Event> &event) override {
    void *handle = nullptr;
    if (tessera_status status = current())
      return status;
    if (tessera_status status =
            check(api.eventCreate(&handle), "creating an event"))
      return status;
    event = std::make_unique<GpuEvent>(self(), handle);
    return TESSERA_SUCCESS;
  }

  tessera_status residentPrograms(const Kernel &kernel,
                                  int64_t &programs) override {
    // Asked once per kernel: the driver's queries would cost every launch.
    std::lock_guard<std::mutex> lock(residentMutex);
    if (auto it = resident.find(kernel.function); it != resident.end()) {
      programs = it->second;
      return TESSERA_SUCCESS;
    }
    if (tessera_status status = Backend::residentPrograms(kernel, programs))
      return status;
    int blocks = 1;
    if (api.occupancy)
      if (tessera_status status = check(
              api.occupancy(&blocks, kernel.function,
                            static_cast<unsigned>(kernel.entry->threads),
                            static_cast<unsigned>(kernel.entry->sharedBytes)),
              "reading the occupancy of " + kernel.entry->name))
        return status;
    programs *= std::max(1, blocks);
    resident[kernel.function] = programs;
    return TESSERA_SUCCESS;
  }

  tessera_status launch(const Kernel &kernel, tessera_grid grid,
                        LaunchArgs args, Stream *stream) override {
    if (tessera_status status = current())
      return status;
    if (tessera_status status = appendTensorMaps(args))
      return status;
    std::vector<void *> params = args.perParameter();
    const KernelEntry &entry = *kernel.entry;
    auto threads = static_cast<unsigned>(entry.threads);
    auto shared = static_cast<unsigned>(entry.sharedBytes);
    if (entry.hasCluster() && !api.launchClusters)
      return fail(TESSERA_ERROR_UNSUPPORTED,
                  entry.name + " launches in thread-block clusters, which " +
                      api.name + " (" + api.library +
                      ") cannot (CUDA 12's cuLaunchKernelEx)");
    int result =
        entry.hasCluster()
            ? api.launchClusters(kernel.function, grid, entry.cluster, threads,
                                 shared, handle(stream), params.data())
            : api.launch(kernel.function, grid, threads, shared, handle(stream),
                         params.data());
    if (tessera_status status = check(result, "launching " + entry.name))
      return status;
    return stream ? TESSERA_SUCCESS : synchronizeDefault(entry.name);
  }

  tessera_status copy(void *destination, const void *source, size_t bytes,
                      Copy direction, Stream *stream) override {
    if (tessera_status status = current())
      return status;
    int result =
        direction == Copy::HostToDevice
            ? api.copyToDevice(destination, source, bytes, handle(stream))
            : api.copyToHost(destination, source, bytes, handle(stream));
    return check(result, "copying " + std::to_string(bytes) + " bytes");
  }

  tessera_status record(Event &event, Stream &stream) override {
    if (tessera_status status = current())
      return status;
    auto &e = static_cast<GpuEvent &>(event);
    e.recorded = true;
    return check(api.eventRecord(e.handle, handle(&stream)),
                 "recording an event");
  }

  tessera_status synchronize(Stream *stream) override {
    if (tessera_status status = current())
      return status;
    return check(api.streamSynchronize(handle(stream)),
                 stream ? "synchronizing a stream"
                        : "synchronizing the device");
  }

  void waitIdle() override {
    if (current() == TESSERA_SUCCESS)
      api.streamSynchronize(nullptr); // its failure stays the context's
  }

  tessera_status elapsedMs(Event &start, Event &end,
                           double &milliseconds) override {
    auto &s = static_cast<GpuEvent &>(start);
    auto &e = static_cast<GpuEvent &>(end);
    if (!s.recorded || !e.recorded)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "both events must be recorded first");
    if (tessera_status status = current())
      return status;
    float ms = 0;
    if (tessera_status status =
            check(api.eventSynchronize(e.handle), "waiting for an event"))
      return status;
    if (tessera_status status =
            check(api.eventElapsedMs(&ms, s.handle, e.handle), "timing events"))
      return status;
    milliseconds = ms;
    return TESSERA_SUCCESS;
  }

private:
  DeviceRef self() const { return {api, ordinal, context}; }

  /// One pointer parameter per tensor map the kernel takes: to a device
  /// copy of the encoded map (kept for the device's life, one per distinct
  /// map, so that no launch in flight loses it), or null where the driver
  /// cannot encode it (the kernel's threads then copy).
  tessera_status appendTensorMaps(LaunchArgs &args) {
    for (const LaunchArgs::TensorMap &m : args.tensorMaps) {
      alignas(64) std::array<uint64_t, 16> map{};
      void *pointer = nullptr;
      // The driver refuses what TMA cannot read (empty views included).
      if (api.encodeTensorMap && api.encodeTensorMap(map.data(), m) == 0) {
        std::lock_guard<std::mutex> lock(tensorMapMutex);
        auto known = tensorMaps.find(map);
        if (known == tensorMaps.end()) {
          void *stored = nullptr;
          if (tessera_status status = check(api.allocate(&stored, sizeof map),
                                            "allocating a tensor map"))
            return status;
          known = tensorMaps.emplace(map, stored).first;
          if (tessera_status status = check(
                  api.copyToDevice(stored, map.data(), sizeof map, nullptr),
                  "copying a tensor map"))
            return status;
        }
        pointer = known->second;
      }
      args.slots.push_back({int64_t(reinterpret_cast<uintptr_t>(pointer))});
      args.views.push_back(false);
    }
    return TESSERA_SUCCESS;
  }

  static void *handle(Stream *stream) {
    return stream ? static_cast<GpuStream *>(stream)->handle : nullptr;
  }

  tessera_status current() {
    return check(api.makeCurrent(ordinal, context),
                 "making device " + std::to_string(ordinal) + " current");
  }

  tessera_status synchronizeDefault(const std::string &kernel) {
    return check(api.streamSynchronize(nullptr), "running " + kernel);
  }

  /// A failed driver call: TESSERA_ERROR_KERNEL unless told otherwise.
  tessera_status check(int result, const std::string &what,
                       tessera_status status = TESSERA_ERROR_KERNEL) const {
    if (result == 0)
      return TESSERA_SUCCESS;
    return fail(result == api.noDevice ? TESSERA_ERROR_NO_DEVICE : status,
                std::string(api.name) + " failed " + what + ": " +
                    api.describe(result));
  }

  const GpuApi &api;
  int ordinal;
  void *context;
  std::string arch;
  std::mutex tensorMapMutex;
  std::map<std::array<uint64_t, 16>, void *> tensorMaps;
  /// Resident programs per kernel function (residentPrograms).
  std::mutex residentMutex;
  std::map<void *, int64_t> resident;
};
} // namespace

namespace {
/// The driver table of `kind`, loaded once; null (failure recorded) if
/// the driver is missing.
const GpuApi *gpuApi(tessera_device_kind kind) {
  struct Loaded {
    std::once_flag once;
    const GpuApi *api = nullptr;
    tessera_status status = TESSERA_SUCCESS;
    std::string error;
  };
  static Loaded cuda, hip;
  Loaded &loaded = kind == TESSERA_DEVICE_CUDA ? cuda : hip;
  std::call_once(loaded.once, [&] {
    loaded.api =
        kind == TESSERA_DEVICE_CUDA ? loadCudaDriver() : loadHipDriver();
    if (!loaded.api) {
      loaded.status = TESSERA_ERROR_NO_DRIVER;
      loaded.error = tesseraGetLastError();
    }
  });
  if (!loaded.api)
    fail(loaded.status, loaded.error);
  return loaded.api;
}
} // namespace

tessera_status tessera::runtime::gpuDeviceCount(tessera_device_kind kind,
                                                int &count) {
  const GpuApi *api = gpuApi(kind);
  if (!api)
    return TESSERA_ERROR_NO_DRIVER;
  if (int result = api->deviceCount(&count)) {
    count = 0;
    // Drivers report "no device" as an error; that is a count of 0.
    if (result == api->noDevice)
      return TESSERA_SUCCESS;
    return fail(TESSERA_ERROR_NO_DRIVER,
                std::string(api->name) +
                    " cannot count devices: " + api->describe(result));
  }
  return TESSERA_SUCCESS;
}

tessera_status tessera::runtime::openGpu(tessera_device_kind kind, int ordinal,
                                         std::unique_ptr<Backend> &backend) {
  int count = 0;
  if (tessera_status status = gpuDeviceCount(kind, count))
    return status;
  const GpuApi &api = *gpuApi(kind);
  if (ordinal >= count)
    return fail(TESSERA_ERROR_NO_DEVICE, std::string(api.name) + " has " +
                                             std::to_string(count) +
                                             " device(s); there is no device " +
                                             std::to_string(ordinal));
  void *context = nullptr;
  if (int result = api.open(ordinal, &context))
    return fail(TESSERA_ERROR_NO_DEVICE,
                std::string("cannot open ") + api.name + " device " +
                    std::to_string(ordinal) + ": " + api.describe(result));
  backend = std::make_unique<GpuBackend>(api, ordinal, context);
  return TESSERA_SUCCESS;
}

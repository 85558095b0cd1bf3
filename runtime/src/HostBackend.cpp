//===- HostBackend.cpp - Host and emulator devices --------------*- C++ -*-===//
//
// A host device runs the bundle's host image; an emulator device runs an
// emu-<chip> image (the GPU kernels' device code compiled for the CPU, see
// emu/Emulator.h). Both keep memory on the host, load the image's shared
// object from an anonymous in-memory file (memfd) with dlopen, and split a
// launch's program instances into chunks for the device's persistent thread
// pool. A stream is a thread running its queue in order.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "TaskQueue.h"
#include "ThreadPool.h"
#include "emu/Emulator.h"
#include "tessera/runtime/kernel_abi.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace tessera::runtime;

namespace {

/// The emulator's race detector and error report are process-wide: one
/// emulated launch at a time.
std::mutex emulatorLaunch;

class HostImage : public LoadedImage {
public:
  ~HostImage() override {
    if (library)
      dlclose(library);
    if (fd >= 0)
      close(fd);
  }
  void *function(size_t index) override {
    return index < entries.size() ? entries[index] : nullptr;
  }

  void *library = nullptr;
  /// The memfd holding the image: kept open while loaded, so that its
  /// /proc/self/fd path stays unique (dlopen reuses libraries by path).
  int fd = -1;
  std::vector<void *> entries;
};

class HostStream;

/// The live streams of a device, for synchronizing all of them.
struct StreamSet {
  std::mutex mutex;
  std::set<HostStream *> streams;
};

/// A host stream: a task queue, known to its device's StreamSet.
class HostStream : public Stream {
public:
  explicit HostStream(StreamSet &set) : set(set) {
    std::lock_guard<std::mutex> lock(set.mutex);
    set.streams.insert(this);
  }
  ~HostStream() override {
    std::lock_guard<std::mutex> lock(set.mutex);
    set.streams.erase(this);
  }

  TaskQueue queue;

private:
  StreamSet &set;
};

/// An event's state is shared with the stream tasks that mark it, so that
/// the event may be destroyed before its stream reaches them.
class HostEvent : public Event {
public:
  struct State {
    std::mutex mutex;
    std::condition_variable reached;
    bool recorded = false, done = false;
    std::chrono::steady_clock::time_point when;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
};

std::string cpuName() {
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size())
        return line.substr(colon + 2);
    }
  return "host CPU";
}

/// The dynamic shared memory a block may use on the chips the emulator
/// knows (their opt-in limits).
int64_t sharedBytesOf(const std::string &chip) {
  if (chip.rfind("sm_8", 0) == 0)
    return 163 * 1024;
  if (chip.rfind("sm_90", 0) == 0)
    return 227 * 1024;
  if (chip == "gfx90a" || chip == "gfx942")
    return 64 * 1024;
  return 0;
}

class HostBackend : public Backend {
public:
  explicit HostBackend(tessera_device_kind kind)
      : deviceKind(kind),
        pool(std::make_shared<ThreadPool>(static_cast<int>(
            std::max(1u, std::thread::hardware_concurrency())))) {}

  tessera_device_kind kind() const override { return deviceKind; }
  bool emulates() const { return deviceKind == TESSERA_DEVICE_EMULATOR; }

  tessera_status properties(tessera_device_properties &props) override {
    std::string name = cpuName();
    std::string arch = "host";
    if (emulates()) {
      name = "Tessera GPU emulator" + (chip.empty() ? "" : " of " + chip) +
             " on " + name;
      arch = chip.empty() ? "emu" : "emu-" + chip;
    }
    copyName(props.name, sizeof(props.name), name);
    copyName(props.arch, sizeof(props.arch), arch);
    props.memory_bytes = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                         static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    props.multiprocessors = threads();
    props.shared_bytes_per_block = emulates() ? sharedBytesOf(chip) : 0;
    return TESSERA_SUCCESS;
  }

  int matches(const BundleImage &image) const override {
    std::string_view arch = image.arch;
    if (image.kind != kImageObject)
      return 0;
    if (!emulates())
      return arch == "host";
    if (!chip.empty())
      return arch == "emu-" + chip;
    return arch.rfind("emu-", 0) == 0;
  }

  std::string wanted() const override {
    if (!emulates())
      return "a host image; compile with --target=host";
    if (chip.empty())
      return "an emulator image; compile with a GPU target (--target=sm_80)";
    return "the emu-" + chip + " image; compile with --target=" + chip;
  }

  tessera_status load(const BundleImage &image,
                      std::unique_ptr<LoadedImage> &loaded) override;

  tessera_status allocate(size_t bytes, void **data) override {
    // aligned_alloc takes a multiple of the alignment.
    *data = bytes <= SIZE_MAX - 63
                ? std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) /
                                             64 * 64)
                : nullptr;
    if (!*data)
      return fail(TESSERA_ERROR_OUT_OF_RESOURCES,
                  "cannot allocate " + std::to_string(bytes) + " bytes");
    return TESSERA_SUCCESS;
  }
  void release(void *data) override { std::free(data); }

  tessera_status createStream(std::unique_ptr<Stream> &stream) override {
    stream = std::make_unique<HostStream>(streamSet);
    return TESSERA_SUCCESS;
  }
  tessera_status wrapStream(void *, std::unique_ptr<Stream> &) override {
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "the host and the emulator have no driver streams to wrap");
  }
  tessera_status createEvent(std::unique_ptr<Event> &event) override {
    event = std::make_unique<HostEvent>();
    return TESSERA_SUCCESS;
  }

  tessera_status launch(const Kernel &kernel, tessera_grid grid,
                        LaunchArgs args, Stream *stream) override {
    encodeTensorMaps(args);
    std::shared_ptr<ThreadPool> workers = currentPool();
    auto task = [this, kernel, grid, workers,
                 args = std::move(args)]() mutable {
      return run(kernel, grid, args, *workers);
    };
    return submit(std::move(task), stream);
  }

  tessera_status copy(void *destination, const void *source, size_t bytes, Copy,
                      Stream *stream) override {
    return submit(
        [=] {
          std::memcpy(destination, source, bytes);
          return TESSERA_SUCCESS;
        },
        stream);
  }

  tessera_status record(Event &event, Stream &stream) override {
    std::shared_ptr<HostEvent::State> e = static_cast<HostEvent &>(event).state;
    {
      std::lock_guard<std::mutex> lock(e->mutex);
      e->recorded = true;
      e->done = false;
    }
    // Marked even after a failure in the stream: elapsedMs may wait for it.
    static_cast<HostStream &>(stream).queue.enqueue(
        [e] {
          std::lock_guard<std::mutex> lock(e->mutex);
          e->when = std::chrono::steady_clock::now();
          e->done = true;
          e->reached.notify_all();
          return TESSERA_SUCCESS;
        },
        /*always=*/true);
    return TESSERA_SUCCESS;
  }

  tessera_status synchronize(Stream *stream) override {
    if (stream)
      return static_cast<HostStream *>(stream)->queue.synchronize();
    std::lock_guard<std::mutex> lock(streamSet.mutex);
    tessera_status first = TESSERA_SUCCESS;
    std::string message;
    for (HostStream *s : streamSet.streams)
      if (tessera_status status = s->queue.synchronize(); status && !first) {
        first = status;
        message = tesseraGetLastError();
      }
    return first ? fail(first, message) : TESSERA_SUCCESS;
  }

  void waitIdle() override {
    std::lock_guard<std::mutex> lock(streamSet.mutex);
    for (HostStream *s : streamSet.streams)
      s->queue.waitIdle();
  }

  tessera_status elapsedMs(Event &start, Event &end,
                           double &milliseconds) override {
    auto wait = [](HostEvent::State &e) {
      std::unique_lock<std::mutex> lock(e.mutex);
      if (!e.recorded)
        return false;
      e.reached.wait(lock, [&] { return e.done; });
      return true;
    };
    HostEvent::State &s = *static_cast<HostEvent &>(start).state;
    HostEvent::State &e = *static_cast<HostEvent &>(end).state;
    if (!wait(s) || !wait(e))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "both events must be recorded first");
    milliseconds =
        std::chrono::duration<double, std::milli>(e.when - s.when).count();
    return TESSERA_SUCCESS;
  }

  tessera_status setThreads(int count) override {
    if (count < 1)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "a host device needs at least one thread, got " +
                      std::to_string(count));
    // Launches already queued keep the pool they were given.
    std::lock_guard<std::mutex> lock(mutex);
    if (count != pool->size())
      pool = std::make_shared<ThreadPool>(count);
    return TESSERA_SUCCESS;
  }
  int threads() const override {
    std::lock_guard<std::mutex> lock(mutex);
    return pool->size();
  }

  tessera_status setChip(std::string name) override {
    if (!emulates())
      return Backend::setChip(std::move(name));
    // The chips tessera-compile makes emulator images for.
    static const char *const chips[] = {"sm_80", "sm_90a", "gfx90a", "gfx942"};
    if (std::find(std::begin(chips), std::end(chips), name) == std::end(chips))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "the emulator has no chip '" + name +
                      "'; it emulates sm_80, sm_90a, gfx90a and gfx942");
    chip = std::move(name);
    return TESSERA_SUCCESS;
  }

private:
  std::shared_ptr<ThreadPool> currentPool() const {
    std::lock_guard<std::mutex> lock(mutex);
    return pool;
  }

  tessera_status submit(Task task, Stream *stream) {
    if (!stream)
      return task();
    static_cast<HostStream *>(stream)->queue.enqueue(std::move(task));
    return TESSERA_SUCCESS;
  }

  tessera_status run(const Kernel &kernel, tessera_grid grid, LaunchArgs &args,
                     ThreadPool &workers);

  /// The emulator's tensor maps (emu::TensorMap), one pointer argument
  /// each after the kernel's arguments; a null pointer where TMA cannot
  /// read the view (the kernel's threads then copy it).
  void encodeTensorMaps(LaunchArgs &args) {
    args.encoded.resize(args.tensorMaps.size());
    for (size_t i = 0; i < args.tensorMaps.size(); ++i) {
      const LaunchArgs::TensorMap &m = args.tensorMaps[i];
      tessera::emu::TensorMap map;
      bool encoded =
          tessera::emu::encodeTensorMap(map, m.base, m.elementBytes, m.rank,
                                        m.dims, m.strideBytes, m.box, nullptr);
      if (encoded)
        std::memcpy(args.encoded[i].data(), &map, sizeof map);
      args.slots.push_back({encoded ? int64_t(reinterpret_cast<uintptr_t>(
                                          args.encoded[i].data()))
                                    : 0});
      args.views.push_back(false);
    }
  }

  tessera_device_kind deviceKind;
  std::string chip; // emulator
  mutable std::mutex mutex;
  std::shared_ptr<ThreadPool> pool;
  StreamSet streamSet;
};

tessera_status HostBackend::load(const BundleImage &image,
                                 std::unique_ptr<LoadedImage> &loaded) {
  auto host = std::make_unique<HostImage>();
  host->fd = memfd_create("tessera-kernels", MFD_CLOEXEC);
  if (host->fd < 0)
    return fail(TESSERA_ERROR_UNSUPPORTED,
                std::string("memfd_create failed: ") + std::strerror(errno));
  size_t written = 0;
  while (written < image.image.size()) {
    ssize_t n = write(host->fd, image.image.data() + written,
                      image.image.size() - written);
    if (n <= 0)
      return fail(TESSERA_ERROR_UNSUPPORTED, "cannot stage the host image");
    written += n;
  }
  std::string path = "/proc/self/fd/" + std::to_string(host->fd);
  host->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!host->library)
    return fail(TESSERA_ERROR_INVALID_BUNDLE,
                "cannot load the " + image.arch + " image: " + dlerror());
  // The emulated chip's limit, as a GPU's driver would refuse the kernel.
  int64_t sharedLimit = emulates() ? sharedBytesOf(image.arch.substr(4)) : 0;
  for (const KernelEntry &kernel : image.kernels) {
    if (sharedLimit && kernel.sharedBytes > sharedLimit)
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "kernel " + kernel.name + " of the " + image.arch +
                      " image needs " + std::to_string(kernel.sharedBytes) +
                      " bytes of shared memory; a block has at most " +
                      std::to_string(sharedLimit));
    std::string symbol = TESSERA_KERNEL_SYMBOL_PREFIX + kernel.name;
    void *entry = dlsym(host->library, symbol.c_str());
    if (!entry)
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "the " + image.arch + " image lacks " + symbol);
    host->entries.push_back(entry);
  }
  std::string missing;
  if (emulates() && !tessera::emu::bindImage(host->library, missing))
    return fail(TESSERA_ERROR_INVALID_BUNDLE,
                "the emulator does not implement '" + missing +
                    "', which the " + image.arch + " image calls");
  loaded = std::move(host);
  return TESSERA_SUCCESS;
}

tessera_status HostBackend::run(const Kernel &kernel, tessera_grid grid,
                                LaunchArgs &args, ThreadPool &workers) {
  auto fn = reinterpret_cast<tessera_host_entry>(kernel.function);
  std::vector<void *> argv = args.perArgument();
  int64_t total = grid.x * grid.y * grid.z;
  int64_t chunk = std::max<int64_t>(1, total / (int64_t(workers.size()) * 8));
  std::function<void(int64_t, int64_t)> body = [&](int64_t begin, int64_t end) {
    fn(argv.data(), grid.x, grid.y, grid.z, begin, end);
  };
  if (!emulates()) {
    workers.parallelFor(total, chunk, body);
    return TESSERA_SUCCESS;
  }
  // The emulator runs whole clusters together (its image numbers the
  // programs cluster by cluster): chunks of whole clusters (the runtime
  // launches a grid of whole clusters).
  const uint32_t *cluster = kernel.entry->cluster;
  int64_t size = int64_t(cluster[0]) * cluster[1] * cluster[2];
  chunk = (chunk + size - 1) / size * size;
  std::lock_guard<std::mutex> lock(emulatorLaunch);
  tessera::emu::beginLaunch();
  workers.parallelFor(total, chunk, body);
  std::string error = tessera::emu::takeError();
  if (!error.empty())
    return fail(TESSERA_ERROR_KERNEL, kernel.entry->name + ": " + error);
  return TESSERA_SUCCESS;
}
} // namespace

tessera_status Backend::residentPrograms(const Kernel &, int64_t &programs) {
  tessera_device_properties props{};
  if (tessera_status status = properties(props))
    return status;
  programs = std::max<int64_t>(1, props.multiprocessors);
  return TESSERA_SUCCESS;
}

tessera_status Backend::setThreads(int) {
  return fail(TESSERA_ERROR_INVALID_ARGUMENT,
              "worker threads are for host and emulator devices");
}

tessera_status Backend::setChip(std::string) {
  return fail(TESSERA_ERROR_INVALID_ARGUMENT,
              "a chip is chosen for emulator devices only");
}

tessera_status tessera::runtime::hostDeviceCount(tessera_device_kind,
                                                 int &count) {
  count = 1;
  return TESSERA_SUCCESS;
}

tessera_status tessera::runtime::openHost(tessera_device_kind kind, int ordinal,
                                          std::unique_ptr<Backend> &backend) {
  if (ordinal != 0)
    return fail(
        TESSERA_ERROR_NO_DEVICE,
        "there is one " +
            std::string(kind == TESSERA_DEVICE_HOST ? "host" : "emulator") +
            " device (ordinal 0), not " + std::to_string(ordinal));
  backend = std::make_unique<HostBackend>(kind);
  return TESSERA_SUCCESS;
}

//===- Launcher.cpp - Launches with views of host memory ------------------===//

#include "Launcher.h"

#include <algorithm>
#include <climits>

using namespace tessera::run;

size_t tessera::run::viewSpan(const tessera_view &view,
                              const std::string &element) {
  size_t bits = 0;
  if (element == "i4")
    bits = 4;
  else if (element == "i8" || element.rfind("f8", 0) == 0)
    bits = 8;
  else if (element == "bf16" || element == "f16")
    bits = 16;
  else if (element == "f32" || element == "i32")
    bits = 32;
  else if (element == "f64" || element == "i64")
    bits = 64;
  if (!bits || view.rank < 1)
    return 0;
  for (int64_t d = 0; d < view.rank; ++d)
    if (view.sizes[d] == 0)
      return 0;
  int64_t last = view.rank - 1;
  // Outer strides count elements, or bytes for int4.
  size_t outer = 0;
  for (int64_t d = 0; d < last; ++d)
    outer += size_t(view.sizes[d] - 1) * size_t(view.strides[d]);
  size_t inner = size_t(view.sizes[last]);
  if (bits == 4)
    return outer + (inner + 1) / 2;
  return (outer + inner) * (bits / 8);
}

tessera::Device tessera::run::openDevice(const std::string &name,
                                         const std::string &chip,
                                         int64_t threads, bool races,
                                         std::string &error, int64_t programs) {
  tessera_device_kind kind;
  if (tesseraParseDeviceKind(name.c_str(), &kind)) {
    error = "cannot open the device: " + tessera::error();
    return {};
  }
  bool hostMemory = usesHostMemory(kind);
  if (races && kind != TESSERA_DEVICE_EMULATOR) {
    error = "--races needs --device=emu";
    return {};
  }
  if (!chip.empty() && kind != TESSERA_DEVICE_EMULATOR) {
    error = "--chip chooses the emulated chip; it needs --device=emu";
    return {};
  }
  if (threads != -1 && !hostMemory) {
    error = "--threads is for --device=host and --device=emu";
    return {};
  }
  tessera::Device device = tessera::Device::open(kind);
  if (!device) {
    error = "cannot open the " + name + " device: " + tessera::error();
    return {};
  }
  if (races)
    tesseraEmulatorSetRaceDetection(1);
  if (!chip.empty() && tesseraEmulatorSetChip(device.get(), chip.c_str())) {
    error = "cannot set the chip: " + tessera::error();
    return {};
  }
  // Counts beyond int are out of the runtime's range too.
  if (threads != -1 &&
      tesseraHostSetThreads(device.get(), static_cast<int>(std::clamp<int64_t>(
                                              threads, INT_MIN, INT_MAX)))) {
    error = "cannot set the thread count: " + tessera::error();
    return {};
  }
  if (programs != -1 && tesseraDeviceSetMaxPrograms(device.get(), programs)) {
    error = "cannot set --programs: " + tessera::error();
    return {};
  }
  return device;
}

Launcher::~Launcher() {
  for (Staged &s : staged)
    tesseraBufferDestroy(s.buffer);
}

tessera_status Launcher::stage(void *host, size_t bytes, void *&address) {
  const char *begin = static_cast<const char *>(host);
  for (Staged &s : staged)
    if (begin >= s.host && begin + bytes <= s.host + s.bytes) {
      address =
          static_cast<char *>(tesseraBufferData(s.buffer)) + (begin - s.host);
      return TESSERA_SUCCESS;
    }
  tessera_buffer *buffer = nullptr;
  if (tessera_status status = tesseraBufferCreate(device, bytes, &buffer))
    return status;
  if (tessera_status status = tesseraBufferWrite(buffer, 0, host, bytes)) {
    tesseraBufferDestroy(buffer);
    return status;
  }
  staged.push_back({begin, bytes, buffer});
  address = tesseraBufferData(buffer);
  return TESSERA_SUCCESS;
}

tessera_status Launcher::launch(const std::string &kernel, tessera_grid grid,
                                void *const *args) {
  tessera_kernel *handle = nullptr;
  tessera_kernel_info info;
  if (tessera_status status =
          tesseraModuleGetKernel(module, kernel.c_str(), &handle))
    return status;
  tesseraKernelGetInfo(handle, &info);
  if (usesHostMemory(tesseraDeviceKind(device)))
    return tesseraLaunch(handle, grid, args, stream);
  // A GPU: the same arguments with views of staged device memory.
  std::vector<tessera_view> views(info.num_args);
  std::vector<void *> deviceArgs(args, args + info.num_args);
  for (size_t i = 0; i < info.num_args; ++i) {
    std::string spec = info.args[i];
    if (spec.rfind("view:", 0) != 0 || !args[i])
      continue;
    views[i] = *static_cast<const tessera_view *>(args[i]);
    std::string element = spec.substr(5, spec.rfind(':') - 5);
    size_t bytes = viewSpan(views[i], element);
    if (bytes && views[i].data)
      if (tessera_status status = stage(views[i].data, bytes, views[i].data))
        return status;
    deviceArgs[i] = &views[i];
  }
  return tesseraLaunch(handle, grid, deviceArgs.data(), stream);
}

tessera_status Launcher::download() {
  for (Staged &s : staged)
    if (tessera_status status =
            tesseraBufferRead(s.buffer, 0, const_cast<char *>(s.host), s.bytes))
      return status;
  return TESSERA_SUCCESS;
}

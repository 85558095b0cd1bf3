//===- Compare.cpp - Any kernel: a device's image against a reference ----===//
//
// tessera-run B --compare=host --kernel=K --grid=X[,Y[,Z]]
//             --view=I:D0xD1... --scalar=I:VALUE [--device=emu]
// runs kernel K of bundle B on the host image and on the device's image
// (the emulator's by default) with the same random inputs (each row and
// column of a float view at its own magnitude) and compares every view
// afterwards: the worst RMS error of the whole view, its rows and its
// columns, relative to the host's there, against a tolerance of the view's
// element type. No reference formula is needed, so a user's own kernel is
// checked.
// --compare=emu takes the emulator's image as the reference (the device
// defaults to the host) and demands equal bits on small-integer inputs:
// on a GPU, that checks the emulator's fragment and swizzle tables (and the
// GPU image's) element by element.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Launcher.h"
#include "Problems.h"

#include "tessera/runtime/quantize.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

using namespace tessera::run;

namespace {

/// A view argument's buffer.
struct Buffer {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t s : shape)
      n *= s;
    return n;
  }
};

int64_t elementBytes(const std::string &dtype) {
  if (dtype == "f32" || dtype == "i32")
    return 4;
  if (dtype == "f16" || dtype == "bf16")
    return 2;
  if (dtype == "i8" || dtype == "f8E4M3FN")
    return 1;
  if (dtype == "i64")
    return 8;
  return 0;
}

tessera_dtype dtypeOf(const std::string &name) {
  for (int d = TESSERA_DTYPE_F32; d <= TESSERA_DTYPE_I64; ++d)
    if (name == tesseraDTypeName(tessera_dtype(d)))
      return tessera_dtype(d);
  return TESSERA_DTYPE_UNSPECIFIED;
}

double valueAt(const Buffer &b, int64_t i) {
  const uint8_t *p = b.bytes.data() + i * elementBytes(b.dtype);
  if (b.dtype == "f32") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (b.dtype == "bf16" || b.dtype == "f16") {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return b.dtype == "bf16" ? tessera::fromBF16(v) : tessera::fromF16(v);
  }
  if (b.dtype == "f8E4M3FN")
    return tessera::fromE4M3(*p);
  if (b.dtype == "i8")
    return int8_t(*p);
  if (b.dtype == "i32") {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return double(v);
}

/// Random values: floats uniform in [-1, 1] times a magnitude per row and
/// per column (2^u, u uniform in [-2, 2]; rows along the innermost
/// dimension), so that data from the wrong row or column shows; small
/// integers for integer views. With `exact`, small integers everywhere,
/// which every float format holds and whose products and sums (of up to
/// 2^18 terms) are exact in f32, so any two correct images agree bit for
/// bit.
void fill(Buffer &b, std::mt19937 &rng, bool exact) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-8, 8), smaller(-2, 2);
  int64_t cols = b.shape.back(),
          rows = b.elements() / std::max<int64_t>(cols, 1);
  std::vector<float> rowScale = spreadMagnitudes(rng, rows, 2.0f);
  std::vector<float> colScale = spreadMagnitudes(rng, cols, 2.0f);
  int64_t i = 0;
  auto real = [&](std::mt19937 &rng) {
    return exact ? float(smaller(rng))
                 : uniform(rng) * rowScale[size_t(i / cols)] *
                       colScale[size_t(i % cols)];
  };
  int64_t size = elementBytes(b.dtype);
  for (; i < b.elements(); ++i) {
    uint8_t *p = b.bytes.data() + i * size;
    if (b.dtype == "f32") {
      float v = real(rng);
      std::memcpy(p, &v, 4);
    } else if (b.dtype == "bf16" || b.dtype == "f16") {
      uint16_t v = b.dtype == "bf16" ? tessera::toBF16(real(rng))
                                     : tessera::toF16(real(rng));
      std::memcpy(p, &v, 2);
    } else if (b.dtype == "f8E4M3FN") {
      *p = tessera::toE4M3(exact ? real(rng) : 4.0f * real(rng));
    } else {
      int64_t v = small(rng);
      std::memcpy(p, &v, size_t(size)); // little endian: the low bytes
    }
  }
}

/// The relative tolerance of an element type: one or two units in the last
/// place of the stored format (accumulation orders differ between images).
double toleranceOf(const std::string &dtype) {
  if (dtype == "f32")
    return 1e-4;
  if (dtype == "bf16")
    return 1e-2;
  if (dtype == "f16")
    return 2e-3;
  if (dtype == "f8E4M3FN")
    return 7e-2;
  return 0; // integers: exact
}

bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t x = text.find('x', start);
    std::string part = text.substr(
        start, x == std::string::npos ? std::string::npos : x - start);
    int64_t extent = 0;
    // Each extent below 2^31; the whole view is bounded where it is made.
    if (!parseInteger(part, extent) || extent < 0 || extent >= (1ll << 31))
      return false;
    shape.push_back(extent);
    if (x == std::string::npos)
      break;
    start = x + 1;
  }
  return !shape.empty() && shape.size() <= TESSERA_MAX_RANK;
}

tessera_view denseView(Buffer &b) {
  tessera_view v{};
  v.data = b.bytes.data();
  v.dtype = dtypeOf(b.dtype);
  v.rank = int64_t(b.shape.size());
  int64_t stride = 1;
  for (int64_t d = v.rank; d-- > 0;) {
    v.sizes[d] = b.shape[size_t(d)];
    v.strides[d] = stride;
    stride *= b.shape[size_t(d)];
  }
  return v;
}

} // namespace

int tessera::run::runCompare(const CompareOptions &options) {
  auto error = [](const std::string &message) {
    std::fprintf(stderr, "tessera-run: %s\n", message.c_str());
    return 2;
  };
  const std::string &refName = options.reference;
  bool exact = refName == "emu";
  if (options.device == refName)
    return error("--compare=" + refName + " needs another device (--device=" +
                 (exact ? "host" : "emu") + ")");
  // The chip, race detection and threads go to the devices that take them.
  auto open = [&](const std::string &name, std::string &why) {
    bool emulator = name == "emu", hostMemory = emulator || name == "host";
    return openDevice(name, emulator ? options.chip : "",
                      hostMemory ? options.threads : -1,
                      emulator && options.races, why, options.programs);
  };
  std::string why;
  tessera::Device host = open(refName, why);
  tessera::Device target = host ? open(options.device, why) : tessera::Device();
  if (!host || !target)
    return error(why);
  tessera::Module reference =
      tessera::Module::load(host, options.bundle.c_str());
  if (!reference)
    return error("cannot load the " + refName +
                 " image: " + tesseraGetLastError());
  tessera::Module tested =
      tessera::Module::load(target, options.bundle.c_str());
  if (!tested)
    return error(std::string("cannot load the ") + options.device +
                 " image: " + tesseraGetLastError());

  tessera_kernel_info info, testedInfo;
  tessera_kernel *handle = nullptr, *testedHandle = nullptr;
  std::string kernel = options.kernel;
  if (kernel.empty()) {
    if (tesseraModuleKernelCount(reference.get()) != 1)
      return error("the bundle has several kernels; name one with --kernel");
    tesseraModuleGetKernelAt(reference.get(), 0, &handle);
  } else if (tesseraModuleGetKernel(reference.get(), kernel.c_str(), &handle)) {
    return error(tesseraGetLastError());
  }
  tesseraKernelGetInfo(handle, &info);
  kernel = info.name;
  if (tesseraModuleGetKernel(tested.get(), kernel.c_str(), &testedHandle))
    return error(tesseraGetLastError());
  tesseraKernelGetInfo(testedHandle, &testedInfo);

  // Arguments: views from --view, scalars from --scalar.
  std::vector<Buffer> buffers(info.num_args);
  std::vector<int64_t> scalars(info.num_args, 0);
  std::vector<double> reals(info.num_args, 0);
  std::vector<float> floats(info.num_args, 0);
  std::vector<bool> given(info.num_args, false);
  for (const auto &[index, text] : options.views) {
    if (index < 0 || size_t(index) >= info.num_args ||
        std::string(info.args[index]).rfind("view:", 0) != 0)
      return error("--view=" + std::to_string(index) +
                   ":... names no view argument of " + kernel);
    std::string spec = info.args[index];
    size_t colon = spec.rfind(':');
    Buffer &b = buffers[size_t(index)];
    b.dtype = spec.substr(5, colon - 5);
    if (!parseShape(text, b.shape) ||
        int64_t(b.shape.size()) != std::stoll(spec.substr(colon + 1)))
      return error("--view=" + std::to_string(index) + ":" + text +
                   " is not a shape of rank " + spec.substr(colon + 1) +
                   " (write it as 128x64)");
    if (!elementBytes(b.dtype))
      return error("--compare does not handle " + b.dtype + " views yet");
    double elements = 1;
    for (int64_t extent : b.shape)
      elements *= double(extent);
    if (elements > double(int64_t(1) << 32))
      return error("--view=" + std::to_string(index) + ":" + text +
                   " has more than 2^32 elements");
    b.bytes.resize(size_t(b.elements() * elementBytes(b.dtype)));
    given[size_t(index)] = true;
  }
  for (const auto &[index, text] : options.scalars) {
    if (index < 0 || size_t(index) >= info.num_args ||
        std::string(info.args[index]).rfind("scalar:", 0) != 0)
      return error("--scalar=" + std::to_string(index) +
                   ":... names no scalar argument of " + kernel);
    std::string scalarType = std::string(info.args[index]).substr(7);
    if (scalarType == "f16" || scalarType == "bf16")
      return error("--compare does not pass " + scalarType +
                   " scalars yet (f32, f64, index and integers)");
    try {
      scalars[size_t(index)] = std::stoll(text);
      reals[size_t(index)] = std::stod(text);
    } catch (const std::exception &) {
      return error("--scalar=" + std::to_string(index) + ":" + text +
                   " is not a number");
    }
    floats[size_t(index)] = float(reals[size_t(index)]);
    given[size_t(index)] = true;
  }
  for (size_t i = 0; i < info.num_args; ++i)
    if (!given[i])
      return error(std::string("argument ") + std::to_string(i) + " (" +
                   info.args[i] + ") of " + kernel + " needs --" +
                   (std::string(info.args[i]).rfind("view:", 0) == 0
                        ? "view="
                        : "scalar=") +
                   std::to_string(i) + ":...");

  std::mt19937 rng(uint32_t(options.seed));
  for (Buffer &b : buffers)
    if (!b.dtype.empty())
      fill(b, rng, exact);
  std::vector<Buffer> results[2] = {buffers, buffers};
  tessera::Device *devices[2] = {&host, &target};
  tessera::Module *modules[2] = {&reference, &tested};
  for (int run = 0; run < 2; ++run) {
    std::vector<tessera_view> views(info.num_args);
    std::vector<void *> args(info.num_args);
    for (size_t i = 0; i < info.num_args; ++i) {
      Buffer &b = results[run][i];
      std::string spec = info.args[i];
      if (!b.dtype.empty()) {
        views[i] = denseView(b);
        args[i] = &views[i];
      } else if (spec == "scalar:f32") {
        args[i] = &floats[i];
      } else if (spec == "scalar:f64") {
        args[i] = &reals[i];
      } else {
        args[i] = &scalars[i]; // index and integers, little endian
      }
    }
    Launcher launcher(devices[run]->get(), modules[run]->get());
    if (launcher.launch(kernel,
                        {options.grid[0], options.grid[1], options.grid[2]},
                        args.data()) ||
        launcher.download())
      return error(std::string("launch on ") +
                   (run ? options.device : refName) +
                   " failed: " + tesseraGetLastError());
  }

  bool pass = true;
  std::string clusters;
  if (testedInfo.cluster[0] * testedInfo.cluster[1] * testedInfo.cluster[2] > 1)
    clusters = ", in clusters of " + std::to_string(testedInfo.cluster[0]) +
               "x" + std::to_string(testedInfo.cluster[1]) + "x" +
               std::to_string(testedInfo.cluster[2]);
  std::printf("kernel %s: %s against %s%s%s\n", kernel.c_str(),
              options.device.c_str(), refName.c_str(), clusters.c_str(),
              exact ? ", small-integer inputs, equal bits required" : "");
  for (size_t i = 0; i < info.num_args; ++i) {
    const Buffer &ref = results[0][i], &out = results[1][i];
    if (ref.dtype.empty())
      continue;
    // NaN where the reference has NaN is agreement.
    std::vector<double> got, want;
    bool finite = true;
    double scale = 0, worst = 0;
    for (int64_t e = 0; e < ref.elements(); ++e) {
      double a = valueAt(out, e), r = valueAt(ref, e);
      if (std::isnan(a) != std::isnan(r))
        finite = false;
      bool both = std::isnan(a) && std::isnan(r);
      got.push_back(both ? 0.0 : a);
      want.push_back(both ? 0.0 : r);
      scale = std::max(scale, std::fabs(want.back()));
      worst = std::max(worst, std::fabs(got.back() - want.back()));
    }
    // Exact: any difference is one. Otherwise the worst of the whole view's
    // and each row's and column's RMS error relative to the reference's
    // RMS there (compare()), so a wrong small row is not drowned.
    double relative = exact ? (scale > 0 ? worst / scale : worst)
                            : compare(got, want, ref.shape.back()).relative;
    double tolerance = exact ? 0.0 : toleranceOf(ref.dtype);
    bool ok = finite && relative <= tolerance;
    pass &= ok;
    std::printf("argument %zu (%s): relative difference %.3e (tolerance "
                "%.0e)%s\n",
                i, info.args[i], relative, tolerance,
                finite ? "" : ", NaN in one image only");
  }
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

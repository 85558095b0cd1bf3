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
#include "Npy.h"
#include "Problems.h"

#include "tessera/runtime/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
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

bool isFloat(const std::string &dtype) {
  return dtype == "f32" || dtype == "bf16" || dtype == "f16" ||
         dtype == "f8E4M3FN";
}

/// Stores `value` into element `e` of `b`, rounded to its element type.
void storeValue(Buffer &b, int64_t e, double value) {
  uint8_t *p = b.bytes.data() + e * elementBytes(b.dtype);
  if (b.dtype == "f32") {
    float v = float(value);
    std::memcpy(p, &v, 4);
  } else if (b.dtype == "bf16" || b.dtype == "f16") {
    uint16_t v = b.dtype == "bf16" ? tessera::toBF16(float(value))
                                   : tessera::toF16(float(value));
    std::memcpy(p, &v, 2);
  } else if (b.dtype == "f8E4M3FN") {
    *p = tessera::toE4M3(float(value));
  } else {
    int64_t v = int64_t(value);
    std::memcpy(p, &v, size_t(elementBytes(b.dtype)));
  }
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
  for (; i < b.elements(); ++i) {
    if (b.dtype == "f8E4M3FN")
      storeValue(b, i, exact ? real(rng) : 4.0f * real(rng));
    else if (isFloat(b.dtype))
      storeValue(b, i, real(rng));
    else
      storeValue(b, i, small(rng));
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

/// Poison for an element of `dtype`: a quiet NaN whose payload computations
/// do not make (x86-64 and GPUs produce the canonical NaNs), so that a NaN a
/// kernel computes is told from one it never wrote; 0x5A bytes for
/// integers (which the small random integers never are, though a kernel may
/// compute them).
std::vector<uint8_t> poisonElement(const std::string &dtype) {
  std::vector<uint8_t> bytes(size_t(elementBytes(dtype)), 0x5a);
  if (dtype == "f32") {
    uint32_t nan = 0x7fc5a5a5;
    std::memcpy(bytes.data(), &nan, 4);
  } else if (dtype == "bf16" || dtype == "f16") {
    uint16_t nan = dtype == "bf16" ? 0x7fe5 : 0x7e5a;
    std::memcpy(bytes.data(), &nan, 2);
  } else if (dtype == "f8E4M3FN") {
    bytes[0] = 0x7f; // e4m3's only NaN
  }
  return bytes;
}

/// Fills `b` with its poison.
void poison(Buffer &b) {
  std::vector<uint8_t> element = poisonElement(b.dtype);
  for (size_t at = 0; at < b.bytes.size(); at += element.size())
    std::memcpy(b.bytes.data() + at, element.data(), element.size());
}

/// Whether element `e` of `b` holds `element` (poisonElement's bytes).
bool isPoison(const Buffer &b, int64_t e, const std::vector<uint8_t> &element) {
  return std::memcmp(b.bytes.data() + e * int64_t(element.size()),
                     element.data(), element.size()) == 0;
}

bool sameElement(const Buffer &a, const Buffer &b, int64_t e) {
  int64_t size = elementBytes(a.dtype);
  return std::memcmp(a.bytes.data() + e * size, b.bytes.data() + e * size,
                     size_t(size)) == 0;
}

/// NumPy's element type for a view's values: its own where NumPy has it,
/// f32 for bf16 and fp8 (whose values f32 holds exactly).
std::string npyType(const std::string &dtype) {
  if (dtype == "f16")
    return "<f2";
  if (dtype == "i8")
    return "|i1";
  if (dtype == "i32")
    return "<i4";
  if (dtype == "i64")
    return "<i8";
  return "<f4";
}

/// One image of a kernel: its device, module and metadata.
struct Image {
  tessera::Device device;
  tessera::Module module;
  tessera_kernel_info info{};
};

/// The arguments of a launch: buffers (views) and scalars.
struct Arguments {
  std::vector<Buffer> buffers;
  std::vector<int64_t> scalars;
  std::vector<double> reals;
  std::vector<float> floats;
};

/// Launches `image`'s kernel on `grid` with `args` (its buffers updated).
bool launch(Image &image, const int64_t grid[3], Arguments &args,
            std::string &error) {
  const tessera_kernel_info &info = image.info;
  std::vector<tessera_view> views(info.num_args);
  std::vector<void *> pointers(info.num_args);
  for (size_t i = 0; i < info.num_args; ++i) {
    Buffer &b = args.buffers[i];
    std::string spec = info.args[i];
    if (!b.dtype.empty()) {
      views[i] = denseView(b);
      pointers[i] = &views[i];
    } else if (spec == "scalar:f32") {
      pointers[i] = &args.floats[i];
    } else if (spec == "scalar:f64") {
      pointers[i] = &args.reals[i];
    } else {
      pointers[i] = &args.scalars[i]; // index and integers, little endian
    }
  }
  Launcher launcher(image.device.get(), image.module.get());
  if (launcher.launch(info.name, {grid[0], grid[1], grid[2]},
                      pointers.data()) ||
      launcher.download()) {
    error = tesseraGetLastError();
    return false;
  }
  return true;
}

/// Prints the comparison of view `i`'s `out` against `ref`; whether it
/// agrees (NaN where the reference has NaN is agreement).
bool compareView(size_t i, const char *spec, const Buffer &out,
                 const std::vector<double> &want, bool exact) {
  std::vector<double> got, expected;
  bool finite = true;
  double scale = 0, worst = 0;
  for (int64_t e = 0; e < out.elements(); ++e) {
    double a = valueAt(out, e), r = want[size_t(e)];
    if (std::isnan(a) != std::isnan(r))
      finite = false;
    bool both = std::isnan(a) && std::isnan(r);
    got.push_back(both ? 0.0 : a);
    expected.push_back(both ? 0.0 : r);
    scale = std::max(scale, std::fabs(expected.back()));
    worst = std::max(worst, std::fabs(got.back() - expected.back()));
  }
  // Exact: any difference is one. Otherwise the worst of the whole view's
  // and each row's and column's RMS error relative to the reference's RMS
  // there (compare()), so a wrong small row is not drowned.
  double relative = exact ? (scale > 0 ? worst / scale : worst)
                          : compare(got, expected, out.shape.back()).relative;
  double tolerance = exact ? 0.0 : toleranceOf(out.dtype);
  bool ok = finite && relative <= tolerance;
  std::printf("argument %zu (%s): relative difference %.3e (tolerance "
              "%.0e)%s\n",
              i, spec, relative, tolerance,
              finite ? "" : ", NaN in one image only");
  return ok;
}

std::vector<double> valuesOf(const Buffer &b) {
  std::vector<double> values(size_t(b.elements()));
  for (int64_t e = 0; e < b.elements(); ++e)
    values[size_t(e)] = valueAt(b, e);
  return values;
}

} // namespace

int tessera::run::runCompare(const CompareOptions &options) {
  auto error = [](const std::string &message) {
    std::fprintf(stderr, "tessera-run: %s\n", message.c_str());
    return 2;
  };
  const std::string &refName = options.reference;
  bool exact = refName == "emu";
  bool files = !options.expected.empty() || !options.saveInputs.empty();
  if (!files && options.device == refName && options.referenceKernel.empty())
    return error("--compare=" + refName + " needs another device (--device=" +
                 (exact ? "host" : "emu") + ")");
  // The chip, race detection and threads go to the devices that take them.
  auto open = [&](const std::string &name, const std::string &bundle,
                  const std::string &kernel, Image &image) -> std::string {
    bool emulator = name == "emu", hostMemory = emulator || name == "host";
    std::string why;
    image.device = openDevice(name, emulator ? options.chip : "",
                              hostMemory ? options.threads : -1,
                              emulator && options.races, why, options.programs);
    if (!image.device)
      return why;
    image.module = tessera::Module::load(image.device, bundle.c_str());
    if (!image.module)
      return "cannot load the " + name + " image: " + tesseraGetLastError();
    tessera_kernel *handle = nullptr;
    if (kernel.empty()) {
      if (tesseraModuleKernelCount(image.module.get()) != 1)
        return "the bundle has several kernels; name one with --kernel";
      tesseraModuleGetKernelAt(image.module.get(), 0, &handle);
    } else if (tesseraModuleGetKernel(image.module.get(), kernel.c_str(),
                                      &handle)) {
      return tesseraGetLastError();
    }
    tesseraKernelGetInfo(handle, &image.info);
    return "";
  };
  Image tested, reference;
  if (std::string why =
          open(options.device, options.bundle, options.kernel, tested);
      !why.empty())
    return error(why);
  const tessera_kernel_info &info = tested.info;
  std::string kernel = info.name;
  if (!files) {
    const std::string &refKernel =
        options.referenceKernel.empty() ? kernel : options.referenceKernel;
    const std::string &refBundle = options.referenceBundle.empty()
                                       ? options.bundle
                                       : options.referenceBundle;
    if (std::string why = open(refName, refBundle, refKernel, reference);
        !why.empty())
      return error(why);
    bool same = reference.info.num_args == info.num_args;
    for (size_t i = 0; same && i < info.num_args; ++i)
      same = std::string(reference.info.args[i]) == info.args[i];
    if (!same)
      return error("the reference kernel " + refKernel +
                   " does not take the arguments " + kernel + " takes");
  }

  // Arguments: views from --view, scalars from --scalar.
  Arguments initial;
  initial.buffers.resize(info.num_args);
  initial.scalars.assign(info.num_args, 0);
  initial.reals.assign(info.num_args, 0);
  initial.floats.assign(info.num_args, 0);
  std::vector<Buffer> &buffers = initial.buffers;
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
      initial.scalars[size_t(index)] = std::stoll(text);
      initial.reals[size_t(index)] = std::stod(text);
    } catch (const std::exception &) {
      return error("--scalar=" + std::to_string(index) + ":" + text +
                   " is not a number");
    }
    initial.floats[size_t(index)] = float(initial.reals[size_t(index)]);
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

  // Inputs: random, or a user's arrays (--inputs=DIR: argI.npy where
  // present), which --save-inputs=DIR writes.
  std::mt19937 rng(uint32_t(options.seed));
  for (size_t i = 0; i < info.num_args; ++i) {
    Buffer &b = buffers[i];
    if (b.dtype.empty())
      continue;
    fill(b, rng, exact);
    if (options.inputs.empty())
      continue;
    std::string path = options.inputs + "/arg" + std::to_string(i) + ".npy";
    if (!std::ifstream(path))
      continue;
    NpyArray array;
    std::string why;
    if (!readNpy(path, array, why))
      return error(why);
    if (array.shape != b.shape)
      return error(path + " is not of the shape --view=" + std::to_string(i) +
                   " gives");
    for (int64_t e = 0; e < b.elements(); ++e)
      storeValue(b, e, array.values[size_t(e)]);
  }
  if (!options.saveInputs.empty()) {
    for (size_t i = 0; i < info.num_args; ++i) {
      const Buffer &b = buffers[i];
      if (b.dtype.empty())
        continue;
      std::string path =
          options.saveInputs + "/arg" + std::to_string(i) + ".npy";
      std::string why;
      if (!writeNpy(path, b.shape, valuesOf(b), npyType(b.dtype), why))
        return error(why);
      std::printf("argument %zu (%s): %s\n", i, info.args[i], path.c_str());
    }
    return 0;
  }

  // Outputs start poisoned, so that an element the tested image does not
  // write fails: the views named by --expected; or those the reference
  // writes, except the ones it also reads (found by running it first with
  // the inputs, then with the written views poisoned).
  std::vector<bool> poisoned(info.num_args, false);
  std::vector<Buffer> want(info.num_args);
  auto poisonedCopy = [&]() {
    Arguments args = initial;
    for (size_t i = 0; i < info.num_args; ++i)
      if (poisoned[i])
        poison(args.buffers[i]);
    return args;
  };
  std::vector<std::vector<double>> expected(info.num_args);
  std::vector<Buffer> referenceOut; // the reference image's views
  std::string why;
  if (!options.expected.empty()) {
    for (const auto &[index, path] : options.expected) {
      if (index < 0 || size_t(index) >= info.num_args ||
          buffers[size_t(index)].dtype.empty())
        return error("--expected=" + std::to_string(index) +
                     ":... names no view argument of " + kernel);
      NpyArray array;
      if (!readNpy(path, array, why))
        return error(why);
      if (array.shape != buffers[size_t(index)].shape)
        return error(path + " is not of the shape --view=" +
                     std::to_string(index) + " gives");
      expected[size_t(index)] = std::move(array.values);
      poisoned[size_t(index)] = true;
    }
  } else {
    Arguments first = initial;
    if (!launch(reference, options.referenceGrid, first, why))
      return error("launch on " + refName + " failed: " + why);
    std::vector<bool> written(info.num_args, false);
    for (size_t i = 0; i < info.num_args; ++i)
      written[i] = poisoned[i] = !buffers[i].dtype.empty() &&
                                 first.buffers[i].bytes != buffers[i].bytes;
    Arguments second = poisonedCopy();
    if (!launch(reference, options.referenceGrid, second, why))
      return error("launch on " + refName + " failed: " + why);
    bool reads = false;
    for (size_t i = 0; i < info.num_args; ++i) {
      if (!written[i])
        continue;
      const Buffer &b = buffers[i];
      std::vector<uint8_t> element = poisonElement(b.dtype);
      for (int64_t e = 0; e < b.elements() && poisoned[i]; ++e)
        if (!sameElement(first.buffers[i], b, e) &&
            isPoison(second.buffers[i], e, element) &&
            !isPoison(first.buffers[i], e, element))
          poisoned[i] = false;
      reads |= !poisoned[i];
    }
    Arguments last = reads ? poisonedCopy() : std::move(second);
    if (reads && !launch(reference, options.referenceGrid, last, why))
      return error("launch on " + refName + " failed: " + why);
    for (size_t i = 0; i < info.num_args; ++i)
      if (!buffers[i].dtype.empty())
        expected[i] = valuesOf(last.buffers[i]);
    referenceOut = std::move(last.buffers);
  }
  Arguments out = poisonedCopy();
  if (!launch(tested, options.grid, out, why))
    return error("launch on " + options.device + " failed: " + why);

  std::string clusters;
  if (info.cluster[0] * info.cluster[1] * info.cluster[2] > 1)
    clusters = ", in clusters of " + std::to_string(info.cluster[0]) + "x" +
               std::to_string(info.cluster[1]) + "x" +
               std::to_string(info.cluster[2]);
  std::string against = !options.expected.empty() ? "the --expected arrays"
                        : options.referenceKernel.empty()
                            ? refName
                            : options.referenceKernel + " on " + refName;
  std::printf("kernel %s: %s against %s%s%s\n", kernel.c_str(),
              options.device.c_str(), against.c_str(), clusters.c_str(),
              exact ? ", small-integer inputs, equal bits required" : "");
  std::string outputs;
  for (size_t i = 0; i < info.num_args; ++i)
    if (poisoned[i])
      outputs += (outputs.empty() ? "" : ", ") + std::to_string(i);
  std::printf("poisoned outputs: %s\n",
              outputs.empty() ? "none" : outputs.c_str());
  bool pass = true;
  for (size_t i = 0; i < info.num_args; ++i) {
    if (buffers[i].dtype.empty() || (!options.expected.empty() && !poisoned[i]))
      continue;
    pass &= compareView(i, info.args[i], out.buffers[i], expected[i], exact);
    // An output no image wrote all of: the grid does not cover it, or both
    // images share the bug (an independent reference tells which).
    // (Integer outputs may hold the poison's value legitimately.)
    int64_t unwritten = 0;
    std::vector<uint8_t> element = poisonElement(buffers[i].dtype);
    for (int64_t e = 0; poisoned[i] && isFloat(buffers[i].dtype) &&
                        !referenceOut.empty() && e < out.buffers[i].elements();
         ++e)
      unwritten += isPoison(out.buffers[i], e, element) &&
                   isPoison(referenceOut[i], e, element);
    if (unwritten) {
      std::printf("argument %zu: %lld of %lld elements written by neither "
                  "image\n",
                  i, (long long)unwritten,
                  (long long)out.buffers[i].elements());
      pass = false;
    }
  }
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

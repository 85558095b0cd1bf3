//===- tessera-run.cpp - Run, check and time bundled kernels ----*- C++ -*-===//
//
//   tessera-run k.bundle [--check] [--bench] [--kernel=NAME] [--threads=N]
//               [--programs=N] [--seed=S] [--iters=N]
//               [--device=host|emu|cuda|hip] [--chip=CHIP] [shape flags]
//
//   tessera-run k.bundle --compare=host|emu --kernel=NAME --grid=X[,Y[,Z]]
//               --view=I:D0xD1... --scalar=I:VALUE [--device=emu|cuda|hip]
//               [--chip=CHIP] [--races]
//
// --compare=host runs any kernel (not only the shipped ones) on the host
// image and on the device's (the emulator's by default) with the same random
// inputs, outputs poisoned, and compares every view afterwards
// (Compare.cpp); --reference-kernel=NAME takes another kernel (a naive
// version, of --reference-bundle) as the reference; --save-inputs=DIR
// writes the inputs as .npy files for a user's own reference program,
// --inputs=DIR reads them back and --expected=I:FILE.npy compares view I
// with what that program computed; --compare=emu
// takes the emulator's image as the reference and demands equal bits, on
// small-integer inputs (--device=cuda: the emulator's fragment and swizzle
// tables against the GPU).
// --device=emu runs the bundle's emulator image (the GPU device code, see
// docs/gpu.md) on the CPU, --chip=sm_80 its emu-sm_80 image; --races also
// checks its shared memory accesses for data races (a race fails the
// launch). --device=cuda and --device=hip run the bundle's GPU image on GPU 0
// (see Launcher.h for how host tensors reach it). --programs=N caps the
// program instances a persistent kernel (tile-persistent) starts; 0, the
// default, starts as many as the device keeps resident.
//
// Runs a shipped kernel of the bundle on random inputs. --check (the
// default) poisons the outputs, compares them with a float64 reference and
// prints the errors and PASS or FAIL (exit code 0 or 1); --bench prints the
// median time and GFLOP/s. Quantized kernels (gemm_w4a16, and the names
// tile-quantize gives gemm_bf16 and the MoE block, e.g.
// gemm_bf16_int4_g64_zp or moe_gate_up_swiglu_fp8_b128) are checked against
// the dequantized operands, and the error against the real ones is
// reported.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Problems.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <set>
#include <stdexcept>

using namespace tessera::run;

/// The usage text, after `message` (an error) unless it is null.
static void printUsage(FILE *out, const char *message) {
  if (message)
    std::fprintf(out, "tessera-run: %s\n", message);
  std::fprintf(
      out,
      "usage: tessera-run BUNDLE [--check] [--bench] [--kernel=NAME] "
      "[--device=host|emu|cuda|hip] [--chip=CHIP] [--races] [--threads=N] "
      "[--programs=N] [--seed=S] [--iters=N]\n"
      "  GEMM (also quantized ones): --m --n --k; attention: --batch "
      "--heads --kv-heads "
      "--seq-q --seq-kv --causal=0|1;\n"
      "  decode attention: --batch or --lens=L0,L1,... --kv-heads --group "
      "--q-len --seq-kv --splits;\n"
      "  MoE (also quantized): --tokens --experts --topk --hidden "
      "--inter --routing=softmax|uniform|zipf --routed-experts (softmax "
      "routing's favoured experts; default: half)\n"
      "   or: tessera-run BUNDLE --compare=host|emu [--kernel=NAME] "
      "--grid=X[,Y[,Z]] --view=I:D0xD1... --scalar=I:VALUE "
      "[--device=emu|cuda|hip] [--chip=CHIP] [--races] "
      "[--reference-kernel=NAME [--reference-bundle=FILE] "
      "[--reference-grid=X[,Y[,Z]]]] [--inputs=DIR]\n"
      "   or: tessera-run BUNDLE (--save-inputs=DIR | --expected=I:FILE.npy "
      "[--inputs=DIR]) [--kernel=NAME] --grid=... --view=... "
      "--scalar=... [--device=emu|host|cuda|hip]\n");
}

static int usage(const char *message) {
  printUsage(stderr, message);
  return 2;
}

/// The largest problem extent a shape flag takes: problems this size
/// already need gigabytes on the host.
constexpr int64_t kMaxExtent = int64_t(1) << 24;

static int run(int argc, char **argv) {
  static const std::set<std::string> shapeFlags = {
      "m",        "n",     "k",      "batch",  "heads",
      "kv-heads", "seq-q", "seq-kv", "causal", "tokens",
      "experts",  "topk",  "hidden", "inter",  "routed-experts",
      "group",    "q-len", "splits"};
  std::string bundle, kernel, device, chip;
  bool check = false, bench = false;
  int64_t threads = -1, seed = 1, iters = 10, programs = -1;
  bool races = false;
  CompareOptions compareOptions;
  std::string compareWith;
  bool referenceGrid = false;
  std::map<std::string, std::string> values;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printUsage(stdout, nullptr);
      return 0;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!bundle.empty())
        return usage("more than one bundle given");
      bundle = arg;
      continue;
    }
    std::string name = arg.substr(2), value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto integer = [](const std::string &text) {
      int64_t number = 0;
      if (!parseInteger(text, number))
        throw std::invalid_argument(text);
      return number;
    };
    try {
      if (name == "check")
        check = true;
      else if (name == "bench")
        bench = true;
      else if (name == "kernel")
        kernel = value;
      else if (name == "device")
        device = value;
      else if (name == "chip")
        chip = value;
      else if (name == "races")
        races = true;
      else if (name == "compare")
        compareWith = value;
      else if (name == "view" || name == "scalar") {
        size_t colon = value.find(':');
        if (colon == std::string::npos)
          return usage(("--" + name + " takes INDEX:VALUE").c_str());
        (name == "view" ? compareOptions.views : compareOptions.scalars)
            .push_back(
                {integer(value.substr(0, colon)), value.substr(colon + 1)});
      } else if (name == "grid" || name == "reference-grid") {
        int64_t *grid =
            name == "grid" ? compareOptions.grid : compareOptions.referenceGrid;
        referenceGrid |= name == "reference-grid";
        size_t d = 0, start = 0;
        for (; d < 3 && start <= value.size(); ++d) {
          size_t comma = value.find(',', start);
          grid[d] = integer(value.substr(
              start, comma == std::string::npos ? comma : comma - start));
          if (grid[d] < 1)
            return usage(("--" + name + " sizes must be positive").c_str());
          if (comma == std::string::npos)
            break;
          start = comma + 1;
        }
      } else if (name == "reference-kernel")
        compareOptions.referenceKernel = value;
      else if (name == "reference-bundle")
        compareOptions.referenceBundle = value;
      else if (name == "inputs")
        compareOptions.inputs = value;
      else if (name == "save-inputs")
        compareOptions.saveInputs = value;
      else if (name == "expected") {
        size_t colon = value.find(':');
        if (colon == std::string::npos)
          return usage("--expected takes INDEX:FILE.npy");
        compareOptions.expected.push_back(
            {integer(value.substr(0, colon)), value.substr(colon + 1)});
      } else if (name == "threads")
        threads = integer(value);
      else if (name == "programs") {
        programs = integer(value);
        if (programs < 0)
          return usage("--programs must be 0 (as many as the device keeps "
                       "resident) or positive");
      } else if (name == "seed")
        seed = integer(value);
      else if (name == "iters")
        iters = integer(value);
      else if (name == "lens") {
        // Decode attention's sequence lengths: comma-separated extents.
        std::vector<int64_t> lengths;
        if (!parseIntegerList(value, lengths) ||
            std::any_of(lengths.begin(), lengths.end(), [](int64_t length) {
              return length < 0 || length > kMaxExtent;
            }))
          return usage("--lens takes comma-separated lengths in [0, 2^24]");
        values[name] = value;
      } else if (name == "routing") {
        if (value != "softmax" && value != "uniform" && value != "zipf")
          return usage("--routing takes softmax, uniform or zipf");
        values[name] = value;
      } else if (shapeFlags.count(name)) {
        if (int64_t extent = integer(value); extent < 0 || extent > kMaxExtent)
          return usage(("--" + name + " must lie in [0, 2^24]").c_str());
        values[name] = value;
      } else
        return usage(("unknown flag --" + name).c_str());
    } catch (const std::invalid_argument &) {
      return usage(("--" + name + " needs an integer").c_str());
    }
  }
  if (bundle.empty())
    return usage("no bundle given");
  bool files =
      !compareOptions.expected.empty() || !compareOptions.saveInputs.empty();
  if (files && !compareWith.empty())
    return usage("--expected and --save-inputs take the place of --compare");
  if (!files &&
      (!compareOptions.referenceKernel.empty() ||
       !compareOptions.referenceBundle.empty() || referenceGrid) &&
      compareWith.empty())
    return usage("--reference-kernel, --reference-bundle and "
                 "--reference-grid go with --compare");
  if (!compareOptions.inputs.empty() && compareWith.empty() && !files)
    return usage("--inputs goes with --compare or --expected");
  if (!referenceGrid)
    std::copy(compareOptions.grid, compareOptions.grid + 3,
              compareOptions.referenceGrid);
  if (!compareWith.empty() || files) {
    if (!files && compareWith != "host" && compareWith != "emu")
      return usage("--compare takes host or emu (the reference image)");
    if (files)
      compareWith = "host";
    compareOptions.reference = compareWith;
    compareOptions.bundle = bundle;
    compareOptions.kernel = kernel;
    compareOptions.device = !device.empty()                  ? device
                            : files || compareWith == "host" ? "emu"
                                                             : "host";
    compareOptions.chip = chip;
    compareOptions.races = races;
    compareOptions.seed = seed;
    compareOptions.threads = threads;
    compareOptions.programs = programs;
    return runCompare(compareOptions);
  }
  if (!check && !bench)
    check = true;
  if (iters < 1)
    return usage("--iters must be positive");

  if (device.empty())
    device = "host";
  std::string error;
  tessera::Device dev =
      openDevice(device, chip, threads, races, error, programs);
  if (!dev) {
    std::fprintf(stderr, "tessera-run: %s\n", error.c_str());
    return 1;
  }
  tessera::Module module = tessera::Module::load(dev, bundle.c_str());
  auto failWith = [&](const char *what) {
    std::fflush(stdout); // what was printed comes first
    std::fprintf(stderr, "tessera-run: %s: %s\n", what, tesseraGetLastError());
    return 1;
  };
  if (!module)
    return failWith("cannot load the bundle");

  if (kernel.empty()) {
    for (size_t i = 0; i < tesseraModuleKernelCount(module.get()); ++i) {
      tessera_kernel *handle;
      tessera_kernel_info info;
      tesseraModuleGetKernelAt(module.get(), i, &handle);
      tesseraKernelGetInfo(handle, &info);
      if (isKnownKernel(info.name)) {
        kernel = info.name;
        break;
      }
    }
    if (kernel.empty())
      return failWith("no kernel of the bundle is one tessera-run knows");
  }
  std::unique_ptr<Problem> problem = makeProblem(kernel, Flags(values));
  if (!problem) {
    // A known kernel's flags were invalid, and said so.
    if (!isKnownKernel(kernel))
      std::fprintf(stderr, "tessera-run: no reference for kernel '%s'\n",
                   kernel.c_str());
    return 1;
  }
  std::mt19937 rng(static_cast<uint32_t>(seed));
  problem->prepare(rng);
  tessera_device_properties props;
  tesseraDeviceGetProperties(dev.get(), &props);
  if (int threads = tesseraHostGetThreads(dev.get()))
    std::printf("kernel %s: %s, %d threads, %s image\n", kernel.c_str(),
                problem->describe().c_str(), threads,
                tesseraModuleArch(module.get()));
  else
    std::printf("kernel %s: %s, on %s, %s image\n", kernel.c_str(),
                problem->describe().c_str(), props.name,
                tesseraModuleArch(module.get()));
  Launcher launcher(dev.get(), module.get());
  int status = 0;
  if (check) {
    if (problem->launch(launcher) || launcher.download())
      return failWith("launch failed");
    std::vector<double> out, ref;
    problem->results(out, ref);
    Comparison cmp = compare(out, ref, problem->rowLength());
    bool pass = cmp.finite && cmp.relative <= problem->tolerance();
    std::printf("max abs error %.3e, relative error %.3e (tolerance %.0e)%s\n",
                cmp.maxAbs, cmp.relative, problem->tolerance(),
                cmp.finite ? "" : ", non-finite outputs");
    std::vector<double> second;
    std::string what;
    if (problem->secondReference(second, what)) {
      Comparison other = compare(out, second, problem->rowLength());
      std::printf("against %s: max abs error %.3e, relative error %.3e "
                  "(reported, not checked)\n",
                  what.c_str(), other.maxAbs, other.relative);
    }
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    status = pass ? 0 : 1;
  }
  if (bench) {
    std::vector<double> seconds;
    if (problem->launch(launcher)) // warm-up
      return failWith("launch failed");
    // On a GPU, events around the launches on a stream: the kernels' time,
    // not the host's waiting.
    bool gpu = !usesHostMemory(tesseraDeviceKind(dev.get()));
    tessera::Stream stream =
        gpu ? tessera::Stream::create(dev) : tessera::Stream();
    tessera::Event begin = gpu ? tessera::Event::create(dev) : tessera::Event();
    tessera::Event end = gpu ? tessera::Event::create(dev) : tessera::Event();
    if (gpu && (!stream || !begin || !end))
      return failWith("cannot time on the device");
    launcher.setStream(stream.get());
    for (int64_t i = 0; i < iters; ++i) {
      auto start = std::chrono::steady_clock::now();
      double ms = 0;
      if ((gpu && tesseraEventRecord(begin.get(), stream.get())) ||
          problem->launch(launcher) ||
          (gpu && (tesseraEventRecord(end.get(), stream.get()) ||
                   tesseraStreamSynchronize(stream.get()) ||
                   tesseraEventElapsedMs(begin.get(), end.get(), &ms))))
        return failWith("launch failed");
      seconds.push_back(gpu ? ms / 1e3
                            : std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - start)
                                  .count());
    }
    launcher.setStream(nullptr);
    std::sort(seconds.begin(), seconds.end());
    double median = seconds[seconds.size() / 2];
    std::printf("median %.3f ms over %lld runs, %.2f GFLOP/s\n", median * 1e3,
                static_cast<long long>(iters), problem->flops() / median / 1e9);
  }
  return status;
}

int main(int argc, char **argv) {
  // Problems too large for this machine's memory end with a message.
  try {
    return run(argc, argv);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "tessera-run: %s\n",
                 dynamic_cast<const std::bad_alloc *>(&error)
                     ? "out of memory for this problem"
                     : error.what());
    return 1;
  }
}

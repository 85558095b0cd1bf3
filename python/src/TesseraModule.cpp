//===- TesseraModule.cpp - The tessera._tessera extension -----------------===//
//
// The compiled half of the Python package: the compile pipeline
// (tessera/Compiler/Compiler.h) in process, and the runtime's devices,
// modules and launches, with DLPack tensors (NumPy arrays, PyTorch and CuPy
// tensors) passed as views without copies. tessera/__init__.py builds the
// public API on it.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "Ops.h"

#include "tessera/Compiler/Compiler.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace tessera::python;

namespace {
/// The (name, text) pairs of the Python side as the compiler's inputs.
std::vector<tessera::CompileInput>
toInputs(const std::vector<std::pair<std::string, std::string>> &sources) {
  std::vector<tessera::CompileInput> inputs;
  for (const auto &[name, text] : sources)
    inputs.push_back({name, text});
  return inputs;
}

/// (ok, bundle, diagnostics) of a compile.
std::tuple<bool, nb::bytes, std::string>
compile(const std::vector<std::pair<std::string, std::string>> &sources,
        const std::vector<std::string> &targets, const std::string &passes,
        const std::string &gpuPasses, bool tagCheck, unsigned rlimit,
        const std::string &ptxas) {
  std::vector<tessera::CompileInput> inputs = toInputs(sources);
  tessera::CompileOptions options;
  options.targets = targets;
  options.passes = passes;
  options.gpuPasses = gpuPasses;
  options.tagCheck = tagCheck;
  options.tagCheckRlimit = rlimit;
  options.ptxas = ptxas;
  tessera::CompileResult result;
  std::string diagnostics;
  bool ok;
  {
    // Compiling takes seconds: other Python threads may run meanwhile.
    nb::gil_scoped_release release;
    llvm::raw_string_ostream os(diagnostics);
    ok = succeeded(tessera::compileKernels(inputs, options, result, os));
  }
  return {ok, nb::bytes(result.output.data(), result.output.size()),
          diagnostics};
}

/// (ok, one line per kernel of what tag-check proved, diagnostics).
std::tuple<bool, std::vector<std::string>, std::string>
check(const std::vector<std::pair<std::string, std::string>> &sources,
      const std::vector<std::string> &targets, const std::string &passes,
      unsigned rlimit) {
  std::vector<tessera::CompileInput> inputs = toInputs(sources);
  tessera::CompileOptions options;
  options.targets = targets;
  options.passes = passes;
  options.tagCheckRlimit = rlimit;
  std::vector<std::string> proofs;
  std::string diagnostics;
  bool ok;
  {
    nb::gil_scoped_release release;
    llvm::raw_string_ostream os(diagnostics);
    ok = succeeded(tessera::checkKernels(inputs, options, proofs, os));
  }
  return {ok, proofs, diagnostics};
}

/// "argument 2 (C, view:bf16:2) of kernel 'k'" (without the name where the
/// bundle has none).
std::string describeArg(const tessera_kernel_info &info, size_t index) {
  std::string name = info.arg_names[index];
  return "argument " + std::to_string(index) + " (" +
         (name.empty() ? "" : name + ", ") + info.args[index] +
         ") of kernel '" + info.name + "'";
}

/// A bundle loaded on a device.
class PyModule {
public:
  PyModule(std::shared_ptr<PyDevice> device, nb::bytes bundle)
      : device(std::move(device)) {
    module = tessera::Module::load(this->device->device, bundle.c_str(),
                                   bundle.size());
    if (!module)
      throw DeviceFault("cannot load the bundle: " + tessera::error());
  }

  std::string arch() const { return tesseraModuleArch(module.get()); }

  /// Every kernel's (name, threads, shared bytes, argument specs, argument
  /// names, persistent, cluster).
  nb::list kernels() const {
    nb::list list;
    for (size_t i = 0, e = tesseraModuleKernelCount(module.get()); i < e; ++i) {
      tessera_kernel *kernel = nullptr;
      tessera_kernel_info info{};
      throwStatus(tesseraModuleGetKernelAt(module.get(), i, &kernel),
                  "cannot read the bundle's kernels");
      throwStatus(tesseraKernelGetInfo(kernel, &info),
                  "cannot read the bundle's kernels");
      std::vector<std::string> args(info.args, info.args + info.num_args);
      std::vector<std::string> names(info.arg_names,
                                     info.arg_names + info.num_args);
      list.append(nb::make_tuple(
          std::string(info.name), info.threads, info.shared_bytes, args, names,
          bool(info.persistent),
          nb::make_tuple(info.cluster[0], info.cluster[1], info.cluster[2])));
    }
    return list;
  }

  /// Launches `name` over `grid` with `args`: on the driver stream
  /// `stream` (not waited for) where one is given, else waited for.
  void launch(const std::string &name, nb::sequence args,
              std::tuple<int64_t, int64_t, int64_t> grid, bool races,
              std::optional<uintptr_t> stream) {
    tessera_kernel *kernel = nullptr;
    if (tesseraModuleGetKernel(module.get(), name.c_str(), &kernel))
      throw nb::key_error(("no kernel '" + name + "' in the bundle").c_str());
    tessera_kernel_info info{};
    throwStatus(tesseraKernelGetInfo(kernel, &info), "kernel '" + name + "'");
    size_t given = nb::len(args);
    if (given != info.num_args)
      throw nb::type_error(("kernel '" + name + "' takes " +
                            std::to_string(info.num_args) +
                            " arguments; given " + std::to_string(given))
                               .c_str());
    std::vector<tessera_view> views(info.num_args);
    std::vector<uint64_t> scalars(info.num_args);
    std::vector<void *> pointers(info.num_args);
    for (size_t i = 0; i < info.num_args; ++i) {
      ArgSpec spec = parseSpec(info.args[i]);
      std::string what = describeArg(info, i);
      if (spec.view) {
        views[i] = toView(args[i], spec, *device, what);
        pointers[i] = &views[i];
      } else {
        toScalar(args[i], spec, what, scalars[i]);
        pointers[i] = &scalars[i];
      }
    }
    auto [x, y, z] = grid;
    if (x < 1 || y < 1 || z < 1)
      throw nb::value_error("the grid's sizes must be positive");
    bool emulated = device->kind() == TESSERA_DEVICE_EMULATOR;
    tessera_stream *queue = stream ? device->wrap(*stream) : nullptr;
    tessera_status status;
    {
      nb::gil_scoped_release release;
      if (emulated)
        tesseraEmulatorSetRaceDetection(races);
      status =
          tesseraLaunch(kernel, tessera_grid{x, y, z}, pointers.data(), queue);
      if (emulated)
        tesseraEmulatorSetRaceDetection(false);
    }
    throwStatus(status, "launch of '" + name + "'");
  }

private:
  std::shared_ptr<PyDevice> device;
  tessera::Module module;
};

} // namespace

NB_MODULE(_tessera, m) {
  m.doc() = "Tessera's compiler and runtime (see the tessera package)";
  nb::exception<KernelFault>(m, "KernelError", PyExc_RuntimeError);
  nb::exception<DeviceFault>(m, "DeviceError", PyExc_RuntimeError);

  m.def("compile", &compile, nb::arg("sources"), nb::arg("targets"),
        nb::arg("passes"), nb::arg("gpu_passes"), nb::arg("tag_check"),
        nb::arg("rlimit"), nb::arg("ptxas"));
  m.def("check", &check, nb::arg("sources"), nb::arg("targets"),
        nb::arg("passes"), nb::arg("rlimit"));
  m.def("describe_targets", [] { return tessera::describeTargets(); });
  bindOps(m);

  nb::class_<PyDevice>(m, "Device")
      .def(nb::new_([](const std::string &kind, int ordinal,
                       const std::string &chip, int threads) {
             return std::make_shared<PyDevice>(kind, ordinal, chip, threads);
           }),
           nb::arg("kind"), nb::arg("ordinal") = 0, nb::arg("chip") = "",
           nb::arg("threads") = 0)
      .def_prop_ro("arch", [](const PyDevice &device) {
        tessera_device_properties props{};
        throwStatus(tesseraDeviceGetProperties(device.device.get(), &props),
                    "cannot read the device");
        return std::string(props.arch);
      });

  nb::class_<PyModule>(m, "Module")
      .def(nb::new_([](std::shared_ptr<PyDevice> device, nb::bytes bundle) {
             return std::make_shared<PyModule>(std::move(device), bundle);
           }),
           nb::arg("device"), nb::arg("bundle"))
      .def_prop_ro("arch", &PyModule::arch)
      .def("kernels", &PyModule::kernels)
      .def("launch", &PyModule::launch, nb::arg("name"), nb::arg("args"),
           nb::arg("grid"), nb::arg("races") = false,
           nb::arg("stream").none() = nb::none());
}

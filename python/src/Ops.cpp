//===- Ops.cpp - tessera.ops: the runtime's library operations ------------===//
//
// gemm, attention (prefill and decode), moe and the quantized GEMM of
// tessera/runtime/library.hpp over the shipped kernels (Tessera::kernels), on
// whichever device the library is opened, with DLPack arguments; and the weight
// quantizer that prepares the quantized GEMM's operands.
//
//===----------------------------------------------------------------------===//

#include "Ops.h"
#include "Arguments.h"

#include "tessera/runtime/library.hpp"
#include "tessera/runtime/shipped_kernels.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <memory>

namespace nb = nanobind;
using namespace tessera::python;

namespace {

/// An unsupported combination of a library op is the caller's to fix: both
/// it and invalid arguments are ValueError.
void throwOpStatus(tessera_status status, const std::string &op) {
  if (status == TESSERA_ERROR_UNSUPPORTED)
    status = TESSERA_ERROR_INVALID_ARGUMENT;
  throwStatus(status, op);
}

/// The shipped kernels loaded on one device.
class PyLibrary {
public:
  explicit PyLibrary(std::shared_ptr<PyDevice> device)
      : device(std::move(device)) {
    if (tessera::addShippedKernels(library, this->device->device) == 0)
      throw DeviceFault("no shipped kernel has an image for the device: " +
                        tessera::error());
  }
  PyLibrary(const PyLibrary &) = delete;
  PyLibrary &operator=(const PyLibrary &) = delete;

  tessera_view view(nb::handle object, const char *element, int64_t rank,
                    const std::string &what) const {
    return toView(object, ArgSpec{true, element, rank}, *device, what);
  }

  void gemm(nb::handle a, nb::handle b, nb::handle c) {
    throwOpStatus(tessera::gemm(library, view(a, "bf16", 2, "gemm: A"),
                                view(b, "bf16", 2, "gemm: B"),
                                view(c, "bf16", 2, "gemm: C")),
                  "gemm");
  }

  void attention(nb::handle q, nb::handle k, nb::handle v, nb::handle o,
                 bool causal, float scale) {
    throwOpStatus(
        tessera::attention(library, view(q, "bf16", 3, "attention: q"),
                           view(k, "bf16", 3, "attention: k"),
                           view(v, "bf16", 3, "attention: v"),
                           view(o, "bf16", 3, "attention: o"), causal, scale),
        "attention");
  }

  void attentionDecode(nb::handle q, nb::handle k, nb::handle v,
                       nb::handle seqlens, nb::handle o, int64_t group,
                       float scale, int64_t splits) {
    throwOpStatus(
        tessera::attentionDecode(
            library, device->device, view(q, "bf16", 3, "attention_decode: q"),
            view(k, "bf16", 3, "attention_decode: k_cache"),
            view(v, "bf16", 3, "attention_decode: v_cache"),
            view(seqlens, "i32", 1, "attention_decode: seqlens"),
            view(o, "bf16", 3, "attention_decode: o"), group, scale, splits),
        "attention_decode");
  }

  void moe(nb::handle x, nb::handle w13, nb::handle w2, nb::handle ids,
           nb::handle weights, nb::handle out) {
    throwOpStatus(tessera::moe(library, device->device,
                               view(x, "bf16", 2, "moe: x"),
                               view(w13, "bf16", 3, "moe: w13"),
                               view(w2, "bf16", 3, "moe: w2"),
                               view(ids, "i32", 2, "moe: topk_ids"),
                               view(weights, "f32", 2, "moe: topk_weights"),
                               view(out, "f32", 2, "moe: out")),
                  "moe");
  }

  /// C = A · dequant(W) for weights quantized by quantize_weights (the
  /// scheme `format`, `group`, `zeroPoints`; `cols` the weights' N, which
  /// int4's bytes round up).
  void gemmQuantized(nb::handle a, nb::handle codes, nb::handle scales,
                     nb::handle zeros, nb::handle c, const std::string &format,
                     int64_t group, bool zeroPoints, int64_t cols) {
    tessera::QuantizedWeightViews weights{};
    weights.scheme = scheme(format, group, zeroPoints);
    bool fp8 = format == "fp8", int4 = format == "int4";
    weights.codes = view(codes,
                         fp8    ? "f8E4M3FN"
                         : int4 ? "i4"
                                : "i8",
                         2, "gemm_quantized: codes");
    if (int4)
      weights.codes.sizes[1] = cols;
    weights.scales =
        view(scales, fp8 ? "f32" : "f16", 2, "gemm_quantized: scales");
    if (zeroPoints)
      weights.zeros = view(zeros, "f16", 2, "gemm_quantized: zeros");
    throwOpStatus(tessera::gemmQuantized(
                      library, view(a, "bf16", 2, "gemm_quantized: A"), weights,
                      view(c, "bf16", 2, "gemm_quantized: C")),
                  "gemm_quantized");
  }

  static tessera::WeightQuantization scheme(const std::string &format,
                                            int64_t group, bool zeroPoints) {
    using Format = tessera::WeightQuantization::Format;
    tessera::WeightQuantization scheme;
    if (format == "int4")
      scheme.format = Format::Int4;
    else if (format == "int8")
      scheme.format = Format::Int8;
    else if (format == "fp8")
      scheme.format = Format::Fp8;
    else
      throw nb::value_error(
          ("unknown weight format '" + format + "'; use int4, int8 or fp8")
              .c_str());
    if (group < 0)
      throw nb::value_error("the group must be 0 (per channel) or positive");
    scheme.group = group;
    scheme.zeroPoints = zeroPoints;
    return scheme;
  }

private:
  std::shared_ptr<PyDevice> device;
  tessera::KernelLibrary library;
};

/// quantizeWeights of a host f32 [rows, cols] array: (codes, scales,
/// zeros, block scales) as bytes, the shapes for the Python side to wrap.
nb::tuple quantizeArray(
    nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> w,
    const std::string &format, int64_t group, bool zeroPoints) {
  tessera::QuantizedWeights q = tessera::quantizeWeights(
      w.data(), int64_t(w.shape(0)), int64_t(w.shape(1)),
      PyLibrary::scheme(format, group, zeroPoints));
  auto bytes = [](const auto &vector) {
    return nb::bytes(reinterpret_cast<const char *>(vector.data()),
                     vector.size() * sizeof(vector[0]));
  };
  int64_t codeCols = format == "int4" ? (q.cols + 1) / 2 : q.cols;
  return nb::make_tuple(bytes(q.codes), nb::make_tuple(q.rows, codeCols),
                        bytes(q.scales), bytes(q.zeros), bytes(q.blockScales),
                        nb::make_tuple(q.groups(), q.blockColumns()));
}

} // namespace

void tessera::python::bindOps(nb::module_ &m) {
  nb::class_<PyLibrary>(m, "Library")
      .def(nb::new_([](std::shared_ptr<PyDevice> device) {
             return std::make_shared<PyLibrary>(std::move(device));
           }),
           nb::arg("device"))
      .def("gemm", &PyLibrary::gemm)
      .def("attention", &PyLibrary::attention)
      .def("attention_decode", &PyLibrary::attentionDecode)
      .def("moe", &PyLibrary::moe)
      .def("gemm_quantized", &PyLibrary::gemmQuantized, nb::arg("a"),
           nb::arg("codes"), nb::arg("scales"), nb::arg("zeros").none(),
           nb::arg("c"), nb::arg("format"), nb::arg("group"),
           nb::arg("zero_points"), nb::arg("cols"));
  m.def("quantize_weights", &quantizeArray, nb::arg("w"), nb::arg("format"),
        nb::arg("group"), nb::arg("zero_points"));
}

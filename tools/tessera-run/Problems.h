//===- Problems.h - Problems tessera-run can check and time ----*- C++ -*-===//
//
// Each problem knows its shipped kernel(s): how to make random inputs, how to
// launch, and how to compute a float64 reference.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_TESSERA_RUN_PROBLEMS_H
#define TESSERA_TOOLS_TESSERA_RUN_PROBLEMS_H

#include "Launcher.h"

#include "tessera/runtime/quantize.hpp"
#include "tessera/runtime/tessera.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tessera::run {

/// Parses all of `text` as a decimal integer; false for anything else
/// (a sign, digits and nothing more, within int64_t).
bool parseInteger(const std::string &text, int64_t &value);
/// Parses all of `text` as comma-separated decimal integers (at least
/// one); false for anything else.
bool parseIntegerList(const std::string &text, std::vector<int64_t> &values);

/// --name=value flags a problem reads, with defaults (the values were
/// checked with parseInteger).
class Flags {
public:
  explicit Flags(std::map<std::string, std::string> values)
      : values(std::move(values)) {}
  int64_t get(const std::string &name, int64_t fallback) const;
  std::string text(const std::string &name, std::string fallback) const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
  bool has(const std::string &name) const { return values.count(name); }

private:
  std::map<std::string, std::string> values;
};

using tessera::fromBF16;
using tessera::fromF16;
using tessera::toBF16;
using tessera::toF16;

/// A buffer of elements and its view.
struct Tensor {
  std::vector<uint8_t> bytes;
  tessera_view view{};
  Tensor(std::vector<int64_t> shape, size_t elementBytes);
  template <typename T> T *as() { return reinterpret_cast<T *>(bytes.data()); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(bytes.data());
  }
  int64_t elements() const;
};

/// Result of comparing an output with its reference.
struct Comparison {
  double maxAbs = 0, relative = 0;
  bool finite = true;
};
/// `relative` is the worst of the RMS errors of the whole output and of each
/// row and each column (rows of `rowLength` elements; rows and columns of
/// at least 8 elements), each relative to the RMS of the reference there: a
/// wrong row or column is not drowned by larger ones. A row or column whose
/// reference is all zero must be exactly zero.
Comparison compare(const std::vector<double> &out,
                   const std::vector<double> &ref, int64_t rowLength);

/// Fills a bf16 tensor with uniform values in [-scale, scale].
void fillRandomBF16(Tensor &tensor, std::mt19937 &rng, float scale = 1.0f);
/// `count` magnitudes 2^u, u uniform in [-maxExponent, maxExponent]: spread
/// over orders of magnitude, so that data taken from the wrong row, column
/// or group shows.
std::vector<float> spreadMagnitudes(std::mt19937 &rng, int64_t count,
                                    float maxExponent = 4.0f);
/// Fills a [rows, cols] bf16 tensor with uniform values in [-1, 1] times
/// rowScale[i] * colScale[j] (an empty vector scales by 1).
void fillScaledBF16(Tensor &tensor, std::mt19937 &rng,
                    const std::vector<float> &rowScale,
                    const std::vector<float> &colScale);
/// Fills a bf16 tensor with NaN, so that unwritten outputs fail the check.
void poisonBF16(Tensor &tensor);
/// One query row of attention in float64: out[0, dim) += softmax(scale ·
/// q Kᵀ) V over the first `count` rows of the bf16 matrices K and V (rows of
/// `dim` elements from `keys` and `values`); q is `dim` bf16 elements.
void attendRow(const uint16_t *q, const uint16_t *keys, const uint16_t *values,
               int64_t count, int64_t dim, double scale, double *out);

class Problem {
public:
  virtual ~Problem() = default;
  /// Whether the flags describe a problem this kind can run; `why` if not.
  virtual bool valid(std::string &why) const { return true; }
  /// One line describing the shape, e.g. "M=256 N=256 K=256".
  virtual std::string describe() const = 0;
  /// Makes random inputs and poisons the outputs.
  virtual void prepare(std::mt19937 &rng) = 0;
  virtual tessera_status launch(Launcher &launcher) = 0;
  /// The output as doubles and its float64 reference.
  virtual void results(std::vector<double> &out, std::vector<double> &ref) = 0;
  /// A second reference whose error is reported but not checked (the
  /// unquantized weights of a quantized kernel); false if none.
  virtual bool secondReference(std::vector<double> &ref, std::string &what) {
    return false;
  }
  /// The relative error a correct kernel stays under.
  virtual double tolerance() const = 0;
  /// The output's row length for `compare` (its innermost dimension).
  virtual int64_t rowLength() const = 0;
  virtual double flops() const = 0;
};

/// What a quantized kernel expects, from the name tile-quantize gives it:
/// `<base>_int4_g<G>[_zp]`, `<base>_int8_pc[_zp]` or `<base>_fp8_b128`, then
/// `_a8k<BK>`/`_af8k<BK>` or `_a8t`/`_af8t` for quantized activations.
struct QuantizationScheme {
  WeightQuantization weights;
  /// int8 (fp8 with fp8 weights) activations quantized per row within
  /// blocks of this many k; 0: bf16 activations.
  int64_t activationBlock = 0;
  /// The activation arrives quantized, one scale per token (_a8t, _af8t).
  bool tokenScales = false;
};
/// The scheme of `kernel` if it is `base` quantized by tile-quantize.
std::optional<QuantizationScheme> parseQuantizedName(const std::string &kernel,
                                                     const std::string &base);
/// gemm_w4a16, or gemm_bf16 quantized.
std::optional<QuantizationScheme>
quantizedGemmScheme(const std::string &kernel);
std::unique_ptr<Problem> makeQuantizedGemm(const std::string &kernel,
                                           const Flags &flags);
/// moe_gate_up_swiglu quantized (with moe_down_combine quantized alike, in
/// the same bundle); bf16 activations only.
std::optional<QuantizationScheme> quantizedMoeScheme(const std::string &kernel);
std::unique_ptr<Problem> makeQuantizedMoe(const std::string &kernel,
                                          const Flags &flags);

/// Whether some problem exercises `kernel`.
bool isKnownKernel(const std::string &kernel);

/// The problem that exercises `kernel`, or null if none does.
std::unique_ptr<Problem> makeProblem(const std::string &kernel,
                                     const Flags &flags);

/// All problem makers: kernel name -> maker.
using Maker = std::function<std::unique_ptr<Problem>(const Flags &)>;
std::map<std::string, Maker> &problemRegistry();

/// Makes `kernel` run problem P; invalid flags print why and give null.
template <typename P> bool registerProblem(const std::string &kernel) {
  problemRegistry()[kernel] =
      [](const Flags &flags) -> std::unique_ptr<Problem> {
    auto problem = std::make_unique<P>(flags);
    std::string why;
    if (!problem->valid(why)) {
      std::fprintf(stderr, "tessera-run: %s\n", why.c_str());
      return nullptr;
    }
    return problem;
  };
  return true;
}

} // namespace tessera::run

#endif // TESSERA_TOOLS_TESSERA_RUN_PROBLEMS_H

//===- QuantizeScheme.cpp - tile-quantize's scheme and operands ----------===//
//
// What tile-quantize's options ask for once checked, the name of the kernel
// it makes, and the MMA operands it can quantize.
//
//===----------------------------------------------------------------------===//

#include "Quantize.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::quant;

std::string Scheme::suffix(int64_t kStep) const {
  std::string text = weights == Format::Int8 ? "int8_pc"
                     : weights == Format::Fp8
                         ? "fp8_b128"
                         : "int4_g" + std::to_string(group);
  if (zeroPoints)
    text += "_zp";
  // Activations per token (_a8t) or per token within each K tile.
  if (activations != Format::Real)
    text += (activations == Format::Int8 ? "_a8" : "_af8") +
            (tokenScales ? std::string("t") : "k" + std::to_string(kStep));
  return text;
}

FailureOr<Scheme>
tessera::quant::checkScheme(Location loc, const TileQuantizeOptions &options) {
  QuantFormat weights = options.weights, activations = options.activations;
  QuantPlacement placement = options.placement;
  int64_t group = options.group;
  bool zeroPoints = options.zeroPoints;
  // The option parser only admits the formats and placements listed in
  // Passes.td; what is left to check is how they combine.
  Scheme scheme{weights, group, zeroPoints, placement, activations};
  StringRef activationName = stringifyQuantFormat(activations);
  if (scheme.activations != Format::Real &&
      (zeroPoints || placement == Placement::Registers))
    return emitError(loc)
           << "tile-quantize: " << activationName << " activations feed an "
           << activationName
           << " MMA whose product is scaled after it: use weights without "
              "zero-points and placement=per-group or auto";
  bool fp8Weights = scheme.weights == Format::Fp8;
  if (scheme.activations == Format::Fp8 && !fp8Weights)
    return emitError(loc) << "tile-quantize: fp8 activations multiply fp8 "
                             "weights; use weights=fp8";
  if (scheme.activations == Format::Int8 && fp8Weights)
    return emitError(loc) << "tile-quantize: int8 activations multiply "
                             "integer weights; use activations=fp8 with "
                             "weights=fp8";
  if (scheme.activations != Format::Real)
    scheme.placement = Placement::PerGroup;
  scheme.tokenScales = options.activationScales == ActivationScales::Token;
  if (scheme.tokenScales && scheme.activations == Format::Real)
    return emitError(loc) << "tile-quantize: activation-scales=token "
                             "quantizes the activations; use "
                             "activations=int8 or fp8";
  if (scheme.weights == Format::Int8) {
    if (group > 0)
      return emitError(loc) << "tile-quantize: int8 weights have one "
                               "scale per channel; drop group="
                            << static_cast<int64_t>(group);
    scheme.group = 0;
    return scheme;
  }
  if (fp8Weights) {
    if (group > 0 && group != kFp8Block)
      return emitError(loc)
             << "tile-quantize: fp8 weights have one scale per " << kFp8Block
             << "x" << kFp8Block
             << " block; drop group=" << static_cast<int64_t>(group);
    if (zeroPoints)
      return emitError(loc) << "tile-quantize: fp8 weights are symmetric; "
                               "drop zero-points";
    scheme.group = kFp8Block;
    return scheme;
  }
  if (group < 0)
    scheme.group = 128;
  if (!llvm::is_contained({32, 64, 128}, scheme.group))
    return emitError(loc) << "tile-quantize: int4 groups are 32, 64 or "
                             "128 rows of k, not "
                          << scheme.group;
  return scheme;
}

FailureOr<Source> tessera::quant::findSource(tile::MmaOp mma,
                                             tile::KernelOp kernel,
                                             bool weight) {
  auto reject = [&](const Twine &why) {
    return mma.emitError("tile-quantize: ") << why;
  };
  StringRef role = weight ? "weight" : "activation";
  StringRef operand = weight ? "b" : "a";
  // Weights may be [k, n] or [n, k] (transpose_b); activations are [m, k].
  if (!weight && mma.getTransposeA())
    return reject("the activation operand a is transposed; quantize a kernel "
                  "that reads a as [m, k]");
  auto load = (weight ? mma.getB() : mma.getA()).getDefiningOp<tile::LoadOp>();
  auto buffer =
      load ? load.getSource().getDefiningOp<tile::AllocSharedOp>() : nullptr;
  if (!buffer)
    return reject("operand ")
           << operand << " must be a tile.load of a tile.alloc_shared buffer";
  if (buffer.getType().isRing())
    return reject("the ") << role
                          << " buffer is already a ring; run tile-quantize "
                             "before tile-pipeline";
  Source source;
  source.buffer = buffer;
  for (Operation *user : buffer->getUsers()) {
    if (auto copy = dyn_cast<tile::CopyOp>(user)) {
      if (source.copy)
        return reject("the ")
               << role << " buffer is filled by more than one tile.copy";
      source.copy = copy;
    } else if (auto read = dyn_cast<tile::LoadOp>(user)) {
      source.loads.push_back(read);
    } else if (!isa<tag::TagDialect>(user->getDialect())) {
      return reject("the ")
             << role << " buffer is used by '" << user->getName()
             << "'; only tile.copy and tile.load can follow a change of its "
                "element type";
    }
  }
  if (!source.copy)
    return reject("the ") << role << " buffer is not filled by a tile.copy";
  auto argument = dyn_cast<BlockArgument>(source.copy.getSource());
  if (!argument || argument.getOwner() != &kernel.getBody().front())
    return reject("the ") << role << " must be copied from a kernel argument";
  // Weights may have leading (batch, expert) dimensions outside the tile.
  auto view = cast<tile::ViewType>(argument.getType());
  if ((weight ? view.getRank() < 2 : view.getRank() != 2) ||
      !(view.getElementType().isBF16() || view.getElementType().isF16()))
    return reject("the ") << role << " must be a "
                          << (weight ? "bf16 or f16 view of rank 2 or more"
                                     : "2-D bf16 or f16 view")
                          << ", not " << view;
  source.argument = argument;
  for (Operation *user : argument.getUsers()) {
    if (auto bind = dyn_cast<tag::BindOp>(user)) {
      AffineMap map = bind.getMap();
      if (!map.isPermutation() || !bind.getCaptures().empty())
        return bind.emitError("tile-quantize: the ")
               << role
               << "'s tag must name its coordinates, one component per "
                  "dimension, and have no captures";
      source.binding = bind;
      continue;
    }
    if (user != source.copy.getOperation() && !isa<tile::DimOp>(user))
      return reject("the ") << role << " argument is used by '"
                            << user->getName() << "' besides its tile.copy";
  }
  return source;
}

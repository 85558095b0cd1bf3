//===- LaunchAssumptions.cpp - tag.assume conditions the runtime checks ---===//
//
// tag-check trusts a kernel's `tag.assume` conditions (A and B agree on K, a
// group size is positive). Those computed from the launch's arguments
// alone (scalar arguments, view sizes, constants, 64-bit integer
// arithmetic and comparisons) go into the bundle metadata, so that every
// device checks them before it launches: an argument that breaks one is an
// error naming the assumption, not a kernel running on what its proof
// excluded. The token is `assume:<expr>:<message>`, the expression in
// prefix form: `a<i>` scalar argument i, `d<i>.<k>` size k of view
// argument i, `c<v>` a constant, `<op>(x,y[,z])` with the arith op's name;
// the message percent-encoded.
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/Bundle.h"

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/runtime/kernel_abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;

/// Values the runtime evaluates exactly as 64-bit integers.
static bool is64BitOrBool(Type type) {
  return type.isIndex() || type.isInteger(64) || type.isInteger(1);
}

/// `value` as an expression, or failure where it is not computed from the
/// launch's arguments alone (or too deep to be worth checking).
static FailureOr<std::string> encode(Value value, tile::KernelOp kernel,
                                     int depth) {
  if (depth > 32)
    return failure();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &kernel.getBody().front() ||
        !arg.getType().isIntOrIndex())
      return failure();
    return "a" + std::to_string(arg.getArgNumber());
  }
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return failure();
  auto operands = [&](StringRef name) -> FailureOr<std::string> {
    std::string text = (name + "(").str();
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      FailureOr<std::string> sub = encode(operand, kernel, depth + 1);
      if (failed(sub))
        return failure();
      text += (i ? "," : "") + *sub;
    }
    return text + ")";
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    // Constants of any width are their sign-extended value (comparisons
    // of sign-extended values order as the narrow ones do).
    auto integer = dyn_cast<IntegerAttr>(constant.getValue());
    if (!integer || !integer.getType().isIntOrIndex())
      return failure();
    return "c" + std::to_string(integer.getType().isInteger(1)
                                    ? int64_t(integer.getValue().getBoolValue())
                                    : integer.getValue().getSExtValue());
  }
  if (auto dim = dyn_cast<tile::DimOp>(op)) {
    auto arg = dyn_cast<BlockArgument>(dim.getView());
    if (!arg || arg.getOwner() != &kernel.getBody().front())
      return failure();
    return "d" + std::to_string(arg.getArgNumber()) + "." +
           std::to_string(dim.getDimension());
  }
  // Sign extensions keep the value (the runtime sign-extends arguments).
  if (isa<arith::IndexCastOp, arith::ExtSIOp>(op) &&
      op->getOperand(0).getType().getIntOrFloatBitWidth() <= 64 &&
      is64BitOrBool(op->getResult(0).getType()) &&
      !op->getOperand(0).getType().isInteger(1))
    return encode(op->getOperand(0), kernel, depth + 1);
  // Comparisons of exact operands are exact at any width; arithmetic is
  // where it is 64-bit (narrower wraps elsewhere).
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return operands(arith::stringifyCmpIPredicate(cmp.getPredicate()));
  if (!is64BitOrBool(op->getResult(0).getType()))
    return failure();
  StringRef name = llvm::TypeSwitch<Operation *, StringRef>(op)
                       .Case([](arith::AddIOp) { return "add"; })
                       .Case([](arith::SubIOp) { return "sub"; })
                       .Case([](arith::MulIOp) { return "mul"; })
                       .Case([](arith::DivUIOp) { return "divui"; })
                       .Case([](arith::DivSIOp) { return "divsi"; })
                       .Case([](arith::RemUIOp) { return "remui"; })
                       .Case([](arith::RemSIOp) { return "remsi"; })
                       .Case([](arith::AndIOp) { return "and"; })
                       .Case([](arith::OrIOp) { return "or"; })
                       .Case([](arith::XOrIOp) { return "xor"; })
                       .Case([](arith::MinUIOp) { return "minui"; })
                       .Case([](arith::MinSIOp) { return "minsi"; })
                       .Case([](arith::MaxUIOp) { return "maxui"; })
                       .Case([](arith::MaxSIOp) { return "maxsi"; })
                       .Case([](arith::SelectOp) { return "select"; })
                       .Default([](Operation *) { return ""; });
  if (name.empty())
    return failure();
  return operands(name);
}

std::vector<std::string> tessera::launchAssumptions(tile::KernelOp kernel) {
  std::vector<std::string> tokens;
  kernel.walk([&](tag::AssumeOp assume) {
    // Only assumptions every launch makes: not inside loops or branches
    // (the roles of a warp-specialized kernel repeat them).
    for (Operation *parent = assume->getParentOp(); parent != kernel;
         parent = parent->getParentOp())
      if (!isa<tile::WarpSpecializeOp>(parent))
        return;
    if (!assume.getCondition().getType().isInteger(1))
      return;
    FailureOr<std::string> expr = encode(assume.getCondition(), kernel, 0);
    if (failed(expr))
      return;
    std::string message;
    for (char c : assume.getMessage().value_or("tag.assume"))
      if (llvm::isAlnum(c) || c == '_' || c == '.' || c == '-')
        message += c;
      else
        message += "%" + llvm::utohexstr(uint8_t(c), /*LowerCase=*/false,
                                         /*Width=*/2);
    std::string token = TESSERA_ASSUME_PREFIX + *expr + ":" + message;
    if (!llvm::is_contained(tokens, token))
      tokens.push_back(std::move(token));
  });
  return tokens;
}

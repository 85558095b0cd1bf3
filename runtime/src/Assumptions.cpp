//===- Assumptions.cpp - The tag.assume conditions a launch must meet -----===//
//
// The bundle metadata's `assume:<expr>:<message>` tokens (kernel_abi.h):
// conditions on the launch's arguments that the kernel's proof assumed.
// The reader parses them (untrusted input: bounded depth, every argument
// checked against the kernel's), and each launch evaluates them on its
// arguments as 64-bit integers, as the kernel computes them.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/runtime/kernel_abi.h"

#include <cstring>

using namespace tessera::runtime;

namespace {

constexpr int kMaxDepth = 32;

/// The operations an expression may apply, with their operand counts.
struct OpInfo {
  const char *name;
  int operands;
};
constexpr OpInfo kOps[] = {
    {"eq", 2},    {"ne", 2},    {"slt", 2},   {"sle", 2},   {"sgt", 2},
    {"sge", 2},   {"ult", 2},   {"ule", 2},   {"ugt", 2},   {"uge", 2},
    {"add", 2},   {"sub", 2},   {"mul", 2},   {"divui", 2}, {"divsi", 2},
    {"remui", 2}, {"remsi", 2}, {"and", 2},   {"or", 2},    {"xor", 2},
    {"minui", 2}, {"minsi", 2}, {"maxui", 2}, {"maxsi", 2}, {"select", 3},
};

bool parseInt(std::string_view &text, int64_t &value, bool allowSign) {
  bool negative = allowSign && !text.empty() && text[0] == '-';
  if (negative)
    text.remove_prefix(1);
  size_t digits = 0;
  uint64_t v = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (digits == 19)
      return false;
    v = v * 10 + uint64_t(text[digits] - '0');
    ++digits;
  }
  if (!digits || v > uint64_t(INT64_MAX) + (negative ? 1 : 0))
    return false;
  text.remove_prefix(digits);
  value = negative ? int64_t(0 - v) : int64_t(v);
  return true;
}

/// Parses one expression at the start of `text` into `out` (its root last).
bool parseExpr(std::string_view &text, const KernelEntry &kernel,
               Assumption &out, int depth) {
  if (depth > kMaxDepth || text.empty())
    return false;
  AssumptionNode node;
  // An atom is its letter and a number ("and(" and "add(" are operations).
  char kind = text[0];
  char next = text.size() > 1 ? text[1] : '\0';
  bool atom = (next >= '0' && next <= '9') || (kind == 'c' && next == '-');
  if (atom && (kind == 'a' || kind == 'd' || kind == 'c')) {
    std::string_view rest = text.substr(1);
    int64_t value = 0;
    if (!parseInt(rest, value, kind == 'c'))
      return false;
    if (kind == 'c') {
      node.kind = AssumptionNode::Const;
      node.value = value;
    } else {
      if (value >= int64_t(kernel.specs.size()))
        return false;
      const ArgSpec &spec = kernel.specs[size_t(value)];
      node.arg = size_t(value);
      if (kind == 'a') {
        // An integer scalar (index, i1 to i64).
        if (spec.view || (spec.element != "index" &&
                          (spec.element.size() < 2 || spec.element[0] != 'i')))
          return false;
        node.kind = AssumptionNode::Arg;
      } else {
        int64_t dim = 0;
        if (!spec.view || rest.empty() || rest[0] != '.')
          return false;
        rest.remove_prefix(1);
        if (!parseInt(rest, dim, false) || dim >= spec.rank)
          return false;
        node.kind = AssumptionNode::Dim;
        node.value = dim;
      }
    }
    text = rest;
    out.nodes.push_back(node);
    return true;
  }
  size_t open = text.find('(');
  if (open == std::string_view::npos)
    return false;
  std::string_view name = text.substr(0, open);
  const OpInfo *op = nullptr;
  for (const OpInfo &candidate : kOps)
    if (name == candidate.name)
      op = &candidate;
  if (!op)
    return false;
  text.remove_prefix(open + 1);
  node.kind = AssumptionNode::Op;
  node.op = op->name;
  for (int i = 0; i < op->operands; ++i) {
    if (i) {
      if (text.empty() || text[0] != ',')
        return false;
      text.remove_prefix(1);
    }
    if (!parseExpr(text, kernel, out, depth + 1))
      return false;
    node.operands[i] = out.nodes.size() - 1;
  }
  if (text.empty() || text[0] != ')')
    return false;
  text.remove_prefix(1);
  out.nodes.push_back(node);
  return true;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

} // namespace

bool tessera::runtime::parseAssumption(std::string_view token,
                                       const KernelEntry &kernel,
                                       Assumption &out) {
  std::string_view text = token.substr(std::strlen(TESSERA_ASSUME_PREFIX));
  if (!parseExpr(text, kernel, out, 0) || text.empty() || text[0] != ':')
    return false;
  text.remove_prefix(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.message += text[i];
      continue;
    }
    if (i + 2 >= text.size() || hexDigit(text[i + 1]) < 0 ||
        hexDigit(text[i + 2]) < 0)
      return false;
    out.message += char(hexDigit(text[i + 1]) * 16 + hexDigit(text[i + 2]));
    i += 2;
  }
  return true;
}

std::optional<int64_t> tessera::runtime::evaluateAssumption(
    const Assumption &assumption, const KernelEntry &kernel,
    const std::vector<std::vector<int64_t>> &slots) {
  std::vector<int64_t> values;
  values.reserve(assumption.nodes.size());
  for (const AssumptionNode &node : assumption.nodes) {
    int64_t v = 0;
    switch (node.kind) {
    case AssumptionNode::Const:
      v = node.value;
      break;
    case AssumptionNode::Dim:
      v = slots[node.arg][3 + size_t(node.value)];
      break;
    case AssumptionNode::Arg: {
      // The scalar's bytes, sign-extended (i1: its low bit).
      const ArgSpec &spec = kernel.specs[node.arg];
      v = slots[node.arg][0];
      if (spec.element == "i1")
        v &= 1;
      else if (spec.bytes < 8)
        v = int64_t(uint64_t(v) << (64 - 8 * spec.bytes)) >>
            (64 - 8 * spec.bytes);
      break;
    }
    case AssumptionNode::Op: {
      std::string_view op = node.op;
      int64_t x = values[node.operands[0]];
      int64_t y = op == "select" ? 0 : values[node.operands[1]];
      uint64_t ux = uint64_t(x), uy = uint64_t(y);
      if ((op == "divui" || op == "remui" || op == "divsi" || op == "remsi") &&
          y == 0)
        return std::nullopt; // undecided: the kernel defines, not divides
      if ((op == "divsi" || op == "remsi") && x == INT64_MIN && y == -1)
        return std::nullopt;
      if (op == "eq")
        v = x == y;
      else if (op == "ne")
        v = x != y;
      else if (op == "slt")
        v = x < y;
      else if (op == "sle")
        v = x <= y;
      else if (op == "sgt")
        v = x > y;
      else if (op == "sge")
        v = x >= y;
      else if (op == "ult")
        v = ux < uy;
      else if (op == "ule")
        v = ux <= uy;
      else if (op == "ugt")
        v = ux > uy;
      else if (op == "uge")
        v = ux >= uy;
      else if (op == "add")
        v = int64_t(ux + uy);
      else if (op == "sub")
        v = int64_t(ux - uy);
      else if (op == "mul")
        v = int64_t(ux * uy);
      else if (op == "divui")
        v = int64_t(ux / uy);
      else if (op == "divsi")
        v = x / y;
      else if (op == "remui")
        v = int64_t(ux % uy);
      else if (op == "remsi")
        v = x % y;
      else if (op == "and")
        v = x & y;
      else if (op == "or")
        v = x | y;
      else if (op == "xor")
        v = x ^ y;
      else if (op == "minui")
        v = ux < uy ? x : y;
      else if (op == "minsi")
        v = x < y ? x : y;
      else if (op == "maxui")
        v = ux > uy ? x : y;
      else if (op == "maxsi")
        v = x > y ? x : y;
      else if (op == "select")
        v = x & 1 ? values[node.operands[1]] : values[node.operands[2]];
      break;
    }
    }
    values.push_back(v);
  }
  return values.empty() ? std::nullopt : std::optional<int64_t>(values.back());
}

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

/// The operations an expression may apply: their names, operand counts and
/// values on 64-bit integers (unsigned ones on the bits); select is
/// evaluated where it is used.
using Fn = int64_t (*)(int64_t, int64_t);
struct OpInfo {
  const char *name;
  int operands;
  Fn fn;
};
uint64_t u(int64_t x) { return uint64_t(x); }
constexpr OpInfo kOps[] = {
    {"eq", 2, [](int64_t x, int64_t y) -> int64_t { return x == y; }},
    {"ne", 2, [](int64_t x, int64_t y) -> int64_t { return x != y; }},
    {"slt", 2, [](int64_t x, int64_t y) -> int64_t { return x < y; }},
    {"sle", 2, [](int64_t x, int64_t y) -> int64_t { return x <= y; }},
    {"sgt", 2, [](int64_t x, int64_t y) -> int64_t { return x > y; }},
    {"sge", 2, [](int64_t x, int64_t y) -> int64_t { return x >= y; }},
    {"ult", 2, [](int64_t x, int64_t y) -> int64_t { return u(x) < u(y); }},
    {"ule", 2, [](int64_t x, int64_t y) -> int64_t { return u(x) <= u(y); }},
    {"ugt", 2, [](int64_t x, int64_t y) -> int64_t { return u(x) > u(y); }},
    {"uge", 2, [](int64_t x, int64_t y) -> int64_t { return u(x) >= u(y); }},
    {"add", 2, [](int64_t x, int64_t y) { return int64_t(u(x) + u(y)); }},
    {"sub", 2, [](int64_t x, int64_t y) { return int64_t(u(x) - u(y)); }},
    {"mul", 2, [](int64_t x, int64_t y) { return int64_t(u(x) * u(y)); }},
    {"divui", 2, [](int64_t x, int64_t y) { return int64_t(u(x) / u(y)); }},
    {"divsi", 2, [](int64_t x, int64_t y) { return x / y; }},
    {"remui", 2, [](int64_t x, int64_t y) { return int64_t(u(x) % u(y)); }},
    {"remsi", 2, [](int64_t x, int64_t y) { return x % y; }},
    {"and", 2, [](int64_t x, int64_t y) { return x & y; }},
    {"or", 2, [](int64_t x, int64_t y) { return x | y; }},
    {"xor", 2, [](int64_t x, int64_t y) { return x ^ y; }},
    {"minui", 2, [](int64_t x, int64_t y) { return u(x) < u(y) ? x : y; }},
    {"minsi", 2, [](int64_t x, int64_t y) { return x < y ? x : y; }},
    {"maxui", 2, [](int64_t x, int64_t y) { return u(x) > u(y) ? x : y; }},
    {"maxsi", 2, [](int64_t x, int64_t y) { return x > y ? x : y; }},
    {"select", 3, nullptr},
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
      if (op == "select") {
        v = x & 1 ? values[node.operands[1]] : values[node.operands[2]];
        break;
      }
      int64_t y = values[node.operands[1]];
      // Undecided where the kernel defines a result instead of dividing.
      bool signedDivision = op == "divsi" || op == "remsi";
      bool division = signedDivision || op == "divui" || op == "remui";
      if (division && (y == 0 || (signedDivision && x == INT64_MIN && y == -1)))
        return std::nullopt;
      for (const OpInfo &info : kOps)
        if (op == info.name)
          v = info.fn(x, y);
      break;
    }
    }
    values.push_back(v);
  }
  return values.empty() ? std::nullopt : std::optional<int64_t>(values.back());
}

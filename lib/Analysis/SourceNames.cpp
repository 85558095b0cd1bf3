//===- SourceNames.cpp - Source-level names of SSA values -------*- C++ -*-===//

#include "tessera/Analysis/SourceNames.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tessera::analysis;

static bool isNameChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

llvm::StringRef SourceNames::line(llvm::StringRef file, unsigned number) {
  auto &buffer = files[file];
  if (!buffer) {
    auto loaded = llvm::MemoryBuffer::getFile(file);
    if (!loaded)
      return {};
    buffer = std::move(*loaded);
  }
  llvm::StringRef text = buffer->getBuffer();
  for (unsigned i = 1; i < number && !text.empty(); ++i)
    text = text.split('\n').second;
  return text.split('\n').first;
}

std::string SourceNames::get(Value value) {
  if (auto it = cache.find(value); it != cache.end())
    return it->second;
  std::string name;
  Location loc = isa<BlockArgument>(value) ? value.getLoc()
                                           : value.getDefiningOp()->getLoc();
  // Values a pass made carry their name in a NameLoc.
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    name = ("%" + nameLoc.getName().getValue()).str();
  else if (auto fileLoc = dyn_cast<FileLineColLoc>(loc)) {
    llvm::StringRef text = line(fileLoc.getFilename(), fileLoc.getLine());
    size_t col = fileLoc.getColumn() ? fileLoc.getColumn() - 1 : 0;
    if (col <= text.size()) {
      if (isa<BlockArgument>(value)) {
        // The location points at the argument's name.
        llvm::StringRef rest = text.drop_front(col);
        if (rest.starts_with("%")) {
          size_t end = 1;
          while (end < rest.size() && isNameChar(rest[end]))
            ++end;
          name = rest.take_front(end).str();
        }
      } else {
        // The location points at the op; its results are named before
        // `=` on the same line: `%a, %b = ...`.
        llvm::StringRef before = text.take_front(col).rtrim();
        if (before.consume_back("=")) {
          llvm::SmallVector<llvm::StringRef> names;
          before.split(names, ',');
          unsigned index = cast<OpResult>(value).getResultNumber();
          if (index < names.size()) {
            llvm::StringRef candidate = names[index].trim();
            // `%res:2 = ...` packs results; keep the plain form only.
            if (candidate.starts_with("%") &&
                llvm::all_of(candidate.drop_front(), isNameChar))
              name = candidate.str();
          }
        }
      }
    }
  }
  if (name.empty()) {
    llvm::raw_string_ostream os(name);
    Operation *scope =
        isa<BlockArgument>(value)
            ? cast<BlockArgument>(value).getOwner()->getParentOp()
            : value.getDefiningOp();
    AsmState state(scope);
    value.printAsOperand(os, state);
  }
  cache[value] = name;
  return name;
}

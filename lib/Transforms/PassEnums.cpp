//===- PassEnums.cpp - Enumerated pass options ---------------------------===//

#include "tessera/Transforms/PassEnums.h"

#include "tessera/Transforms/PassEnums.cpp.inc"

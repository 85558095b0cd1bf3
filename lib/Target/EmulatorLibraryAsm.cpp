//===- EmulatorLibraryAsm.cpp - libdevice's inline PTX as host IR --------===//
//
// CUDA's libdevice writes a few instructions as inline PTX: rcp.approx.ftz
// (in tanhf and the functions built on it), sub.rn (the exactly rounded
// subtraction some reductions rely on) and the mad.lo.cc / madc.hi pair of
// a 32x32+32 -> 64-bit multiply-add (sinf's and cosf's argument reduction
// for large inputs), and tanh.approx.f32 is what math.tanh with
// fastmath<afn> lowers to. The emulator image computes each with plain LLVM IR
// of the same meaning: x86-64 rounds to nearest even as .rn does; .ftz
// flushes subnormal inputs and results to zero of the same sign. Other
// inline assembly is left for the caller to report.
//
//===----------------------------------------------------------------------===//

#include "EmulatorLibraryAsm.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include <cctype>

using namespace llvm;

/// `x`, or a zero of its sign where it is subnormal (.ftz).
static Value *flush(IRBuilder<> &b, Value *x) {
  Value *magnitude = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  Value *tiny = b.CreateFCmpOLT(
      magnitude, ConstantFP::get(x->getType(), 0x1p-126)); // FLT_MIN
  Value *zero = b.CreateBinaryIntrinsic(Intrinsic::copysign,
                                        ConstantFP::get(x->getType(), 0.0), x);
  return b.CreateSelect(tiny, zero, x);
}

/// The IR for the asm call `call` with whitespace-free text `text`, or
/// null when the text is not one of libdevice's.
static Value *lower(IRBuilder<> &b, CallInst *call, StringRef text) {
  auto arg = [&](unsigned i) { return call->getArgOperand(i); };
  Type *f32 = b.getFloatTy();
  if (text == "rcp.approx.ftz.f32$0,$1;" && call->getType() == f32)
    // The approximation's error (below 1 ulp) is not modelled.
    return flush(b, b.CreateFDiv(ConstantFP::get(f32, 1.0), flush(b, arg(0))));
  // What the lowering of math.tanh with fastmath<afn> emits; its
  // approximation's error (2^-10.987 relative) is not modelled.
  if (text == "tanh.approx.f32$0,$1;" && call->getType() == f32)
    return b.CreateUnaryIntrinsic(Intrinsic::tanh, arg(0));
  bool ftz = text == "sub.rn.ftz.f32$0,$1,$2;";
  if ((ftz || text == "sub.rn.f32$0,$1,$2;") && call->getType() == f32) {
    if (!ftz)
      return b.CreateFSub(arg(0), arg(1));
    return flush(b, b.CreateFSub(flush(b, arg(0)), flush(b, arg(1))));
  }
  if (text == "sub.rn.f64$0,$1,$2;" && call->getType()->isDoubleTy())
    return b.CreateFSub(arg(0), arg(1));
  // {$1, $0} = $2 * $3 + $4, unsigned, as 64 bits.
  if (text == "{mad.lo.cc.u32$0,$2,$3,$4;madc.hi.u32$1,$2,$3,0;}" &&
      call->arg_size() == 3) {
    Type *i64 = b.getInt64Ty();
    Value *product =
        b.CreateMul(b.CreateZExt(arg(0), i64), b.CreateZExt(arg(1), i64));
    Value *sum = b.CreateAdd(product, b.CreateZExt(arg(2), i64));
    Value *result = PoisonValue::get(call->getType());
    result = b.CreateInsertValue(result, b.CreateTrunc(sum, b.getInt32Ty()), 0);
    return b.CreateInsertValue(
        result, b.CreateTrunc(b.CreateLShr(sum, 32), b.getInt32Ty()), 1);
  }
  return nullptr;
}

void tessera::rewriteLibraryAsm(Module &module) {
  SmallVector<std::pair<CallInst *, std::string>> calls;
  for (Function &f : module)
    for (BasicBlock &block : f)
      for (Instruction &inst : block)
        if (auto *call = dyn_cast<CallInst>(&inst))
          if (auto *code = dyn_cast<InlineAsm>(call->getCalledOperand())) {
            std::string text = code->getAsmString().str();
            erase_if(text, [](char c) { return std::isspace(c); });
            calls.emplace_back(call, std::move(text));
          }
  for (auto &[call, text] : calls) {
    IRBuilder<> b(call);
    if (Value *value = lower(b, call, text)) {
      call->replaceAllUsesWith(value);
      call->eraseFromParent();
    }
  }
}

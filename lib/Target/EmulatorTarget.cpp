//===- EmulatorTarget.cpp - Device LLVM IR as a host emulator image -------===//
//
// Takes the optimized LLVM IR the NVPTX backend compiles (the cut point:
// nothing below it is rewritten but the GPU intrinsics) and makes a host
// shared object of it:
//  - every llvm.nvvm.* and llvm.amdgcn.* intrinsic call becomes an indirect
//    call through __tessera_emu_table (filled by the runtime from its
//    emulator); calls returning a struct or a vector wider than 64 bits pass
//    a pointer to the result first, such vector arguments go by pointer; an
//    intrinsic the emulator does not implement, or inline asm other than
//    libdevice's few instructions (EmulatorLibraryAsm.cpp), is a compile
//    error;
//  - the dynamic shared memory is the running block's buffer;
//  - each kernel gets the host entry ABI, `tessera_kernel_<name>(args, gx,
//    gy, gz, begin, end)`, which hands its blocks to the emulator's grid
//    runner (for AMD images, the wave64 one) with a per-thread function that
//    unpacks the arguments;
//  - plain shared-memory accesses and stores through kernel arguments tell
//    the race detector first, with their source location (the device
//    code's line table) when they have one; each intrinsic call is preceded
//    by one that gives the emulator its location (`tessera.emu.site`).
// The kernel bodies are compiled for x86-64 without re-optimizing them.
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/EmulatorTarget.h"

#include "EmulatorLibraryAsm.h"
#include "emu/Emulator.h"
#include "tessera/runtime/kernel_abi.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace tessera;

namespace {
class EmulatorRewrite {
public:
  EmulatorRewrite(Location loc, llvm::Module &module)
      : loc(loc), module(module), ctx(module.getContext()),
        ptr(llvm::PointerType::get(ctx, 0)), i64(llvm::Type::getInt64Ty(ctx)) {}

  LogicalResult run(const std::vector<KernelInfo> &kernels,
                    llvm::TargetMachine &machine);

private:
  unsigned entry(llvm::StringRef name);
  llvm::Value *loadEntry(llvm::IRBuilder<> &b, unsigned index);
  LogicalResult rewriteWgmma();
  LogicalResult rewriteIntrinsics();
  LogicalResult rewriteSharedMemory();
  void instrumentSharedAccesses();
  void instrumentGlobalStores();
  void defineDivisions();
  LogicalResult addEntry(const KernelInfo &kernel);
  void emitTable();
  /// The source location of `inst` ("file:line:col") as a C string for
  /// the race detector's reports; null when the device code has none.
  llvm::Constant *site(const llvm::Instruction *inst);

  Location loc;
  llvm::Module &module;
  llvm::LLVMContext &ctx;
  llvm::PointerType *ptr;
  llvm::IntegerType *i64;
  llvm::GlobalVariable *table = nullptr;
  std::vector<std::string> names;
  llvm::StringMap<llvm::Constant *> sites;
  /// An AMDGPU module: wave64, llvm.amdgcn.* intrinsics.
  bool amd = false;
  static constexpr unsigned kTableSize = 256;
};
} // namespace

llvm::Constant *EmulatorRewrite::site(const llvm::Instruction *inst) {
  const llvm::DebugLoc &where = inst->getDebugLoc();
  if (!where || where.getLine() == 0)
    return llvm::ConstantPointerNull::get(ptr);
  std::string text =
      (where->getFilename() + ":" + llvm::Twine(where.getLine()) + ":" +
       llvm::Twine(where.getCol()))
          .str();
  llvm::Constant *&string = sites[text];
  if (!string) {
    auto *data = llvm::ConstantDataArray::getString(ctx, text);
    string = new llvm::GlobalVariable(module, data->getType(), true,
                                      llvm::GlobalValue::PrivateLinkage, data,
                                      ".emu.site");
  }
  return string;
}

unsigned EmulatorRewrite::entry(llvm::StringRef name) {
  for (auto [i, known] : llvm::enumerate(names))
    if (known == name)
      return i;
  names.push_back(name.str());
  return names.size() - 1;
}

llvm::Value *EmulatorRewrite::loadEntry(llvm::IRBuilder<> &b, unsigned index) {
  llvm::Value *slot =
      b.CreateConstInBoundsGEP2_64(table->getValueType(), table, 0, index);
  return b.CreateLoad(ptr, slot);
}

LogicalResult EmulatorRewrite::rewriteWgmma() {
  // NVVM prints wgmma.mma_async (shared-memory A and B, f32 accumulators)
  // as inline asm whose operands are the N/2 accumulators (outputs, then
  // the tied inputs), descriptor A, descriptor B, scale-d (a predicate),
  // then the immediates scale-a, scale-b, trans-a, trans-b; the lowering
  // prints the register-A form alike, with four A registers in place of
  // descriptor A and no trans-a, and the 8-bit register-A form (k32, e4m3)
  // also without trans-b. The call becomes one to the emulator's warpgroup
  // collective with the accumulators (and A registers) in memory.
  llvm::Regex shared("^\\{\\.reg\\.predp;setp\\.ne\\.b32p,\\$([0-9]+),0;"
                     "wgmma\\.mma_async\\.sync\\.aligned\\.m64n([0-9]+)k16"
                     "\\.f32\\.(bf16|f16)\\.(bf16|f16)\\{[$0-9,]*\\},"
                     "\\$([0-9]+),\\$([0-9]+),p,\\$([0-9]+),\\$([0-9]+),"
                     "\\$([0-9]+),\\$([0-9]+);\\}$");
  llvm::Regex registers(
      "^\\{\\.reg\\.predp;setp\\.ne\\.b32p,\\$([0-9]+),0;"
      "wgmma\\.mma_async\\.sync\\.aligned\\.m64n([0-9]+)k16"
      "\\.f32\\.(bf16|f16)\\.(bf16|f16)\\{[$0-9,]*\\},"
      "\\{\\$([0-9]+),\\$([0-9]+),\\$([0-9]+),\\$([0-9]+)\\},"
      "\\$([0-9]+),p,\\$([0-9]+),\\$([0-9]+),\\$([0-9]+);\\}$");
  llvm::Regex registers8(
      "^\\{\\.reg\\.predp;setp\\.ne\\.b32p,\\$([0-9]+),0;"
      "wgmma\\.mma_async\\.sync\\.aligned\\.m64n([0-9]+)k32"
      "\\.f32\\.(e4m3)\\.(e4m3)\\{[$0-9,]*\\},"
      "\\{\\$([0-9]+),\\$([0-9]+),\\$([0-9]+),\\$([0-9]+)\\},"
      "\\$([0-9]+),p,\\$([0-9]+),\\$([0-9]+);\\}$");
  // The lowering's wait_group whose outputs are the accumulators, tied to
  // its inputs (a comment names them).
  llvm::Regex wait("^//waitfortheaccumulators(\\$[0-9]+)*"
                   "wgmma\\.wait_group\\.sync\\.aligned([0-9]+);$");
  llvm::SmallVector<llvm::CallInst *> calls;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (auto *code =
                  llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
            if (llvm::StringRef(code->getAsmString()).contains("wgmma."))
              calls.push_back(call);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *f32 = llvm::Type::getFloatTy(ctx);
  for (llvm::CallInst *call : calls) {
    std::string text = llvm::cast<llvm::InlineAsm>(call->getCalledOperand())
                           ->getAsmString()
                           .str();
    llvm::erase_if(text, [](char c) { return std::isspace(c); });
    llvm::SmallVector<llvm::StringRef> m;
    if (wait.match(text, &m)) {
      // The wait with the accumulators passing through: the emulator's
      // wait, and its inputs are its outputs.
      uint64_t pending = 0;
      auto *result = llvm::dyn_cast<llvm::StructType>(call->getType());
      if (m[2].getAsInteger(10, pending) || !result ||
          result->getNumElements() != call->arg_size())
        continue;
      llvm::IRBuilder<> b(call);
      b.CreateCall(
          llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
          loadEntry(b, entry("tessera.emu.site")), {site(call)});
      b.CreateCall(
          llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {i64}, false),
          loadEntry(b, entry("llvm.nvvm.wgmma.wait_group.sync.aligned")),
          {b.getInt64(pending)});
      llvm::Value *values = llvm::PoisonValue::get(result);
      for (unsigned i = 0; i < call->arg_size(); ++i)
        values = b.CreateInsertValue(values, call->getArgOperand(i), i);
      call->replaceAllUsesWith(values);
      call->eraseFromParent();
      continue;
    }
    bool registerA = !shared.match(text, &m);
    bool eightBit = registerA && registers8.match(text, &m);
    if (registerA && !eightBit && !registers.match(text, &m))
      continue; // reported as unsupported inline asm below
    unsigned n = 0;
    if (m[2].getAsInteger(10, n) || m[3] != m[4])
      continue;
    unsigned count = n / 2;
    // The operand numbers must be where they are printed: operand
    // 2 count + j is call argument count + j. Shared A: group 1 scale-d,
    // 5 and 6 the descriptors, 7-10 the immediates; register A: 5-8 the A
    // registers, 9 descriptor B, 10-12 the immediates.
    static const std::pair<unsigned, unsigned> sharedOperands[] = {
        {1, 2}, {5, 0}, {6, 1}, {7, 3}, {8, 4}, {9, 5}, {10, 6}};
    static const std::pair<unsigned, unsigned> registerOperands[] = {
        {5, 0}, {6, 1},  {7, 2},  {8, 3}, {9, 4},
        {1, 5}, {10, 6}, {11, 7}, {12, 8}};
    llvm::ArrayRef<std::pair<unsigned, unsigned>> operands =
        registerA ? llvm::ArrayRef(registerOperands)
                  : llvm::ArrayRef(sharedOperands);
    // The 8-bit form ends at scale-b.
    if (eightBit)
      operands = operands.drop_back();
    bool expected = call->arg_size() == count + operands.size();
    for (auto [group, j] : operands)
      expected &= m[group] == std::to_string(2 * count + j);
    if (!expected)
      continue;
    llvm::IRBuilder<> b(call);
    llvm::IRBuilder<> entryBuilder(
        &*call->getFunction()->getEntryBlock().getFirstInsertionPt());
    auto *array = llvm::ArrayType::get(f32, count);
    llvm::AllocaInst *in = entryBuilder.CreateAlloca(array);
    llvm::Type *result = call->getType();
    llvm::AllocaInst *out = entryBuilder.CreateAlloca(result);
    for (unsigned i = 0; i < count; ++i)
      b.CreateStore(call->getArgOperand(i),
                    b.CreateConstInBoundsGEP2_32(array, in, 0, i));
    llvm::SmallVector<llvm::Value *> args = {out, in};
    llvm::SmallVector<llvm::Type *> params = {ptr, ptr};
    unsigned first = count;
    if (registerA) {
      // The four A registers go in memory; the rest as the shared form's.
      auto *words = llvm::ArrayType::get(i32, 4);
      llvm::AllocaInst *a = entryBuilder.CreateAlloca(words);
      for (unsigned i = 0; i < 4; ++i)
        b.CreateStore(call->getArgOperand(count + i),
                      b.CreateConstInBoundsGEP2_32(words, a, 0, i));
      args.push_back(a);
      params.push_back(ptr);
      first += 4;
    }
    for (unsigned i = first; i < call->arg_size(); ++i) {
      args.push_back(call->getArgOperand(i));
      params.push_back(call->getArgOperand(i)->getType());
    }
    if (eightBit) {
      // trans-b 0: B is K-major.
      args.push_back(b.getInt32(0));
      params.push_back(i32);
    }
    args.push_back(b.getInt32(n));
    params.push_back(i32);
    auto *type =
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false);
    b.CreateCall(
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
        loadEntry(b, entry("tessera.emu.site")), {site(call)});
    llvm::Value *callee =
        loadEntry(b, entry(("tessera.emu.wgmma." +
                            llvm::Twine(registerA ? "rs." : "") + "f32." + m[3])
                               .str()));
    b.CreateCall(type, callee, args);
    call->replaceAllUsesWith(b.CreateLoad(result, out));
    call->eraseFromParent();
  }
  return success();
}

LogicalResult EmulatorRewrite::rewriteIntrinsics() {
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (llvm::isa<llvm::InlineAsm>(call->getCalledOperand())) {
            std::string text;
            llvm::raw_string_ostream os(text);
            inst.print(os);
            return emitError(loc)
                   << "the emulator cannot run inline assembly: " << text;
          }
  unsigned siteIndex = entry("tessera.emu.site");
  llvm::SmallVector<llvm::Function *> intrinsics;
  for (llvm::Function &f : module)
    if (f.getName().starts_with("llvm.nvvm.") ||
        f.getName().starts_with("llvm.amdgcn."))
      intrinsics.push_back(&f);
  llvm::SmallVector<llvm::StringRef> missing;
  for (llvm::Function *f : intrinsics)
    if (!f->use_empty() && !emu::lookup(f->getName()))
      missing.push_back(f->getName());
  if (!missing.empty()) {
    llvm::sort(missing);
    InFlightDiagnostic diag = emitError(loc)
                              << "the emulator does not implement ";
    llvm::interleave(
        missing, [&](llvm::StringRef name) { diag << "'" << name << "'"; },
        [&] { diag << ", "; });
    return diag;
  }
  for (llvm::Function *f : intrinsics) {
    if (f->use_empty())
      continue;
    unsigned index = entry(f->getName());
    llvm::FunctionType *type = f->getFunctionType();
    const llvm::DataLayout &layout = module.getDataLayout();
    // Vectors of up to 64 bits go and come back as integers of their size
    // (the C ABI of the emulator's functions has no <2 x half>); wider ones
    // (MFMA accumulators) by pointer, as do struct results.
    auto wide = [&](llvm::Type *t) {
      return t->isVectorTy() && layout.getTypeSizeInBits(t) > 64;
    };
    auto passAs = [&](llvm::Type *t) -> llvm::Type * {
      if (wide(t))
        return ptr;
      if (t->isVectorTy())
        return llvm::IntegerType::get(ctx, layout.getTypeSizeInBits(t));
      return t;
    };
    llvm::Type *returned = type->getReturnType();
    bool outParam = returned->isStructTy() || wide(returned);
    llvm::SmallVector<llvm::Type *> params;
    if (outParam)
      params.push_back(ptr);
    for (llvm::Type *param : type->params())
      params.push_back(passAs(param));
    auto *calleeType = llvm::FunctionType::get(
        outParam ? llvm::Type::getVoidTy(ctx) : passAs(returned), params,
        false);
    for (llvm::User *user : llvm::make_early_inc_range(f->users())) {
      auto *call = llvm::cast<llvm::CallInst>(user);
      llvm::IRBuilder<> b(call);
      // The thread's current site: what the emulator names in a report
      // about this instruction.
      b.CreateCall(
          llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
          loadEntry(b, siteIndex), {site(call)});
      llvm::IRBuilder<> entryBuilder(
          &*call->getFunction()->getEntryBlock().getFirstInsertionPt());
      llvm::Value *callee = loadEntry(b, index);
      llvm::SmallVector<llvm::Value *> args;
      llvm::AllocaInst *out = nullptr;
      if (outParam) {
        out = entryBuilder.CreateAlloca(returned);
        args.push_back(out);
      }
      for (llvm::Value *arg : call->args()) {
        llvm::Type *t = arg->getType();
        if (wide(t)) {
          llvm::AllocaInst *slot = entryBuilder.CreateAlloca(t);
          b.CreateStore(arg, slot);
          args.push_back(slot);
        } else {
          args.push_back(t->isVectorTy() ? b.CreateBitCast(arg, passAs(t))
                                         : arg);
        }
      }
      llvm::Value *replacement = b.CreateCall(calleeType, callee, args);
      if (outParam)
        replacement = b.CreateLoad(returned, out);
      else if (returned->isVectorTy())
        replacement = b.CreateBitCast(replacement, returned);
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
    f->eraseFromParent();
  }
  return success();
}

LogicalResult EmulatorRewrite::rewriteSharedMemory() {
  llvm::SmallVector<llvm::GlobalVariable *> shared;
  for (llvm::GlobalVariable &g : module.globals())
    if (g.getAddressSpace() == 3)
      shared.push_back(&g);
  for (llvm::GlobalVariable *g : shared) {
    auto *array = llvm::dyn_cast<llvm::ArrayType>(g->getValueType());
    if (!array || array->getNumElements() != 0 || !g->isDeclaration())
      return emitError(loc) << "the emulator does not support static shared "
                               "memory (@"
                            << g->getName() << ") yet";
    llvm::convertUsersOfConstantsToInstructions({g});
    unsigned index = entry("tessera.emu.dynamic_shared");
    llvm::DenseMap<llvm::Function *, llvm::Value *> perFunction;
    for (llvm::Use &use : llvm::make_early_inc_range(g->uses())) {
      auto *inst = llvm::cast<llvm::Instruction>(use.getUser());
      llvm::Function *f = inst->getFunction();
      llvm::Value *&base = perFunction[f];
      if (!base) {
        llvm::IRBuilder<> b(&*f->getEntryBlock().getFirstInsertionPt());
        llvm::Value *callee = loadEntry(b, index);
        llvm::Value *generic =
            b.CreateCall(llvm::FunctionType::get(ptr, false), callee);
        base = b.CreateAddrSpaceCast(generic, g->getType());
      }
      use.set(base);
    }
    g->eraseFromParent();
  }
  return success();
}

void EmulatorRewrite::instrumentSharedAccesses() {
  // Before each plain load or store of shared memory, tell the race
  // detector (the access itself is unchanged).
  llvm::SmallVector<llvm::Instruction *> accesses;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
          if (load->getPointerAddressSpace() == 3)
            accesses.push_back(load);
        } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
          if (store->getPointerAddressSpace() == 3)
            accesses.push_back(store);
        }
  if (accesses.empty())
    return;
  unsigned index = entry("tessera.emu.shared_access");
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                       {ptr, i64, i32, ptr}, false);
  const llvm::DataLayout &layout = module.getDataLayout();
  for (llvm::Instruction *inst : accesses) {
    llvm::IRBuilder<> b(inst);
    bool write = llvm::isa<llvm::StoreInst>(inst);
    llvm::Value *address = llvm::getLoadStorePointerOperand(inst);
    llvm::Type *accessed =
        write ? llvm::cast<llvm::StoreInst>(inst)->getValueOperand()->getType()
              : inst->getType();
    b.CreateCall(type, loadEntry(b, index),
                 {b.CreateAddrSpaceCast(address, ptr),
                  b.getInt64(layout.getTypeStoreSize(accessed)),
                  b.getInt32(write), site(inst)});
  }
}

void EmulatorRewrite::instrumentGlobalStores() {
  // Before each plain store through a kernel argument (global memory; the
  // stack and shared memory are not reached that way), tell the race
  // detector, which catches two blocks writing one address.
  llvm::SmallVector<llvm::StoreInst *> stores;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst))
          if (store->getPointerAddressSpace() != 3 &&
              llvm::isa<llvm::Argument>(llvm::getUnderlyingObject(
                  store->getPointerOperand(), /*MaxLookup=*/0)))
            stores.push_back(store);
  if (stores.empty())
    return;
  unsigned index = entry("tessera.emu.global_store");
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                       {ptr, i64, ptr}, false);
  const llvm::DataLayout &layout = module.getDataLayout();
  for (llvm::StoreInst *store : stores) {
    llvm::IRBuilder<> b(store);
    b.CreateCall(type, loadEntry(b, index),
                 {b.CreateAddrSpaceCast(store->getPointerOperand(), ptr),
                  b.getInt64(layout.getTypeStoreSize(
                      store->getValueOperand()->getType())),
                  site(store)});
  }
}

void EmulatorRewrite::defineDivisions() {
  // A GPU divides by zero without trapping (the result is unspecified);
  // the CPU running the device code traps (SIGFPE). Each integer division
  // whose divisor is not a safe constant gets the results
  // define-integer-division gives the host's: x / 0 = 0, x % 0 = x,
  // MIN / -1 = MIN, MIN % -1 = 0.
  llvm::SmallVector<llvm::BinaryOperator *> divisions;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *op = llvm::dyn_cast<llvm::BinaryOperator>(&inst))
          if (llvm::is_contained(
                  {llvm::Instruction::UDiv, llvm::Instruction::SDiv,
                   llvm::Instruction::URem, llvm::Instruction::SRem},
                  op->getOpcode()))
            divisions.push_back(op);
  for (llvm::BinaryOperator *op : divisions) {
    bool isSigned = op->getOpcode() == llvm::Instruction::SDiv ||
                    op->getOpcode() == llvm::Instruction::SRem;
    bool isRemainder = op->getOpcode() == llvm::Instruction::URem ||
                       op->getOpcode() == llvm::Instruction::SRem;
    llvm::Value *x = op->getOperand(0), *d = op->getOperand(1);
    // Constant divisors other than 0 (and, signed, -1) need no guard.
    llvm::Constant *c = llvm::dyn_cast<llvm::Constant>(d);
    if (c && c->getType()->isVectorTy())
      c = c->getSplatValue();
    if (auto *ci = llvm::dyn_cast_if_present<llvm::ConstantInt>(c);
        ci && !ci->isZero() && !(isSigned && ci->isMinusOne()))
      continue;
    llvm::Type *type = d->getType();
    llvm::IRBuilder<> b(op);
    llvm::Value *zero = llvm::Constant::getNullValue(type);
    llvm::Value *byZero = b.CreateICmpEQ(d, zero);
    llvm::Value *unsafe = byZero;
    if (isSigned) {
      unsigned bits = type->getScalarSizeInBits();
      llvm::Value *least =
          llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(bits));
      unsafe = b.CreateOr(
          byZero, b.CreateAnd(b.CreateICmpEQ(x, least),
                              b.CreateICmpEQ(
                                  d, llvm::Constant::getAllOnesValue(type))));
    }
    op->setOperand(1,
                   b.CreateSelect(unsafe, llvm::ConstantInt::get(type, 1), d));
    b.SetInsertPoint(op->getNextNode());
    llvm::Value *result = b.CreateSelect(byZero, isRemainder ? x : zero, op);
    op->replaceUsesWithIf(
        result, [&](llvm::Use &use) { return use.getUser() != result; });
  }
}

LogicalResult EmulatorRewrite::addEntry(const KernelInfo &kernel) {
  llvm::Function *body = module.getFunction(kernel.name);
  if (!body)
    return emitError(loc) << "the device IR has no kernel '" << kernel.name
                          << "'";
  body->setCallingConv(llvm::CallingConv::C);
  body->setLinkage(llvm::GlobalValue::InternalLinkage);

  // void __emu_thread_<name>(ptr args): unpack, call the kernel.
  auto *threadType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
  auto *thread =
      llvm::Function::Create(threadType, llvm::GlobalValue::InternalLinkage,
                             "__emu_thread_" + kernel.name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", thread));
  llvm::SmallVector<llvm::Value *> args;
  llvm::FunctionType *bodyType = body->getFunctionType();
  auto param = [&](llvm::Value *value) {
    llvm::Type *want = bodyType->getParamType(args.size());
    if (value->getType() != want)
      value = b.CreateAddrSpaceCast(value, want);
    args.push_back(value);
  };
  for (auto [i, spec] : llvm::enumerate(kernel.args)) {
    llvm::Value *slot = b.CreateLoad(
        ptr, b.CreateConstInBoundsGEP1_64(ptr, thread->getArg(0), i));
    llvm::StringRef s(spec);
    if (s.consume_front("view:")) {
      // A memref descriptor {ptr, ptr, i64, [r x i64], [r x i64]}.
      unsigned rank = 0;
      s.rsplit(':').second.getAsInteger(10, rank);
      if (args.size() + 3 + 2 * rank > bodyType->getNumParams())
        return emitError(loc) << "kernel '" << kernel.name
                              << "' takes fewer parameters than its views";
      param(b.CreateLoad(ptr, slot));
      param(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, slot, 1)));
      for (unsigned field = 0; field < 1 + 2 * rank; ++field)
        param(b.CreateLoad(i64,
                           b.CreateConstInBoundsGEP1_64(i64, slot, 2 + field)));
      continue;
    }
    if (args.size() >= bodyType->getNumParams())
      return emitError(loc) << "kernel '" << kernel.name
                            << "' takes fewer parameters than its arguments";
    param(b.CreateLoad(bodyType->getParamType(args.size()), slot));
  }
  // Tensor maps follow the arguments, each a pointer (in its slot).
  for (size_t t = 0; t < kernel.tensorMaps.size(); ++t) {
    if (args.size() >= bodyType->getNumParams())
      return emitError(loc) << "kernel '" << kernel.name
                            << "' takes fewer parameters than its tensor maps";
    llvm::Value *slot =
        b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, thread->getArg(0),
                                                       kernel.args.size() + t));
    param(b.CreateLoad(ptr, slot));
  }
  if (args.size() != bodyType->getNumParams())
    return emitError(loc) << "kernel '" << kernel.name << "' takes "
                          << bodyType->getNumParams()
                          << " parameters; its arguments give " << args.size();
  b.CreateCall(body, args);
  b.CreateRetVoid();

  // The host entry ABI (see the host lowering): run blocks [begin, end).
  auto *entryType = llvm::FunctionType::get(
      llvm::Type::getVoidTy(ctx), {ptr, i64, i64, i64, i64, i64}, false);
  auto *hostEntry = llvm::Function::Create(
      entryType, llvm::GlobalValue::ExternalLinkage,
      TESSERA_KERNEL_SYMBOL_PREFIX + kernel.name, module);
  llvm::IRBuilder<> e(llvm::BasicBlock::Create(ctx, "entry", hostEntry));
  llvm::Value *runGrid = loadEntry(
      e, entry(amd ? TESSERA_EMU_RUN_GRID_WAVE64 : TESSERA_EMU_RUN_GRID));
  auto *runType = llvm::FunctionType::get(
      llvm::Type::getVoidTy(ctx),
      {ptr, ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64}, false);
  llvm::SmallVector<llvm::Value *> runArgs = {thread};
  for (llvm::Argument &arg : hostEntry->args())
    runArgs.push_back(&arg);
  runArgs.push_back(e.getInt64(kernel.threads));
  runArgs.push_back(e.getInt64(kernel.sharedBytes));
  // The cluster's shape ("cluster:XxYxZ"), 1 x 1 x 1 without one.
  int64_t cluster[3] = {1, 1, 1};
  llvm::StringRef shape(kernel.cluster);
  if (shape.consume_front(TESSERA_CLUSTER_PREFIX)) {
    llvm::SmallVector<llvm::StringRef, 3> dims;
    shape.split(dims, 'x');
    for (auto [d, dim] : llvm::enumerate(dims))
      if (d >= 3 || dim.getAsInteger(10, cluster[d]) || cluster[d] < 1)
        return emitError(loc)
               << "kernel '" << kernel.name << "' has a malformed cluster '"
               << kernel.cluster << "'";
  }
  for (int64_t dim : cluster)
    runArgs.push_back(e.getInt64(dim));
  e.CreateCall(runType, runGrid, runArgs);
  e.CreateRetVoid();
  return success();
}

void EmulatorRewrite::emitTable() {
  // The table has room for kTableSize entries; the first `count` are used.
  auto *type = llvm::ArrayType::get(ptr, names.size());
  llvm::SmallVector<llvm::Constant *> strings;
  for (const std::string &name : names) {
    auto *data = llvm::ConstantDataArray::getString(ctx, name);
    auto *global = new llvm::GlobalVariable(module, data->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage,
                                            data, ".emu.name");
    strings.push_back(global);
  }
  new llvm::GlobalVariable(
      module, type, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantArray::get(type, strings), TESSERA_EMU_NAMES_SYMBOL);
  new llvm::GlobalVariable(
      module, i64, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(i64, names.size()), TESSERA_EMU_COUNT_SYMBOL);
}

LogicalResult EmulatorRewrite::run(const std::vector<KernelInfo> &kernels,
                                   llvm::TargetMachine &machine) {
  amd = module.getTargetTriple().isAMDGPU();
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  if (auto *annotations = module.getNamedMetadata("nvvm.annotations"))
    module.eraseNamedMetadata(annotations);
  for (llvm::Function &f : module) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  auto *wide = llvm::ArrayType::get(ptr, kTableSize);
  table = new llvm::GlobalVariable(
      module, wide, false, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantAggregateZero::get(wide), TESSERA_EMU_TABLE_SYMBOL);
  rewriteLibraryAsm(module);
  if (failed(rewriteWgmma()) || failed(rewriteIntrinsics()) ||
      failed(rewriteSharedMemory()))
    return failure();
  instrumentSharedAccesses();
  instrumentGlobalStores();
  defineDivisions();
  for (const KernelInfo &kernel : kernels)
    if (failed(addEntry(kernel)))
      return failure();
  if (names.size() > kTableSize)
    return emitError(loc) << "the emulator table overflows";
  emitTable();
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os))
    return emitError(loc) << "the emulator image is invalid IR: " << problems;
  return success();
}

FailureOr<std::string>
tessera::buildEmulatorImage(Location loc, llvm::StringRef deviceBitcode,
                            const std::vector<KernelInfo> &kernels,
                            const HostCompileOptions &options) {
  llvm::LLVMContext ctx;
  auto parsed = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(deviceBitcode, "device.bc"), ctx);
  if (!parsed)
    return emitError(loc) << "cannot read the device IR: "
                          << llvm::toString(parsed.takeError());
  std::unique_ptr<llvm::Module> module = std::move(*parsed);
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(loc, options);
  if (!machine)
    return failure();
  if (failed(EmulatorRewrite(loc, *module).run(kernels, *machine)))
    return failure();
  std::vector<std::string> libraries;
  llvm::StringRef builtins = TESSERA_CLANG_RT_BUILTINS;
  if (!builtins.empty())
    libraries.push_back(builtins.str()); // bf16/f16 conversions
  return linkHostSharedObject(loc, *module, *machine, options, libraries);
}

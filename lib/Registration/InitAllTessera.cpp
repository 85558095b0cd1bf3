//===- InitAllTessera.cpp - Register Tessera and its dialects ---*- C++ -*-===//

#include "tessera/InitAllTessera.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SMT/IR/SMTDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/thread.h"

void tessera::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, tag::TagDialect>();
  registry.insert<mlir::affine::AffineDialect, mlir::amdgpu::AMDGPUDialect,
                  mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::index::IndexDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::nvgpu::NVGPUDialect, mlir::NVVM::NVVMDialect,
                  mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect,
                  mlir::smt::SMTDialect, mlir::tensor::TensorDialect,
                  mlir::ub::UBDialect, mlir::vector::VectorDialect>();
  // Interface implementations (bufferization, convert-to-llvm, inlining)
  // that upstream passes expect to find on these dialects.
  mlir::registerAllExtensions(registry);
  // The GPU targets serialize through LLVM: NVVM/ROCDL target attributes
  // and the translations of every dialect that reaches LLVM IR.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void tessera::registerAllPasses() {
  static bool registered = [] {
    mlir::registerAllPasses();
    registerTesseraPasses();
    registerTesseraConversionPasses();
    return true;
  }();
  (void)registered;
}

int tessera::runWithLargeStack(llvm::function_ref<int()> main) {
  constexpr unsigned stackBytes = 512u << 20;
  int result = 1;
  llvm::thread thread(std::optional<unsigned>(stackBytes),
                      [&] { result = main(); });
  thread.join();
  return result;
}

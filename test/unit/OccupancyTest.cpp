//===- OccupancyTest.cpp - Blocks per SM, waves per SIMD, register caps --===//
//
// The occupancy figures are the ones Nsight Compute reported for Tessera's
// kernels on an H200 (bench/device/RESULTS.md): block limits by registers,
// and the register counts ptxas reached when asked for one more block; and
// the reading of ptxas' report those figures come from. AMD: the waves per
// SIMD asked of the AMDGPU backend for the MoE down kernel (258 VGPRs).
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/AmdTarget.h"
#include "tessera/Target/NvidiaOccupancy.h"
#include "tessera/Target/NvidiaTarget.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {
TEST(NvidiaOccupancy, BlocksPerSmAsMeasured) {
  // Attention: 135 registers, 256 threads: 15 warps' registers, 1 block.
  std::optional<Occupancy> attention =
      nvidiaOccupancy("sm_90a", 135, 256, 51200);
  ASSERT_TRUE(attention);
  EXPECT_EQ(attention->byRegisters, 1);
  EXPECT_EQ(attention->bySharedMemory, 4);
  EXPECT_EQ(attention->byWarps, 8);
  EXPECT_EQ(attention->blocks, 1);
  // The GEMM: 113 registers and 99 KiB: 2 by either.
  std::optional<Occupancy> gemm = nvidiaOccupancy("sm_90a", 113, 256, 101376);
  EXPECT_EQ(gemm->byRegisters, 2);
  EXPECT_EQ(gemm->bySharedMemory, 2);
  EXPECT_EQ(gemm->blocks, 2);
  // MoE's kernels, 128 threads: 135 registers 3 blocks, 91 registers 5.
  EXPECT_EQ(nvidiaOccupancy("sm_90a", 135, 128, 51200)->byRegisters, 3);
  EXPECT_EQ(nvidiaOccupancy("sm_90a", 91, 128, 25600)->byRegisters, 5);
  // sm_80 has 164 KiB per SM: the same GEMM buffers fit once.
  EXPECT_EQ(nvidiaOccupancy("sm_80", 113, 256, 101376)->bySharedMemory, 1);
  // No shared memory: the 32-block and 64-warp limits.
  EXPECT_EQ(nvidiaOccupancy("sm_90a", 16, 32, 0)->blocks, 32);
  EXPECT_EQ(nvidiaOccupancy("sm_90a", 16, 1024, 0)->blocks, 2);
  EXPECT_FALSE(nvidiaOccupancy("gfx942", 64, 256, 0));
  EXPECT_FALSE(nvidiaOccupancy("sm_90a", 64, 0, 0));
}

TEST(NvidiaOccupancy, RegistersForBlocks) {
  EXPECT_EQ(registersForBlocks(2, 256), 128);
  EXPECT_EQ(registersForBlocks(4, 128), 128);
  EXPECT_EQ(registersForBlocks(6, 128), 80);  // 2730 per warp -> 2560
  EXPECT_EQ(registersForBlocks(1, 32), 255);  // the per-thread limit
  EXPECT_EQ(registersForBlocks(1, 1024), 64); // 32 warps
  // Each cap gives the blocks it was computed for.
  for (int64_t blocks : {1, 2, 3, 4, 5, 6, 8})
    for (int64_t threads : {128, 256, 384}) {
      int64_t cap = registersForBlocks(blocks, threads);
      EXPECT_GE(nvidiaOccupancy("sm_90a", cap, threads, 0)->byRegisters, blocks)
          << blocks << " blocks of " << threads << " threads";
      if (cap < 255) // 8 more registers would not fit them
        EXPECT_LT(nvidiaOccupancy("sm_90a", cap + 8, threads, 0)->byRegisters,
                  blocks)
            << blocks << " blocks of " << threads << " threads";
    }
}

TEST(NvidiaOccupancy, Goals) {
  // Attention: 2 blocks at 128 registers (95% of 135).
  EXPECT_EQ(occupancyGoal("sm_90a", 135, 256, 51200), 2);
  // MoE gate/up: 4 at 128; MoE down: 6 at 80 (88% of 91).
  EXPECT_EQ(occupancyGoal("sm_90a", 135, 128, 51200), 4);
  EXPECT_EQ(occupancyGoal("sm_90a", 91, 128, 25600), 6);
  // The GEMM: shared memory allows no third block.
  EXPECT_FALSE(occupancyGoal("sm_90a", 113, 256, 101376));
  // W4A16 on sm_80: 204 registers; 2 blocks would leave 128 (63%).
  EXPECT_FALSE(occupancyGoal("sm_80", 204, 256, 40960));
  // The sm_80 GEMM: shared memory allows no second block.
  EXPECT_FALSE(occupancyGoal("sm_80", 163, 256, 98304));
  EXPECT_FALSE(occupancyGoal("host", 135, 256, 0));
}

TEST(NvidiaOccupancy, DirectiveAfterMaxntid) {
  std::string ptx = ".visible .entry a(\n"
                    "\t.param .u64 a_param_0\n"
                    ")\n"
                    ".maxntid 256, 1, 1\n"
                    "{\n"
                    "\tret;\n"
                    "}\n"
                    ".visible .entry b(\n"
                    ")\n"
                    ".maxntid 128, 1, 1\n"
                    "{\n"
                    "\tret;\n"
                    "}\n"
                    ".entry c(\n"
                    ")\n"
                    "{\n"
                    ".maxntid 64, 1, 1\n" // in a body: not c's directive
                    "}\n";
  llvm::StringMap<int64_t> goals;
  goals["a"] = 2;
  goals["c"] = 3;
  std::string out = withMinBlocksPerSm(ptx, goals);
  EXPECT_EQ(out, ".visible .entry a(\n"
                 "\t.param .u64 a_param_0\n"
                 ")\n"
                 ".maxntid 256, 1, 1\n"
                 ".minnctapersm 2\n"
                 "{\n"
                 "\tret;\n"
                 "}\n"
                 ".visible .entry b(\n"
                 ")\n"
                 ".maxntid 128, 1, 1\n"
                 "{\n"
                 "\tret;\n"
                 "}\n"
                 ".entry c(\n"
                 ")\n"
                 "{\n"
                 ".maxntid 64, 1, 1\n"
                 "}\n");
  EXPECT_EQ(withMinBlocksPerSm(ptx, {}), ptx);
}

TEST(PtxasReport, ResourcesAndAdvisories) {
  // ptxas -v's report as CUDA 13.0 printed it for the bf16 GEMM whose
  // accumulators LLVM read before the wait: the performance note comes
  // before the kernel's properties and is attached to its kernel only.
  std::vector<KernelResources> kernels = parsePtxasReport(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'gemm_bf16' for 'sm_90a'\n"
      "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async "
      "instructions are serialized due to non wgmma instructions reading "
      "accumulator registers of  a wgmma between start and end of the "
      "pipeline stage in the function 'gemm_bf16'\n"
      "ptxas info    : Function properties for gemm_bf16\n"
      "    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 16 bytes smem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
      "ptxas info    : Function properties for other\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers\n");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].kernel, "gemm_bf16");
  EXPECT_EQ(kernels[0].registers, 168);
  EXPECT_EQ(kernels[0].spillStoreBytes, 8);
  EXPECT_EQ(kernels[0].spillLoadBytes, 12);
  EXPECT_EQ(kernels[0].sharedBytes, 16);
  ASSERT_EQ(kernels[0].advisories.size(), 1u);
  EXPECT_EQ(kernels[0].advisories[0],
            "wgmma.mma_async instructions are serialized due to non wgmma "
            "instructions reading accumulator registers of a wgmma between "
            "start and end of the pipeline stage");
  EXPECT_EQ(kernels[1].registers, 32);
  EXPECT_TRUE(kernels[1].advisories.empty());
}

TEST(AmdOccupancy, Goals) {
  // The MoE down kernel on gfx942: 258 registers, 1 wave by registers, 4 by
  // LDS: 2 waves leave 256 of them.
  EXPECT_EQ(amdOccupancyGoal(258, 1, 4), 2);
  // Its gate/up kernel: 214 registers and 2 waves, as many as its LDS allows.
  EXPECT_EQ(amdOccupancyGoal(214, 2, 2), std::nullopt);
  // gfx90a's down kernel: 246 registers, 2 waves; 3 would leave 168 (68%).
  EXPECT_EQ(amdOccupancyGoal(246, 2, 4), std::nullopt);
  // 200 registers at 2 waves: 3 leave 168, 84%.
  EXPECT_EQ(amdOccupancyGoal(200, 2, 8), 3);
  // Never past 8 waves, nor for a kernel with no register figure.
  EXPECT_EQ(amdOccupancyGoal(64, 8, 8), std::nullopt);
  EXPECT_EQ(amdOccupancyGoal(0, 0, 8), std::nullopt);
}
} // namespace

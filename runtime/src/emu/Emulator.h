//===- Emulator.h - Runs GPU kernels' device code on the CPU ---*- C++ -*-===//
//
// An emulator image (`emu-<chip>` in a bundle) is the exact optimized LLVM
// IR that the GPU backend receives, compiled for the host with every GPU
// intrinsic replaced by a call through a table the image exports (the
// names are tessera/runtime/kernel_abi.h's):
//   __tessera_emu_table  [N x ptr]  filled by the runtime at load time
//   __tessera_emu_names  [N x ptr]  the name of each entry (C strings)
//   __tessera_emu_count  i64        N
// Names are the LLVM intrinsics' (`llvm.nvvm.ldmatrix...`,
// `llvm.amdgcn.mfma...`) plus the emulator's own (`tessera.emu.run_grid`,
// `tessera.emu.run_grid_wave64` for AMD's waves of 64,
// `tessera.emu.dynamic_shared`, `tessera.emu.shared_access`, called before each
// plain load or store of shared memory for the race detector, and
// `tessera.emu.global_store`, before each plain store to memory reached through
// a kernel argument, both with the access's source location as a C string,
// or null, and `tessera.emu.site`, which gives the location of the
// intrinsic call that follows it). Intrinsics returning a struct or a vector
// wider than 64 bits take a pointer to the result first; vector arguments and
// results of up to 64 bits (<2 x half>, <2 x i32>) are passed and returned as
// integers of the same size, wider arguments by pointer.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_EMU_EMULATOR_H
#define TESSERA_RUNTIME_EMU_EMULATOR_H

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::emu {

/// The emulator's stand-in for a CUtensorMap: sm_90a kernels receive a
/// pointer to one per `tmap:` entry of their metadata and only hand it to
/// their bulk tensor copies. A 2-D or 3-D tiled map with the swizzle its
/// box rows span (128, 64 or 32 bytes) and zero fill, as the compiler asks
/// for; dimension 0 is the innermost.
struct TensorMap {
  uint32_t magic;
  uint32_t elementBytes;
  uint32_t rank;
  uint32_t box[3];
  const void *base;
  uint64_t dims[3];
  uint64_t strideBytes[2]; // between consecutive indices of dimensions 1, 2
};
static_assert(sizeof(TensorMap) <= 128, "a CUtensorMap has 128 bytes");
constexpr uint32_t kTensorMapMagic = 0x50414d54; // "TMAP"

/// Fills `map` as cuTensorMapEncodeTiled would, with its rules: a 16-byte
/// aligned base, strides that are multiples of 16 bytes, boxes of at most
/// 256 elements per dimension whose rows are a swizzle span (128, 64 or 32
/// bytes).
/// False, with the broken rule in `why`, otherwise.
bool encodeTensorMap(TensorMap &map, const void *base, uint32_t elementBytes,
                     uint32_t rank, const uint64_t dims[],
                     const uint64_t strideBytes[], const uint32_t box[],
                     std::string *why);

/// Race detection in this process's emulator (off by default): shared
/// memory accesses are checked for happens-before through barriers.
void setRaceDetection(bool enabled);

/// Starts a launch: the race detector forgets which block wrote which
/// global address.
void beginLaunch();

/// The first error the emulated kernels reported (a race, an access outside
/// the shared memory) since the last call; clears it.
std::string takeError();

/// The implementation of `name`, or null when the emulator has none.
void *lookup(std::string_view name);

/// Fills the table of a loaded emulator image; returns false (with the
/// missing name in `missing`) if an entry has no implementation.
bool bindImage(void *library, std::string &missing);

// Fragment tables, written from the PTX ISA (independently of the
// compiler's layout tables); exposed for the unit tests.

/// ldmatrix.sync.aligned.m8n8.x{n}[.trans].b16 over the 32 lanes' row
/// addresses: out[lane][j] is register j of `lane`.
void ldmatrix(const void *const rowAddress[32], unsigned n, bool transpose,
              uint32_t out[32][4]);
/// stmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16, ldmatrix's inverse:
/// register j of each lane (in[lane][j]) is written to the matrix rows the
/// lanes' addresses name.
void stmatrix(void *const rowAddress[32], unsigned n, bool transpose,
              const uint32_t in[32][4]);
/// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 over the
/// lanes' registers (a: 4, b: 2, c/d: 4 per lane; two 16-bit elements per
/// a/b register, the lower element in the low half).
void mmaM16N8K16(const uint32_t a[32][4], const uint32_t b[32][2],
                 const float c[32][4], float d[32][4], bool f16);
/// mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (wrapping) over the
/// lanes' registers (a: 4, b: 2, c/d: 4 per lane; four 8-bit elements per
/// a/b register, the lowest element in the low byte).
void mmaM16N8K32S8(const uint32_t a[32][4], const uint32_t b[32][2],
                   const int32_t c[32][4], int32_t d[32][4]);
/// The M x M MFMAs (M = 32 or 16) over a wave64's operands, as AMD's
/// matrix instruction calculator lays them out: element e of lane l is
/// A[l % M][P (l / M) + e] and B[P (l / M) + e][l % M] (P = M K / 64
/// elements a lane, element e in the e-th lowest bits of a and b);
/// register g of lane l (M M / 64 of c/d's 16 are used) holds D[i][l % M],
/// i = 4 (64 / M) (g / 4) + 4 ((l / M) % (64 / M)) + g % 4.
/// v_mfma_f32_32x32x8_{bf16,f16} and v_mfma_f32_16x16x16_{bf16,f16}: four
/// 16-bit elements per lane.
void mfmaF16(const uint64_t a[64], const uint64_t b[64], const float c[64][16],
             float d[64][16], bool f16, unsigned m);
/// v_mfma_i32_32x32x8i8 and v_mfma_i32_16x16x16i8 (four bytes per lane,
/// gfx90a), v_mfma_i32_32x32x16_i8 and v_mfma_i32_16x16x32_i8 (eight,
/// gfx942), with wrapping sums.
void mfmaI8(const uint64_t a[64], const uint64_t b[64], const int32_t c[64][16],
            int32_t d[64][16], unsigned m, unsigned k);
/// v_mfma_f32_32x32x16_fp8_fp8 and v_mfma_f32_16x16x32_fp8_fp8 (gfx942):
/// eight f8E4M3FNUZ codes per lane.
void mfmaFp8(const uint64_t a[64], const uint64_t b[64], const float c[64][16],
             float d[64][16], unsigned m);
/// The value of an f8E4M3FNUZ code: exponent bias 8, no infinities, no -0;
/// 0x80 is the only NaN.
float fromE4M3Fnuz(uint8_t bits);

/// Gathers wgmma's register A operand (m64nNk16, 16-bit elements) from the
/// four 32-bit registers of each thread l of the warpgroup: register r
/// holds row 16 (l / 32) + (l % 32) / 4 + 8 (r % 2), columns
/// 2 (l % 4) + 8 (r / 2) + {0, 1} (the lower column in the low half), the
/// PTX ISA's fragment of mma.m16n8k16's A repeated over the four warps.
/// Columns 16..31 of `a` are left alone.
void wgmmaRegisterA(const uint32_t regs[128][4], uint16_t a[64][32]);
/// The same for m64nNk32's 8-bit A: byte v of register r holds row
/// 16 (l / 32) + (l % 32) / 4 + 8 (r % 2), column 4 (l % 4) + v +
/// 16 (r / 2), mma.m16n8k32's A fragment repeated over the four warps.
void wgmmaRegisterA8(const uint32_t regs[128][4], uint16_t a[64][32]);

/// The operand types of the emulated wgmmas (f32 accumulators): 16-bit
/// floats with k = 16, f8E4M3FN with k = 32.
enum class WgmmaType { BF16, F16, E4M3 };

/// wgmma.mma_async.m64nNk16.f32.{bf16,f16} or m64nNk32.f32.e4m3.e4m3 of one
/// warpgroup over A (64 x k) and B (k x n) element bits as read from shared
/// memory: c/d hold the n / 2 accumulator registers of each of the 128
/// threads; `accumulate` is scale-d, `scaleA`/`scaleB` the +-1 immediates.
/// Products are exact and summed in double, rounded once.
void wgmmaM64N(const uint16_t a[64][32], const uint16_t b[32][256], unsigned n,
               WgmmaType type, int scaleA, int scaleB, bool accumulate,
               const float c[128][128], float d[128][128]);

} // namespace tessera::emu

#endif // TESSERA_RUNTIME_EMU_EMULATOR_H

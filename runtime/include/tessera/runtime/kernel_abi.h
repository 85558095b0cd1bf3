/*===- kernel_abi.h - What compiled images and the runtime agree on -*- C
-*-===*\
|*                                                                            *|
|* The compiler (tessera-compile's host and emulator targets, the bundle      *|
|* writer) and the runtime both include this header: symbol names, entry    *|
|* signatures and metadata keys are defined once.                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_RUNTIME_KERNEL_ABI_H
#define TESSERA_RUNTIME_KERNEL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Host and emulator images (shared objects) export, per kernel K,
 *   void tessera_kernel_K(void **args, int64_t grid_x, int64_t grid_y,
 *                         int64_t grid_z, int64_t begin, int64_t end);
 * which runs program instances [begin, end) of the grid, numbered x
 * fastest (in an emulator image of a kernel with a thread-block cluster,
 * cluster by cluster: clusters x fastest in the grid of clusters, then
 * the rank within the cluster; [begin, end) whole clusters). args[i] points to
 * argument i: for a view, its memref descriptor as 64-bit words {allocated,
 * aligned, offset, sizes[rank], strides[rank]}; for a scalar, its value (i1 as
 * one byte, index as 64 bits). */
#define TESSERA_KERNEL_SYMBOL_PREFIX "tessera_kernel_"
typedef void (*tessera_host_entry)(void **args, int64_t grid_x, int64_t grid_y,
                                   int64_t grid_z, int64_t begin, int64_t end);

/* The bundle metadata key of the kernel list, one line per kernel:
 * "<name> <threads> <shared bytes> <argument>... [persistent] [names]
 * <dims>... <assume>... <tensor map>... [cluster]", each argument
 * "view:<element>:<rank>"
 * or "scalar:<type>"; "persistent" marks a persistent kernel (tile-persistent),
 * whose last TESSERA_PERSISTENT_ARGS arguments, scalar:index, the runtime
 * passes: the size of the grid its caller launched (x, y, z) and the number of
 * program instances it started instead, along x, which loop over that grid's
 * tiles; "names:<name>,<name>,..." the arguments' names in the source
 * (without `%`; empty where an argument has none), one per argument the
 * caller passes; each "dims:<argument>:<d0>x<d1>..." the sizes a view
 * argument's type fixes ("?" for a dynamic one; only views with a static size
 * have one), which a launch's view must have; each "assume:<expr>:<message>" a
 * condition on the arguments the kernel's proof assumed (tag.assume), which
 * every launch must meet: <expr> in prefix form over "a<i>" (integer scalar
 * argument i, sign-extended), "d<i>.<k>" (size k of view argument i), "c<v>" (a
 * constant) and
 * "<op>(x,y[,z])" (arith's eq ne slt sle sgt sge ult ule ugt uge add sub
 * mul divui divsi remui remsi and or xor minui minsi maxui maxsi select, on
 * 64-bit integers), <message> percent-encoded; each tensor map
 * "tmap:<argument>:<cols>x<rows>" (a trailing kernel parameter: the
 * 128-byte tensor map of a 2-D or 3-D view argument, encoded at launch),
 * and the cluster "cluster:<x>x<y>x<z>" (the image launches in thread-block
 * clusters of that shape). */
#define TESSERA_BUNDLE_KERNELS_KEY "tessera.kernels"
/* Each image's SHA-256 (64 lowercase hex digits) over its arch, triple,
   kernel metadata and bytes, each preceded by its length as 8 little-endian
   bytes: the reader refuses an image whose bytes do not hash to it. */
#define TESSERA_BUNDLE_DIGEST_KEY "tessera.sha256"
#define TESSERA_TENSOR_MAP_PREFIX "tmap:"
#define TESSERA_CLUSTER_PREFIX "cluster:"
#define TESSERA_DIMS_PREFIX "dims:"
#define TESSERA_NAMES_PREFIX "names:"
#define TESSERA_ASSUME_PREFIX "assume:"
#define TESSERA_PERSISTENT_TOKEN "persistent"
#define TESSERA_PERSISTENT_ARGS 4

/* Emulator images also export the table of the GPU operations they call,
 * which the runtime fills when it loads them: N pointers, their names (C
 * strings), and N. */
#define TESSERA_EMU_TABLE_SYMBOL "__tessera_emu_table"
#define TESSERA_EMU_NAMES_SYMBOL "__tessera_emu_names"
#define TESSERA_EMU_COUNT_SYMBOL "__tessera_emu_count"
/* The table entry a kernel's host entry hands its blocks to:
 *   void run_grid(void (*thread)(void *args), void *args, int64_t grid_x,
 *                 int64_t grid_y, int64_t grid_z, int64_t begin,
 *                 int64_t end, int64_t threads, int64_t shared_bytes,
 *                 int64_t cluster_x, int64_t cluster_y, int64_t cluster_z);
 * which calls `thread` (with the host entry's argument array) once per
 * thread of each block of programs [begin, end) (numbered as the host
 * entry's, in clusters of cluster_x x cluster_y x cluster_z blocks; 1 x 1
 * x 1 for a kernel without a cluster), as fibers, in warps of 32 lanes; AMD
 * images call the same function under the second name, for waves of 64
 * lanes. */
#define TESSERA_EMU_RUN_GRID "tessera.emu.run_grid"
#define TESSERA_EMU_RUN_GRID_WAVE64 "tessera.emu.run_grid_wave64"
typedef void (*tessera_emu_run_grid)(void (*thread)(void *args), void *args,
                                     int64_t grid_x, int64_t grid_y,
                                     int64_t grid_z, int64_t begin, int64_t end,
                                     int64_t threads, int64_t shared_bytes,
                                     int64_t cluster_x, int64_t cluster_y,
                                     int64_t cluster_z);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_KERNEL_ABI_H */

// Bad pass options are errors, not crashes.
// RUN: not tessera-opt %s --tag-check="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: tag-check: unknown chip 'sm_75'; use sm_90a, sm_80, gfx942, gfx90a or host
// RUN: not tessera-opt %s --tag-check="max-shared-bytes=-1" 2>&1 | FileCheck %s --check-prefix=BYTES
// BYTES: error: tag-check: max-shared-bytes must be positive, got -1
// RUN: not tessera-opt %s --tag-check="rlimit=0" 2>&1 | FileCheck %s --check-prefix=RLIMIT
// RLIMIT: error: tag-check: rlimit must be positive
// RUN: not tessera-opt %s --tag-check="stages=3" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: no such option stages

// A query Z3 cannot finish within a tiny resource limit is its own error.
// RUN: not tessera-opt %s --tag-check="rlimit=1" 2>&1 | FileCheck %s --check-prefix=GAVEUP
// GAVEUP: error: tag assertion undecided: Z3 gave up ({{.*}}) within rlimit=1; raise the tag-check option 'rlimit' or simplify the assertion
// RUN: tessera-opt %s --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: remark: tag-check: @divisible: 0 proved structurally, 1 by Z3, 0 failed; 1 assumptions trusted

tile.kernel @divisible(%m: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %c14 = arith.constant 14 : index
  %r14 = arith.remui %m, %c14 : index
  %z14 = arith.cmpi eq, %r14, %c0 : index
  tag.assume %z14, "m is a multiple of 14" : i1
  %r7 = arith.remui %m, %c7 : index
  %z7 = arith.cmpi eq, %r7, %c0 : index
  tag.assert %z7, "m is a multiple of 7" : i1
  tile.return
}

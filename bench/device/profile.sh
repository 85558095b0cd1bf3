#!/usr/bin/env bash
# bench/device/profile.sh: Nsight Compute profiles of the kernels that
# bench/device/run.sh times, at its timing shapes, from the same pack:
#
#   bench/device/profile.sh [--pack build/device-pack] [--out DIR]
#
# One ncu report per problem (DIR/ncu-NAME.txt: speed of light, occupancy,
# launch statistics, warp states and stall reasons, scheduler, compute and
# memory workload), of the launch after tessera-run's warm-up, with the
# clocks left as they are (--clock-control none). The lines printed last
# are each kernel's key figures (duration, SM, memory, DRAM and L2
# throughput, registers, shared memory, occupancy and its limits, cycles
# per issued instruction).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pack=$root/build/device-pack
out=.
while [ $# -gt 0 ]; do
  case $1 in
  --pack) pack=$2; shift ;;
  --pack=*) pack=${1#--pack=} ;;
  --out) out=$2; shift ;;
  --out=*) out=${1#--out=} ;;
  *) echo "profile.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -z "$ncu" ]; then
  echo "profile.sh: no ncu (Nsight Compute) on this machine" >&2
  exit 1
fi
run=$pack/bin/tessera-run
export LD_LIBRARY_PATH=$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# name | bundle | kernels per launch | tessera-run flags
profiles=(
  "gemm_4096|gemm_bf16|1|--m=4096 --n=4096 --k=4096"
  "attention_4096_d64|flash_attention|1|--batch=4 --heads=32 --kv-heads=8 --seq-q=4096 --seq-kv=4096 --causal=0"
  "moe_8x2_4096_14336|moe|2|--tokens=4096 --experts=8 --topk=2 --hidden=4096 --inter=14336 --routing=uniform"
  "moe_64x8_2048_1408|moe|2|--tokens=4096 --experts=64 --topk=8 --hidden=2048 --inter=1408 --routing=uniform"
)
sections=(SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats
  ComputeWorkloadAnalysis MemoryWorkloadAnalysis SourceCounters)
mkdir -p "$out"
failures=0
for row in "${profiles[@]}"; do
  IFS='|' read -r name bundle count flags <<< "$row"
  args=()
  for s in "${sections[@]}"; do args+=(--section "$s"); done
  # --bench --iters=1 launches each kernel twice: the warm-up is skipped.
  timeout -k 5 300 "$ncu" --clock-control none "${args[@]}" \
    --launch-skip "$count" --launch-count "$count" \
    "$run" "$pack/bundles/$bundle.bundle" --device=cuda --bench --iters=1 \
    $flags > "$out/ncu-$name.txt" 2>&1 ||
    { echo "profile.sh: $name failed: $(tail -1 "$out/ncu-$name.txt")" >&2; failures=$((failures + 1)); }
done

# The summary: each kernel's key lines.
for row in "${profiles[@]}"; do
  IFS='|' read -r name _ <<< "$row"
  echo "== $name"
  grep -E '^  [A-Za-z_0-9]+ \(|^ +(Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Registers Per Thread|Dynamic Shared Memory Per Block|Theoretical Occupancy|Achieved Occupancy|Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|Block Limit [A-Z][a-z]+) ' \
    "$out/ncu-$name.txt" | sed 's/  */ /g'
done
[ $failures -eq 0 ]

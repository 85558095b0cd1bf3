#!/usr/bin/env bash
# bench/device/run.sh: Tessera's GPU checks and timings on an NVIDIA GPU,
# in one run (under 8 minutes on an H200), from a pack built elsewhere:
#
#   cmake --build build --target tessera-device-pack    # here: x86-64
#   bench/device/run.sh [--pack build/device-pack] [--results FILE]
#   bench/device/run.sh --dry-run                       # here: see below
#
# (a) every shipped kernel and the weight-only quantized variants (int4
#     groups with and without zero points, int8 per channel, fp8 blocks;
#     quantized activations have no GPU lowering yet) --check'ed on the GPU
#     (tessera-run --device=cuda) at aligned and ragged shapes, in the image
#     the GPU loads: sm_90a's (TMA, wgmma) on an H100/H200, sm_80's on an
#     A100;
# (b) microkernels (MMA fragments, ldmatrix, wgmma, swizzles, TMA and
#     cp.async copies, element-wise code) run on the GPU against the
#     emulator of the same chip (--chip=sm_90a or sm_80) with equal bits
#     required on small-integer inputs (--compare=emu), and reductions and a
#     softmax against the host image (--compare=host, within tolerance);
# (c) timings side by side in the same run: the bf16 GEMM (128x128 and
#     128x256 tiles, each also made persistent by tile-persistent: as many
#     programs as the GPU keeps resident loop over the tiles; on sm_90a the
#     warp-specialized 128x256 kernel, plain, persistent, in clusters of
#     two multicasting B and with its epilogue through TMA stores, the last
#     two plain and persistent), attention, decode attention (one new
#     token a sequence, every sequence filling the cache) and the MoE
#     expert MLPs against PyTorch's peers (peers.py).
# Rows are printed and appended to the results file (default
# bench/device/RESULTS.md) as a dated section.
#
# --dry-run prints the plan, checks that the pack holds every file, and runs
# (a) and (b) on this machine instead (the host image checked, the host
# image against the sm_90a emulator's), and Tessera's timings at a small
# shape, so
# that the plan's flags and the parsing of tessera-run's output are tested
# where there is no GPU; it writes no results.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pack=$root/build/device-pack
results=$here/RESULTS.md
dry=0
budget=300 # seconds for the peers
log=/dev/null
limit=30   # seconds for one tessera-run (a hung kernel must not stop the run)
while [ $# -gt 0 ]; do
  case $1 in
  --dry-run) dry=1 ;;
  --pack) pack=$2; shift ;;
  --pack=*) pack=${1#--pack=} ;;
  --results) results=$2; shift ;;
  --results=*) results=${1#--results=} ;;
  --peer-budget=*) budget=${1#--peer-budget=} ;;
  --limit=*) limit=${1#--limit=} ;;
  --log=*) log=${1#--log=} ;;
  *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# (a) bundle | tessera-run flags
checks=(
  "gemm_bf16|--m=1024 --n=1024 --k=1024"
  "gemm_bf16|--m=1000 --n=1030 --k=520"
  "gemm_bf16|--m=1 --n=257 --k=72"
  "gemm_bf16_persistent|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_persistent|--m=1000 --n=1030 --k=520"
  "gemm_bf16_wide|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_wide|--m=1000 --n=1030 --k=520"
  "gemm_bf16_wide_persistent|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_ws|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws|--m=200 --n=130 --k=300"
  "gemm_bf16_ws_persistent|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_ws_persistent|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws_multicast|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_ws_multicast|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws_multicast_persistent|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws_tma_store|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_ws_tma_store|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws_tma_store_persistent|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws_pingpong|--m=1024 --n=1024 --k=1024"
  "gemm_bf16_ws_pingpong|--m=1000 --n=1030 --k=520"
  "gemm_bf16_ws_pingpong_staged|--m=1000 --n=1030 --k=520"
  "gemm_bf16_plain|--m=512 --n=384 --k=256"
  "gemm_bf16_plain|--m=130 --n=100 --k=30"
  "gemm_w4a16|--m=1024 --n=1024 --k=1024"
  "gemm_w4a16|--m=200 --n=130 --k=200"
  "gemm_int4_g32|--m=512 --n=512 --k=512"
  "gemm_int4_g32|--m=200 --n=136 --k=192"
  "gemm_int4_g64_zp|--m=512 --n=512 --k=512"
  "gemm_int4_g64_zp|--m=130 --n=256 --k=100"
  "gemm_int8_pc|--m=512 --n=512 --k=512"
  "gemm_int8_pc|--m=200 --n=136 --k=192"
  "flash_attention|--batch=2 --heads=8 --kv-heads=2 --seq-q=512 --seq-kv=512 --causal=0"
  "flash_attention|--batch=1 --heads=4 --kv-heads=2 --seq-q=200 --seq-kv=136 --causal=1"
  "flash_attention_ws_persistent|--batch=2 --heads=8 --kv-heads=2 --seq-q=512 --seq-kv=512 --causal=0"
  "flash_attention_ws_persistent|--batch=1 --heads=4 --kv-heads=2 --seq-q=200 --seq-kv=136 --causal=1"
  "flash_attention_m64|--batch=1 --heads=4 --kv-heads=2 --seq-q=200 --seq-kv=136 --causal=1"
  "flash_attention_m64_ws_pingpong|--batch=2 --heads=8 --kv-heads=2 --seq-q=512 --seq-kv=512 --causal=0"
  "flash_attention_m64_ws_pingpong|--batch=1 --heads=4 --kv-heads=2 --seq-q=200 --seq-kv=136 --causal=1"
  "flash_attention_d128|--batch=2 --heads=8 --kv-heads=2 --seq-q=512 --seq-kv=512 --causal=0"
  "flash_attention_d128|--batch=1 --heads=4 --kv-heads=2 --seq-q=200 --seq-kv=136 --causal=1"
  "flash_attention_d128_ws_persistent|--batch=1 --heads=4 --kv-heads=2 --seq-q=200 --seq-kv=136 --causal=1"
  "attention_decode|--batch=4 --kv-heads=8 --group=4 --seq-kv=4096 --splits=8"
  "attention_decode|--lens=0,1,65,1000 --kv-heads=2 --group=8 --q-len=2 --seq-kv=1000 --splits=4"
  "moe|--tokens=100 --experts=8 --topk=2 --hidden=256 --inter=192"
  "moe|--tokens=37 --experts=5 --topk=4 --hidden=100 --inter=36"
  "gemm_fp8_b128|--m=512 --n=512 --k=512"
  "gemm_fp8_b128|--m=200 --n=136 --k=300"
  "moe_int4_g32_zp|--tokens=100 --experts=8 --topk=2 --hidden=256 --inter=192"
  "moe_fp8_b128|--tokens=37 --experts=4 --topk=2 --hidden=192 --inter=160"
)
# (b) bundle | reference image | tessera-run flags
micro=(
  "micro_gemm|emu|--kernel=gemm_warp --grid=3,4 --view=0:70x48 --view=1:48x60 --view=2:70x60"
  "micro_gemm|emu|--kernel=gemm_nt --grid=2,3 --view=0:200x136 --view=1:150x136 --view=2:200x150"
  "micro_gemm|emu|--kernel=gemm_f16_relu --grid=4,5 --view=0:250x100 --view=1:100x150 --view=2:250x150 --scalar=3:0.5"
  "gemm_bf16|emu|--kernel=gemm_bf16 --grid=2,2 --view=0:200x72 --view=1:72x136 --view=2:200x136"
  "gemm_bf16_plain|emu|--kernel=gemm_bf16 --grid=2,2 --view=0:256x64 --view=1:64x256 --view=2:256x256"
  "micro_elementwise|emu|--kernel=axpy_select --grid=3,2 --view=0:70x100 --view=1:70x100 --view=2:70x100 --scalar=3:1.5"
  "micro_elementwise|emu|--kernel=add_iota --grid=3 --view=0:700 --view=1:700"
  "micro_rows|host|--kernel=row_normalize --grid=5 --view=0:70x50 --view=1:70x50"
  "micro_rows|host|--kernel=column_sums --grid=3 --view=0:8x90 --view=1:90"
  "micro_rows|host|--kernel=row_softmax --grid=9 --view=0:70x100 --view=1:70x100"
)
# (c) GEMM M N K; attention batch heads kv-heads seq d causal; decode batch
# kv-heads group cache-length splits (head dim 128); MoE tokens experts
# top-k hidden inter.
gemms=("4096 4096 4096" "8192 8192 8192" "4096 14336 4096")
attentions=("4 32 8 4096 64 0" "4 32 8 4096 64 1" "4 32 8 4096 128 0" "4 32 8 4096 128 1")
decodes=("8 8 4 4096 8" "32 8 4 8192 2")
moes=("4096 8 2 4096 14336" "4096 64 8 2048 1408")

run=$pack/bin/tessera-run
bundle() { echo "$pack/bundles/$1.bundle"; }

# Every file the run needs, and the plan.
missing=0
need() {
  if [ ! -e "$1" ]; then
    echo "missing: $1" >&2
    missing=1
  fi
}
need "$run"
need "$here/peers.py"
for library in libboost_context libcrypto; do
  ls "$pack/lib/$library".so.* > /dev/null 2>&1 ||
    { echo "missing: $pack/lib/$library.so.*" >&2; missing=1; }
done
declare -A bundles=()
for row in "${checks[@]}" "${micro[@]}"; do bundles[${row%%|*}]=1; done
bundles[gemm_bf16]=1
# (c)'s GEMMs: the case's kind | bundle.
gemm_variants=("gemm|gemm_bf16" "pgemm|gemm_bf16_persistent"
  "wgemm|gemm_bf16_wide" "wpgemm|gemm_bf16_wide_persistent"
  "wsgemm|gemm_bf16_ws" "wspgemm|gemm_bf16_ws_persistent"
  "wsmgemm|gemm_bf16_ws_multicast"
  "wsmpgemm|gemm_bf16_ws_multicast_persistent"
  "wstgemm|gemm_bf16_ws_tma_store"
  "wstpgemm|gemm_bf16_ws_tma_store_persistent"
  "wsppgemm|gemm_bf16_ws_pingpong"
  "wsppsgemm|gemm_bf16_ws_pingpong_staged")
# Bundles with no sm_80 image (warp-specialized kernels need sm_90a).
declare -A sm90_only=([gemm_bf16_ws]=1 [gemm_bf16_ws_persistent]=1
  [gemm_bf16_ws_multicast]=1 [gemm_bf16_ws_multicast_persistent]=1
  [gemm_bf16_ws_tma_store]=1 [gemm_bf16_ws_tma_store_persistent]=1
  [gemm_bf16_ws_pingpong]=1 [gemm_bf16_ws_pingpong_staged]=1)
for variant in "${gemm_variants[@]}"; do bundles[${variant#*|}]=1; done
# (c)'s attention kernels: the case's kind | bundle | head dimension.
attn_variants=("attn|flash_attention|64" "wspattn|flash_attention_ws_persistent|64"
  "m64attn|flash_attention_m64|64" "ppattn|flash_attention_m64_ws_pingpong|64"
  "attn|flash_attention_d128|128"
  "wspattn|flash_attention_d128_ws_persistent|128")
sm90_only[flash_attention_ws_persistent]=1
sm90_only[flash_attention_d128_ws_persistent]=1
sm90_only[flash_attention_m64_ws_pingpong]=1
for variant in "${attn_variants[@]}"; do
  IFS='|' read -r _ name _ <<< "$variant"
  bundles[$name]=1
done
bundles[flash_attention]=1
bundles[moe]=1
bundles[attention_decode]=1
for name in "${!bundles[@]}"; do
  need "$(bundle "$name")"
  # Each bundle holds the images the run loads (sm_80 and sm_90a: PTX at
  # least, which the driver compiles for the GPU at hand), the emulator's
  # of both and the host's.
  if [ -e "$(bundle "$name")" ]; then
    images=("sm_80" "sm_90a" "emu-sm_80" "emu-sm_90a" "host")
    [ -n "${sm90_only[$name]:-}" ] && images=("sm_90a" "emu-sm_90a" "host")
    for image in "${images[@]}"; do
      grep -aq "$image" "$(bundle "$name")" ||
        { echo "$(bundle "$name") has no $image image" >&2; missing=1; }
    done
  fi
done
export LD_LIBRARY_PATH=$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -x "$run" ]; then
  # The binary and its libraries load here (it prints its usage).
  usage=$("$run" 2>&1)
  grep -q "usage: tessera-run" <<< "$usage" ||
    { echo "$run does not start: $usage" >&2; missing=1; }
fi
if command -v python3 > /dev/null; then
  python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" \
    "$here/peers.py" || missing=1
fi

echo "plan: ${#checks[@]} checks, ${#micro[@]} microkernel comparisons," \
  "${#gemms[@]} GEMM, ${#attentions[@]} attention, ${#decodes[@]} decode and ${#moes[@]} MoE timings"
for row in "${checks[@]}"; do echo "  check ${row%%|*} ${row#*|}"; done
for row in "${micro[@]}"; do
  IFS='|' read -r name reference flags <<< "$row"
  echo "  compare $name against $reference: $flags"
done
for shape in "${gemms[@]}"; do echo "  time gemm $shape (128x128, 128x256, each plain and persistent; 128x256 warp-specialized, plain, persistent, multicast and TMA-store; 128x128 ping-pong, plain and staged)"; done
for shape in "${attentions[@]}"; do echo "  time attention $shape (plain, and on 64-row tiles; warp-specialized and persistent, and ping-pong, on sm_90a)"; done
for shape in "${decodes[@]}"; do echo "  time decode $shape"; done
for shape in "${moes[@]}"; do echo "  time moe $shape"; done
if [ $missing -ne 0 ]; then
  echo "run.sh: the pack is incomplete; build it with" \
    "cmake --build build --target tessera-device-pack" >&2
  exit 1
fi
if [ $dry -eq 1 ]; then
  echo "dry run: every file is present; the plan runs on this machine"
fi

# The run itself; a dry run uses this machine's host and emulator instead.
start=$(date +%s)
if [ $dry -eq 1 ]; then
  gpu="this machine (dry run: host and emulator)"
  check_device=--device=host
  chip=sm_90a
  timed="host image"
else
  gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  check_device=--device=cuda
  # The image the GPU loads, and so the emulator it is compared with: an
  # sm_90 device takes the sm_90a cubin, an sm_8x one the sm_80 cubin.
  capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
  case $capability in
  9.0) chip=sm_90a ;;
  *) chip=sm_80 ;;
  esac
  timed="$chip image"
fi
compare_device() { # reference image: the device it is compared with
  if [ $dry -eq 0 ]; then echo --device=cuda
  elif [ "$1" = emu ]; then echo --device=host
  else echo --device=emu; fi
}
# tessera-run under a time limit; once 4 runs have timed out (kernels that
# hang, say on an mbarrier), the remaining runs are skipped. Runs happen in
# command substitutions, so the count is kept in a file.
timeouts=$(mktemp)
launch() {
  local hung
  hung=$(wc -l < "$timeouts")
  if [ "$hung" -ge 4 ]; then
    echo "skipped: $hung runs timed out"
    return 1
  fi
  echo "\$ tessera-run ${*#"$pack/"}" >> "$log"
  timeout -k 5 "$limit" "$run" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "$*" >> "$timeouts"
    echo "timed out after $limit s"
  fi
  return $rc
}
section=$(mktemp)
emit() { echo "$*" | tee -a "$section"; }
emit ""
emit "## $(date -u +%Y-%m-%d) on ${gpu:-an unknown GPU} (bench/device/run.sh)"
emit ""
emit "### (a) Kernels checked (tessera-run $check_device --check)"
emit ""
emit "| bundle | shape | image | relative error | result |"
emit "|---|---|---|---|---|"
failures=0
for row in "${checks[@]}"; do
  name=${row%%|*}
  flags=${row#*|}
  [ -n "${sm90_only[$name]:-}" ] && [ "$chip" != sm_90a ] && continue
  out=$(launch "$(bundle "$name")" $check_device --check $flags)
  image=$(head -1 <<< "$out" | grep -o '[^ ,]* image$' | cut -d' ' -f1)
  error=$(grep -o 'relative error [^ ,]*' <<< "$out" | head -1 | cut -d' ' -f3)
  verdict=$(grep -xE 'PASS|FAIL' <<< "$out" | tail -1)
  if [ "$verdict" != PASS ]; then
    failures=$((failures + 1))
    verdict="${verdict:-ERROR}: $(tail -1 <<< "$out")"
  fi
  emit "| $name | $flags | ${image:-?} | ${error:-?} | $verdict |"
done
emit ""
emit "### (b) Microkernels against the $chip emulator (equal bits, small-integer inputs) or the host"
emit ""
emit "| bundle | kernel | reference | worst difference | result |"
emit "|---|---|---|---|---|"
for row in "${micro[@]}"; do
  IFS='|' read -r name reference flags <<< "$row"
  out=$(launch "$(bundle "$name")" --compare=$reference --chip=$chip \
    "$(compare_device "$reference")" $flags)
  worst=$(grep -o 'relative difference [^ ]*' <<< "$out" | cut -d' ' -f3 | sort -g | tail -1)
  verdict=$(grep -xE 'PASS|FAIL' <<< "$out" | tail -1)
  if [ "$verdict" != PASS ]; then
    failures=$((failures + 1))
    verdict="${verdict:-ERROR}: $(tail -1 <<< "$out")"
  fi
  kernel=$(grep -o -- '--kernel=[^ ]*' <<< "$flags" | cut -d= -f2)
  emit "| $name | $kernel | $reference | ${worst:-?} | $verdict |"
done

# (c) Tessera's timings, then the peers', then the rows.
tessera_ms() { # bundle flags...: the median of 20 timed launches, in ms
  local name=$1
  shift
  # Large problems take their inputs' preparation on the host: 4x the limit.
  limit=$((4 * limit)) launch "$(bundle "$name")" $check_device --bench --iters=20 "$@" |
    grep -o 'median [0-9.]* ms' | cut -d' ' -f2
}
if [ $dry -eq 1 ]; then
  # Small shapes, no peers: the flags and the parsing are what is checked.
  gemms=("128 256 64")
  attentions=("1 4 2 128 64 1" "1 4 2 128 128 1")
  decodes=("2 2 4 256 2")
  moes=("64 4 2 128 64")
fi
declare -A ours=()
cases=()
for shape in "${gemms[@]}"; do
  read -r m n k <<< "$shape"
  for variant in "${gemm_variants[@]}"; do
    [ -n "${sm90_only[${variant#*|}]:-}" ] && [ "$chip" != sm_90a ] && continue
    ours[${variant%%|*}:$m:$n:$k]=$(tessera_ms "${variant#*|}" --m=$m --n=$n --k=$k)
    cases+=("${variant%%|*}:$m:$n:$k")
  done
done
for shape in "${attentions[@]}"; do
  read -r b h kvh s d c <<< "$shape"
  for variant in "${attn_variants[@]}"; do
    IFS='|' read -r kind name dim <<< "$variant"
    [ -n "${sm90_only[$name]:-}" ] && [ "$chip" != sm_90a ] && continue
    # Each kernel has its head dimension.
    [ "$d" = "$dim" ] || continue
    ours[$kind:$b:$h:$kvh:$s:$d:$c]=$(tessera_ms "$name" --batch=$b \
      --heads=$h --kv-heads=$kvh --seq-q=$s --seq-kv=$s --causal=$c)
    cases+=("$kind:$b:$h:$kvh:$s:$d:$c")
  done
done
for shape in "${decodes[@]}"; do
  read -r b kvh g len splits <<< "$shape"
  # Every sequence fills the cache, as the peers' do.
  lens=$(printf "$len,%.0s" $(seq "$b"))
  ours[decode:$b:$kvh:$g:$len:$splits]=$(tessera_ms attention_decode \
    --lens=${lens%,} --kv-heads=$kvh --group=$g --seq-kv=$len --splits=$splits)
  cases+=("decode:$b:$kvh:$g:$len:$splits")
done
for shape in "${moes[@]}"; do
  read -r t e topk hid inter <<< "$shape"
  # Routed uniformly over every expert, as the peers route.
  ours[moe:$t:$e:$topk:$hid:$inter]=$(tessera_ms moe --tokens=$t \
    --experts=$e --topk=$topk --hidden=$hid --inter=$inter --routing=uniform)
  cases+=("moe:$t:$e:$topk:$hid:$inter")
done
peers=$(mktemp)
if [ $dry -eq 0 ]; then
  # The GEMM and attention variants' peers are the GEMM's and attention's.
  python3 "$here/peers.py" --budget "$budget" $(printf '%s\n' "${cases[@]}" | grep -v '^[a-z]\+\(gemm\|attn\):') \
    2>&1 | tee "$peers" >&2
fi

flops() { # case: floating-point operations (attention: causal halves them)
  IFS=: read -r kind a b c d e f <<< "$1"
  case $kind in
  *gemm) echo $((2 * a * b * c)) ;;
  *attn) echo $((4 * a * b * d * d * e / (1 + f))) ;;
  decode) echo $((4 * a * b * c * d * 128)) ;;
  moe) echo $((6 * a * c * d * e)) ;;
  esac
}
tflops() { # case ms
  [ -n "$2" ] && awk -v f="$(flops "$1")" -v ms="$2" \
    'BEGIN { printf "%.1f", f / (ms * 1e9) }'
}
peer_ms() { grep "^$1 $2 " "$peers" | awk '{ print $3 }' | grep -E '^[0-9.]+$'; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }

emit ""
emit "### (c) Timings (median ms; TFLOP/s; ratio = peer time / Tessera time)"
emit ""
emit "| problem | Tessera ($timed) | peer 1 | peer 2 | peer 1 / Tessera | peer 2 / Tessera |"
emit "|---|---|---|---|---|---|"
for case in "${cases[@]}"; do
  peer=$case
  case ${case%%:*} in
  *gemm) names=(cublas triton) peer=gemm:${case#*:} ;; # the variants' peers are the GEMM's
  *attn) names=(flash flex) peer=attn:${case#*:} ;;
  decode) names=(flash flex) ;;
  moe) names=(grouped_mm loop) ;;
  esac
  mine=${ours[$case]:-}
  p1=$(peer_ms "$peer" "${names[0]}")
  p2=$(peer_ms "$peer" "${names[1]}")
  cell() { # name ms
    if [ -n "$2" ]; then echo "$1 $2 ms, $(tflops "$case" "$2") TFLOP/s"
    else echo "$1: $(grep "^$peer \($1\|all\) " "$peers" | cut -d' ' -f3- | head -1)"; fi
  }
  if [ -n "$mine" ]; then ourcell="$mine ms, $(tflops "$case" "$mine") TFLOP/s"
  elif [[ ${case%%:*} == *attn ]]; then ourcell="no kernel for this head dim"
  else ourcell="failed"; fi
  emit "| $case | $ourcell | $(cell "${names[0]}" "$p1") | $(cell "${names[1]}" "$p2") | $(ratio "$mine" "$p1") | $(ratio "$mine" "$p2") |"
done
emit ""
emit "$failures failed check(s); $(($(date +%s) - start)) s."
if [ $dry -eq 1 ]; then
  # Every timing Tessera takes must have been read.
  for case in "${cases[@]}"; do
    [ -n "${ours[$case]:-}" ] || { echo "no timing read for $case" >&2; failures=$((failures + 1)); }
  done
else
  cat "$section" >> "$results"
fi
rm -f "$section" "$peers" "$timeouts"
[ $failures -eq 0 ]

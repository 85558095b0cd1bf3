#!/usr/bin/env python3
"""PTX instructions per attention score between the two wgmma groups.

Usage: softmax_instructions.py KERNEL.ptx SCORES_PER_THREAD

Reads sm_90a PTX of flash_attention_fwd (tessera-compile --emit=ptx) and
counts the instructions a thread executes on the unmasked path from the
wait for the QK^T group (the second `wgmma.wait_group` in program order)
to the next barrier wait of the pipeline (`mbarrier.try_wait` loop or
`wgmma.fence`): the instructions of the masked branch (from its
conditional branch to the label it jumps to) are left out. Prints the
counts by opcode and the total over the scores a thread holds.
"""
import collections
import re
import sys


def main():
    lines = open(sys.argv[1]).read().splitlines()
    scores = int(sys.argv[2])
    waits = [i for i, l in enumerate(lines) if "wgmma.wait_group" in l]
    start = waits[1] + 1
    counts = collections.Counter()
    skip_to = None
    first_branch = True
    for line in lines[start:]:
        text = line.strip()
        if not text or text.startswith(("//", ".loc", "{", "}")):
            continue
        if skip_to is not None:
            if text == skip_to + ":":
                skip_to = None
            continue
        if text.endswith(":"):
            continue
        if "mbarrier.try_wait" in text or "wgmma.fence" in text:
            break
        branch = re.match(r"@%p\d+ bra\s+(\S+);", text)
        if branch and first_branch:
            # The masked branch: jumped over on the unmasked path.
            first_branch = False
            counts["bra"] += 1
            skip_to = branch.group(1)
            continue
        if branch:
            break
        counts[text.split()[0]] += 1
    total = sum(counts.values())
    for op, n in counts.most_common():
        print(f"{n:5d} {op}")
    print(f"{total} instructions, {total / scores:.2f} per score")


if __name__ == "__main__":
    main()

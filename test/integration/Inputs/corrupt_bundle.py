#!/usr/bin/env python3
"""Flips one bit at each of COUNT places spread over a bundle, and runs
`tessera-run COPY ARGS...` on each copy. Every copy must be refused with an
error naming the bundle (exit status 1), or, where the flipped byte is one
no image or description uses (alignment padding), run and pass its check;
none may crash, hang or report wrong numbers. Prints how many were refused.

usage: corrupt_bundle.py BUNDLE COUNT TESSERA_RUN ARGS...
"""
import os
import subprocess
import sys
import tempfile

bundle, count, run, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
original = open(bundle, 'rb').read()
refused = 0
with tempfile.TemporaryDirectory() as scratch:
    copy = os.path.join(scratch, 'copy.bundle')
    for i in range(count):
        at = (2 * i + 1) * len(original) // (2 * count)
        data = bytearray(original)
        data[at] ^= 1 << (i % 8)
        with open(copy, 'wb') as f:
            f.write(data)
        try:
            result = subprocess.run([run, copy] + args, capture_output=True,
                                    text=True, timeout=120)
        except subprocess.TimeoutExpired:
            sys.exit(f'byte {at}: tessera-run hung')
        output = result.stdout + result.stderr
        if result.returncode == 1 and 'cannot load the bundle' in output:
            refused += 1
        elif result.returncode != 0 or 'PASS' not in output:
            sys.exit(f'byte {at}: exit status {result.returncode}: {output}')
print(f'{refused} of {count} corrupted copies refused, the others ran and passed')

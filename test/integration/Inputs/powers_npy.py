# The reference for powers.mlir, without NumPy: reads the bases (float32)
# and integers (int32) tessera-run saved as .npy, writes the expected fpowi
# results (float64 powers rounded to float32) and ipowi results (exact, with
# the pass's rule for negative exponents) as .npy.
import ast
import math
import struct
import sys


def read(path, code):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY" and data[6] == 1
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode("latin1"))
    count = 1
    for extent in header["shape"]:
        count *= extent
    return header["shape"], list(struct.unpack(
        "<%d%s" % (count, code), data[10 + length:10 + length + 4 * count]))


def write(path, shape, descr, code, values):
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
        descr, tuple(shape))
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)))
        f.write(text.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0] if math.isfinite(x) \
        and abs(x) < 3.4e38 else x


shape, bases = read(sys.argv[1], "f")
_, ints = read(sys.argv[2], "i")
floats, powers = [], []
for b, i in zip(bases, ints):
    u = i & 0xFFFFFFFF
    e = u % 13 - 4
    base = (u // 13) % 7 - 3
    if b == 0 and e < 0:
        floats.append(math.inf)
    else:
        floats.append(to_f32(float(b) ** e))
    if e >= 0:
        powers.append(base ** e)
    else:
        powers.append(1 if base == 1 else (-1 if e % 2 else 1)
                      if base == -1 else 0)
write(sys.argv[3], shape, "<f4", "f", floats)
write(sys.argv[4], shape, "<i4", "i", powers)

# A user's own reference program, without NumPy: reads a float32 .npy
# array (C order), multiplies it by FACTOR and writes the result as .npy.
import ast
import struct
import sys

source, target, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(source, "rb") as f:
    data = f.read()
assert data[:6] == b"\x93NUMPY" and data[6] == 1
length = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10:10 + length].decode("latin1"))
assert header["descr"] == "<f4" and not header["fortran_order"]
count = 1
for extent in header["shape"]:
    count *= extent
values = struct.unpack("<%df" % count, data[10 + length:10 + length + 4 * count])
text = "{'descr': '<f4', 'fortran_order': False, 'shape': %r, }" % (
    tuple(header["shape"]),)
text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
with open(target, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)))
    f.write(text.encode("latin1"))
    f.write(struct.pack("<%df" % count, *[v * factor for v in values]))

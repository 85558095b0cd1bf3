# Prints a kernel whose load and store sit inside DEPTH nested scf.for loops
# (argv[1]), each from 0 to %n.
import sys

depth = int(sys.argv[1])
print("tile.kernel @nest(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>,")
print("                  %n: index) threads(32) {")
print("  %c0 = arith.constant 0 : index")
print("  %c1 = arith.constant 1 : index")
for d in range(depth):
    print("%sscf.for %%i%d = %%c0 to %%n step %%c1 {" % (" " * (d + 2), d))
pad = " " * (depth + 2)
print("%s%%x = tile.load %%X[%%i0, %%c0] : !tile.view<?x?xf32> -> tensor<32xf32>"
      % pad)
print("%stile.store %%x -> %%Y[%%i%d, %%c0] : tensor<32xf32> -> "
      "!tile.view<?x?xf32>" % (pad, depth - 1))
for d in reversed(range(depth)):
    print("%s}" % (" " * (d + 2)))
print("  tile.return")
print("}")

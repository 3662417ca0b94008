# SPDX-License-Identifier: MIT
# Blender stores float properties in single precision; the library takes doubles. A value typed as
# 0.2 is stored as 0.2000000029802322; passing that on would make a Blender run differ from a rig
# that says 0.2. So a single-precision value is passed as the shortest decimal that rounds to it,
# which is the number the artist typed (or the library default the property was initialized from).
import struct

_F = struct.Struct("<f")


def f32(x):
    """x rounded to single precision."""
    return _F.unpack(_F.pack(x))[0]


def typed(x):
    """The shortest decimal (as a double) whose single-precision rounding is f32(x)."""
    x = float(x)
    if x == 0.0 or x != x or x in (float("inf"), float("-inf")):
        return x
    want = f32(x)
    for digits in range(6, 10):
        d = float("%.*g" % (digits, want))
        if f32(d) == want:
            return d
    return want

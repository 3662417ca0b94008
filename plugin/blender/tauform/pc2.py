# SPDX-License-Identifier: MIT
# PC2 point caches, the format of Blender's Mesh Cache modifier and of lua/tauform/cache.lua:
# header "POINTCACHE2\0", version 1, points, start frame, sample rate 1.0 (one sample per frame),
# samples; then float32 xyz per point per sample, little endian. Written to "<path>.partial" with
# the header's sample count kept current after every frame, and renamed to <path> by close(), so
# <path> is never a torn file and a cancelled bake keeps a valid cache of what was baked. A live
# preview writes <path> itself (direct=True): Blender reads it frame by frame as it grows.
import os
import struct

HEADER = struct.Struct("<12siiffi")
MAGIC = b"POINTCACHE2\0"


class Writer:
    def __init__(self, path, vert_count, start, direct=False):
        self.path, self.partial = path, path if direct else path + ".partial"
        self.n, self.start, self.frames = vert_count, start, 0
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self.f = open(self.partial, "wb")
        self.f.write(self._header())

    def _header(self):
        return HEADER.pack(MAGIC, 1, self.n, float(self.start), 1.0, self.frames)

    def write(self, positions):
        """One frame: a flat array('f') of 3 x vert_count local coordinates."""
        assert len(positions) == 3 * self.n
        self.f.seek(0, os.SEEK_END)
        positions.tofile(self.f)
        self.frames += 1
        self.f.seek(0)
        self.f.write(self._header())
        self.f.flush()

    def truncate(self, frames):
        """Keep the first `frames` samples (a live preview that restarts)."""
        self.frames = frames
        self.f.truncate(HEADER.size + 12 * self.n * frames)
        self.f.seek(0)
        self.f.write(self._header())
        self.f.flush()

    def close(self):
        if self.f is None:
            return
        self.f.close()
        self.f = None
        if self.partial != self.path:
            os.replace(self.partial, self.path)

    def discard(self):
        if self.f is None:
            return
        self.f.close()
        self.f = None
        os.remove(self.partial)


def read(path):
    """(start, [frame, ...]) with each frame a tuple of 3 x points floats."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, n, start, _rate, count = HEADER.unpack_from(data)
    if magic != MAGIC or version != 1:
        raise ValueError("%s: not a PC2 file" % path)
    frames = []
    off = HEADER.size
    for _ in range(count):
        frames.append(struct.unpack_from("<%df" % (3 * n), data, off))
        off += 12 * n
    return start, frames

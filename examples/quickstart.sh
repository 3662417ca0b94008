#!/usr/bin/env bash
# The main job of the quick start: build tauform (installing cmake/gcc if missing) and run the
# cape example, a C host that dlopen()s libtauform.so, animates the pinned shoulder line and
# writes the frames as a PC2 point cache (Blender: Mesh Cache modifier) to ./cape.pc2.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/.ci/deps"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" --target tauform tauform_host tauform_check_pc2 >/dev/null
"$root/build/examples/host/tauform_host" --lib "$root/build/libtauform.so" --out cape.pc2 "$@"
"$root/build/examples/host/tauform_check_pc2" cape.pc2 --frames 72

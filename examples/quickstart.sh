#!/usr/bin/env bash
# The main job of the quick start: build tauform (installing what is missing) and run the shipped
# cape rig headlessly: a cape pinned to a shoulder line that walks, swings and stops, tau and
# kappa keyed, written as a PC2 point cache (Blender: Mesh Cache modifier) to ./cape.pc2, with a
# contact sheet of six frames in ./cape.png.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/.ci/deps"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
lua5.4 "$root/examples/run.lua" "$root/examples/cape/cape.lua" --out cape.pc2 --sheet cape.png "$@"

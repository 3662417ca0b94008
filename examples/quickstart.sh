#!/usr/bin/env bash
# The main job of the quick start: build tauform (installing what is missing) and run the shipped
# cape rig headlessly: a cape pinned to a shoulder line that walks, swings and stops, tau and
# kappa keyed, written as a PC2 point cache to ./cape.pc2, its rest mesh to ./cape.obj (same
# vertex order) and a contact sheet of six frames to ./cape.png; run.lua lists the files.
# In Blender: File > Import > Wavefront (.obj) ./cape.obj with Forward Axis Y, Up Axis Z; add a
# Mesh Cache modifier: Format PC2, File Path ./cape.pc2, Time Mode Frame, Play Mode Scene,
# Frame Start 1 (the rig's first frame), Frame Scale 1, Forward Axis Y, Up Axis Z.
# The cache is written as cape.pc2.partial and renamed when the run finishes: a failed run leaves
# only the .partial (a valid cache of the frames before the failure) and says so.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/.ci/deps"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
lua5.4 "$root/examples/run.lua" "$root/examples/cape/cape.lua" --out cape.pc2 --sheet cape.png "$@"

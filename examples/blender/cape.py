# SPDX-License-Identifier: MIT
# The cape example in Blender, built by script and rendered headless with Workbench:
#   blender -b --factory-startup --python examples/blender/cape.py -- \
#       --lib build/libtauform.so --out examples/blender/cape.png [--blend cape.blend] [--frame 40]
# A body (a torso the cape collides with, a head) walks forward, turns and stops; the cape hangs
# from its shoulder line (a pin group on the cape, which is parented to the body, so its own
# evaluated mesh carries the pins), with tau keyed from lively to settled and a wind force field
# from the side. The add-on is enabled from this checkout's plugin/blender; the cache goes to a
# temporary directory unless --blend saves the scene (then next to it).
import argparse
import math
import os
import sys
import tempfile

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

p = argparse.ArgumentParser(prog="cape.py")
p.add_argument("--lib", default=os.path.join(ROOT, "build", "libtauform.so"))
p.add_argument("--out", default=os.path.join(HERE, "cape.png"))
p.add_argument("--blend", default="")
p.add_argument("--frame", type=int, default=44)
p.add_argument("--size", default="640x400")
args = p.parse_args(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])

import addon_utils  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "plugin", "blender"))
os.environ["TAUFORM_LIBRARY"] = os.path.abspath(args.lib)
addon_utils.enable("tauform", default_set=True, handle_error=None)
import tauform  # noqa: E402
if not tauform._state["active"]:
    sys.exit("cape.py: %s" % tauform.error())

scene = bpy.context.scene
for ob in list(bpy.data.objects):
    bpy.data.objects.remove(ob)
scene.frame_start, scene.frame_end = 1, 60
scene.render.fps = 24

# the body: an empty that walks, with a torso (collider) and a head
body = bpy.data.objects.new("Body", None)
scene.collection.objects.link(body)
for f, y, turn in ((1, 0.0, 0.0), (24, 1.0, 0.0), (40, 1.6, 35.0), (52, 1.7, 40.0)):
    body.location = (0.0, y, 0.0)
    body.rotation_euler = (0.0, 0.0, math.radians(turn))
    body.keyframe_insert("location", frame=f)
    body.keyframe_insert("rotation_euler", frame=f)

bpy.ops.mesh.primitive_cylinder_add(vertices=32, radius=0.2, depth=0.9, location=(0, 0, 1.05))
torso = bpy.context.object
torso.name = "Torso"
torso.scale = (1.0, 0.65, 1.0)
torso.parent = body
torso.tauform_collider.enabled = True
torso.tauform_collider.one_sided = True
torso.tauform_collider.thickness = 0.005
bpy.ops.mesh.primitive_uv_sphere_add(radius=0.13, location=(0, 0, 1.68))
head = bpy.context.object
head.name = "Head"
head.parent = body
bpy.ops.object.shade_smooth()

# the cape: a sheet behind the torso, its top row on the shoulders
NX, NY, W, H = 18, 24, 0.7, 1.0
verts = [(-W / 2 + W * i / NX, -0.16 - 0.002 * j, 1.45 - H * j / NY)
         for j in range(NY + 1) for i in range(NX + 1)]
faces = [(j * (NX + 1) + i, j * (NX + 1) + i + 1, (j + 1) * (NX + 1) + i + 1,
          (j + 1) * (NX + 1) + i) for j in range(NY) for i in range(NX)]
me = bpy.data.meshes.new("Cape")
me.from_pydata(verts, [], faces)
cape = bpy.data.objects.new("Cape", me)
scene.collection.objects.link(cape)
cape.parent = body
cape.vertex_groups.new(name="shoulders").add(list(range(NX + 1)), 1.0, "REPLACE")
mat = bpy.data.materials.new("Cape")
mat.diffuse_color = (0.55, 0.08, 0.08, 1.0)
me.materials.append(mat)
for p_ in me.polygons:
    p_.use_smooth = True

s = cape.tauform
s.enabled = True
s.pin_group = "shoulders"
s.frame_start, s.frame_end, s.substeps = 1, 60, 2
s.density, s.stretch, s.bend = 0.25, 3000, 2e-5
s.kappa = 0.2
s.tau = 0.2
s.keyframe_insert("tau", frame=1)
s.keyframe_insert("tau", frame=30)
s.tau = 1.5
s.keyframe_insert("tau", frame=50)
s.use_air = True
s.thickness = 0.004
s.use_ground = True
s.preview = False

# a wind force field from the side (strength 1 = 1 m/s along the field's +Z)
bpy.ops.object.effector_add(type="WIND", location=(-2, 0.5, 1.2), rotation=(0, math.radians(90), 0))
wind = bpy.context.object
wind.field.strength = 1.0
wind.field.noise = 0.3

# floor, camera, render settings
bpy.ops.mesh.primitive_plane_add(size=8, location=(0, 1, 0))
aim = bpy.data.objects.new("Aim", None)
scene.collection.objects.link(aim)
aim.location = (0.0, 1.5, 1.0)
bpy.ops.object.camera_add(location=(2.4, -0.6, 1.5))
cam = bpy.context.object
cam.data.lens = 35
track = cam.constraints.new("TRACK_TO")
track.target, track.track_axis, track.up_axis = aim, "TRACK_NEGATIVE_Z", "UP_Y"
scene.camera = cam
r = scene.render
r.engine = "BLENDER_WORKBENCH"
r.resolution_x, r.resolution_y = (int(v) for v in args.size.split("x"))
r.resolution_percentage = 100
r.image_settings.file_format = "PNG"
r.image_settings.color_mode = "RGB"
r.image_settings.compression = 100
sh = scene.display.shading
sh.light, sh.color_type = "STUDIO", "MATERIAL"
sh.show_shadows, sh.show_cavity = True, True
scene.view_settings.view_transform = "Standard"

if args.blend:
    bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args.blend))
else:
    s.cache_dir = tempfile.mkdtemp(prefix="tauform_cape_")
bpy.context.view_layer.objects.active = cape
if bpy.ops.tauform.bake() != {"FINISHED"}:
    sys.exit("cape.py: the bake failed")
if args.blend:
    bpy.ops.wm.save_mainfile()
scene.frame_set(args.frame)
r.filepath = os.path.abspath(args.out)
bpy.ops.render.render(write_still=True)
print("wrote %s" % r.filepath)

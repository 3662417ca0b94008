# SPDX-License-Identifier: MIT
# Blender wind force fields as the library's wind. The library's wind is one velocity for the whole
# simulation (plus turbulence and gusts around it), so a field gives a velocity, not a force that
# depends on where the cloth is:
#   velocity (m/s)      += strength x the field object's local +Z axis (world space, unit length)
#   turbulence (m/s)    += noise x |strength|
#   turbulence seed      = the first field's seed, added to the panel's seed
# A field's shape, falloff and distance limits are not used (plugin/docs/blender.md). Fields are
# read from the evaluated depsgraph, so keyed strength or a rotating field object act per frame.
import math

from .values import typed


def fields(scene, collection):
    objs = collection.all_objects if collection is not None else scene.objects
    return [ob for ob in objs
            if ob.field is not None and ob.field.type == "WIND" and not ob.hide_render]


def field_wind(scene, depsgraph, collection):
    """(velocity (x, y, z) m/s, turbulence m/s, seed or None) of the scene's wind fields."""
    v, turb, seed = [0.0, 0.0, 0.0], 0.0, None
    for ob in fields(scene, collection):
        ev = ob.evaluated_get(depsgraph)
        f = ev.field
        s = typed(f.strength)
        m = ev.matrix_world
        z = (float(m[0][2]), float(m[1][2]), float(m[2][2]))
        length = math.sqrt(z[0] ** 2 + z[1] ** 2 + z[2] ** 2)
        if length == 0.0:
            continue
        for k in range(3):
            v[k] += s * z[k] / length
        turb += typed(f.noise) * abs(s)
        if seed is None:
            seed = int(f.seed)
    return tuple(v), turb, seed

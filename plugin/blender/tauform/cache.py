# SPDX-License-Identifier: MIT
# The object's cache as Blender plays it: a Mesh Cache modifier named MODIFIER, last in the stack,
# reading the object's PC2 file (local coordinates, one sample per frame from the start frame).
# While the add-on reads the evaluated mesh to simulate (pin targets, the rest shape) the modifier
# is switched off, so the simulation never reads its own output; hidden() restores it.
import contextlib
import os

MODIFIER = "tauform cache"


def modifier(obj):
    m = obj.modifiers.get(MODIFIER)
    return m if m is not None and m.type == "MESH_CACHE" else None


def ensure_modifier(obj, stored_path, start):
    m = modifier(obj)
    if m is None:
        m = obj.modifiers.new(MODIFIER, "MESH_CACHE")
    m.cache_format = "PC2"
    m.filepath = stored_path
    m.time_mode = "FRAME"
    m.play_mode = "SCENE"
    # scene frame f reads sample f - frame_start (lua/tauform/cache.lua, the PC2 header's start is
    # not read by Blender)
    m.frame_start = start
    m.frame_scale = 1.0
    m.deform_mode = "OVERWRITE"
    m.interpolation = "LINEAR"
    m.forward_axis, m.up_axis = "POS_Y", "POS_Z"
    m.factor = 1.0
    return m


@contextlib.contextmanager
def hidden(*objs):
    """The objects' evaluated meshes without their caches (the modifiers off), restored after."""
    states = []
    for obj in objs:
        m = modifier(obj)
        states.append((m.show_viewport, m.show_render) if m is not None else None)
        if m is not None and (m.show_viewport or m.show_render):
            m.show_viewport = m.show_render = False
    try:
        yield
    finally:
        for obj, state in zip(objs, states):
            m = modifier(obj)
            if m is not None and state is not None and (m.show_viewport, m.show_render) != state:
                m.show_viewport, m.show_render = state


def remove(obj, path):
    m = modifier(obj)
    if m is not None:
        obj.modifiers.remove(m)
    for p in (path, path + ".partial"):
        if p and os.path.exists(p):
            os.remove(p)

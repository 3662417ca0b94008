# SPDX-License-Identifier: MIT
# Reading a Blender object's evaluated mesh for the library: positions in world space (doubles,
# transformed in double precision: mathutils works in single precision), triangles from Blender's
# own triangulation (loop triangles keep each face's winding), vertex-group weights, and the checks
# that name a bad mesh in Blender's terms (edge and vertex numbers as the spreadsheet shows them).
from array import array


class InputError(Exception):
    """Bad input from the scene; the message names the object and what is wrong."""


def matrix_rows(m):
    """A 4x4 mathutils matrix as a tuple of 16 doubles, row-major (the library's layout)."""
    return tuple(float(m[r][c]) for r in range(4) for c in range(4))


def is_identity(rows):
    return rows == (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def transform(co, rows):
    """Flat single-precision local coordinates to flat double world ones."""
    out = array("d", co)
    if is_identity(rows):
        return out
    a, b, c, d, e, f, g, h, i, j, k, l = rows[:12]
    for n in range(0, len(out), 3):
        x, y, z = out[n], out[n + 1], out[n + 2]
        out[n] = a * x + b * y + c * z + d
        out[n + 1] = e * x + f * y + g * z + h
        out[n + 2] = i * x + j * y + k * z + l
    return out


def inverse_rows(rows):
    """Inverse of an affine row-major 4x4 (3x3 part by cofactors), in double precision."""
    a, b, c, tx, d, e, f, ty, g, h, i, tz = rows[:12]
    A, B, Cc = e * i - f * h, -(d * i - f * g), d * h - e * g
    det = a * A + b * B + c * Cc
    if abs(det) < 1e-300:
        raise InputError("the object's transform is singular (a scale of 0)")
    r = 1.0 / det
    m = [A * r, -(b * i - c * h) * r, (b * f - c * e) * r,
         B * r, (a * i - c * g) * r, -(a * f - c * d) * r,
         Cc * r, -(a * h - b * g) * r, (a * e - b * d) * r]
    t = [-(m[0] * tx + m[1] * ty + m[2] * tz), -(m[3] * tx + m[4] * ty + m[5] * tz),
         -(m[6] * tx + m[7] * ty + m[8] * tz)]
    return (m[0], m[1], m[2], t[0], m[3], m[4], m[5], t[1], m[6], m[7], m[8], t[2],
            0.0, 0.0, 0.0, 1.0)


class MeshData:
    """One evaluated mesh: local and world positions, triangles, and (on request) weights."""

    def __init__(self, obj_eval, with_topology=False, groups=(), obj=None):
        me = obj_eval.to_mesh()
        try:
            n = len(me.vertices)
            self.name = obj_eval.name
            self.vert_count = n
            self.local = array("f", bytes(12 * n))
            me.vertices.foreach_get("co", self.local)
            self.rows = matrix_rows(obj_eval.matrix_world)
            self.world = transform(self.local, self.rows)
            if with_topology:
                self._topology(me)
            # group names from the original object: an evaluated copy can lag behind a group
            # just added
            self.weights = {g: self._weights(obj or obj_eval, me, g) for g in groups if g}
        finally:
            obj_eval.to_mesh_clear()

    def _topology(self, me):
        me.calc_loop_triangles()
        t = array("i", bytes(4 * 3 * len(me.loop_triangles)))
        me.loop_triangles.foreach_get("vertices", t)
        self.triangles = array("I", t)
        # faces per edge, from the polygons' loops
        loops = array("i", bytes(4 * len(me.loops)))
        me.loops.foreach_get("edge_index", loops)
        count = array("i", bytes(4 * len(me.edges)))
        for e in loops:
            count[e] += 1
        self.edge_faces = count
        self.edge_verts = array("i", bytes(8 * len(me.edges)))
        me.edges.foreach_get("vertices", self.edge_verts)
        used = bytearray(self.vert_count)
        for v in t:
            used[v] = 1
        self.loose = [i for i in range(self.vert_count) if not used[i]]

    @staticmethod
    def _weights(obj, me, group):
        vg = obj.vertex_groups.get(group)
        if vg is None:
            return None
        gi = vg.index
        out = {}
        for v in me.vertices:
            for g in v.groups:
                if g.group == gi and g.weight > 0.0:
                    out[v.index] = g.weight
        return out

    def check_sheet(self, what):
        """A cloth: triangles, no vertex outside them, no edge shared by more than two faces."""
        if len(self.triangles) == 0:
            raise InputError("%s '%s' has no faces" % (what, self.name))
        bad = [e for e, c in enumerate(self.edge_faces) if c > 2]
        if bad:
            e = bad[0]
            raise InputError(
                "%s '%s' has %d non-manifold edge%s (shared by more than two faces), e.g. edge %d "
                "(vertices %d-%d, %d faces); select them with Select > All by Trait > Non Manifold"
                % (what, self.name, len(bad), "s" if len(bad) > 1 else "", e,
                   self.edge_verts[2 * e], self.edge_verts[2 * e + 1], self.edge_faces[e]))
        if self.loose:
            raise InputError("%s '%s' has %d vertices in no face, e.g. vertex %d: delete loose "
                             "geometry (Mesh > Clean Up > Delete Loose)"
                             % (what, self.name, len(self.loose), self.loose[0]))

    def check_closed(self, what):
        """A flesh surface: a sheet with every edge in exactly two faces."""
        self.check_sheet(what)
        open_edges = [e for e, c in enumerate(self.edge_faces) if c < 2]
        if open_edges:
            e = open_edges[0]
            raise InputError("%s '%s' is not closed: %d edges border a hole, e.g. edge %d "
                             "(vertices %d-%d); flesh fills a closed mesh"
                             % (what, self.name, len(open_edges), e, self.edge_verts[2 * e],
                                self.edge_verts[2 * e + 1]))

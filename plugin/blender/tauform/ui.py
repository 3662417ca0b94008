# SPDX-License-Identifier: MIT
# Physics properties: the tauform panel of a mesh object (with sub-panels per topic, as Blender's
# cloth) and the collider panel. Drawing only: no panel changes data.
import bpy

from . import cache, preview


class PhysicsPanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"

    @classmethod
    def poll(cls, context):
        ob = context.object
        return ob is not None and ob.type == "MESH" and hasattr(ob, "tauform")


class SubPanel(PhysicsPanel):
    bl_parent_id = "TAUFORM_PT_main"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return PhysicsPanel.poll(context) and context.object.tauform.enabled


class TAUFORM_PT_main(PhysicsPanel, bpy.types.Panel):
    bl_label = "tauform"

    def draw_header(self, context):
        self.layout.prop(context.object.tauform, "enabled", text="")

    def draw(self, context):
        s = context.object.tauform
        layout = self.layout
        layout.use_property_split = True
        layout.active = s.enabled
        layout.prop(s, "kind", expand=True)
        col = layout.column(align=True)
        col.prop(s, "frame_start", text="Frames Start")
        col.prop(s, "frame_end", text="End")
        layout.prop(s, "substeps")
        err = preview.errors.get(context.object.name)
        if err:
            layout.label(text=err, icon="ERROR")


class TAUFORM_PT_material(SubPanel, bpy.types.Panel):
    bl_label = "Material"
    bl_options = set()

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        if s.kind == "CLOTH":
            col.prop(s, "density")
            col.prop(s, "total_mass")
            col.prop(s, "stretch")
            col.prop(s, "poisson")
        else:
            col.prop(s, "youngs")
            col.prop(s, "flesh_poisson")
            col.prop(s, "flesh_density")
            col.prop(s, "tet_element")
            col.prop(s, "lattice_cells")


class TAUFORM_PT_damping(SubPanel, bpy.types.Panel):
    bl_label = "Damping and Gravity"
    bl_options = set()

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.prop(s, "damping")
        col.prop(s, "tau" if s.damping == "TAU" else "settle_time")
        col.prop(s, "kappa")
        col.prop(s, "use_scene_gravity")
        if not s.use_scene_gravity:
            col.prop(s, "gravity")


class TAUFORM_PT_shape(SubPanel, bpy.types.Panel):
    bl_label = "Pins and Bending"
    bl_options = set()

    def draw(self, context):
        ob, s = context.object, context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.prop_search(s, "pin_group", ob, "vertex_groups")
        col.prop(s, "pin_stiffness")
        if s.kind == "CLOTH":
            col.prop(s, "bend_model")
            col.prop(s, "bend")
            sub = col.column()
            sub.active = s.bend_model == "SHELL"
            sub.prop(s, "bend_poisson")
            col.prop_search(s, "bend_group", ob, "vertex_groups")
            sub = col.column()
            sub.active = bool(s.bend_group)
            sub.prop(s, "bend_max")


class TAUFORM_PT_plastic(SubPanel, bpy.types.Panel):
    bl_label = "Plasticity"

    def draw_header(self, context):
        self.layout.prop(context.object.tauform, "use_plastic", text="")

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.active = s.use_plastic
        for p in ("plastic_yield", "plastic_limit", "plastic_time"):
            col.prop(s, p)
        if s.kind == "CLOTH":
            col.prop(s, "bend_yield")
            col.prop(s, "bend_plastic_limit")


class TAUFORM_PT_response(SubPanel, bpy.types.Panel):
    bl_label = "Response"

    def draw_header(self, context):
        self.layout.prop(context.object.tauform, "use_response", text="")

    def draw(self, context):
        s, ob = context.object.tauform, context.object
        col = self.layout.column()
        col.use_property_split = True
        col.active = s.use_response
        col.prop(s, "response_global")
        if s.kind == "CLOTH":
            col.prop_search(s, "response_group", ob, "vertex_groups")
            sub = col.column()
            sub.active = bool(s.response_group)
            sub.prop(s, "response_group_global")


class TAUFORM_PT_wind(SubPanel, bpy.types.Panel):
    bl_label = "Air and Wind"

    def draw_header(self, context):
        self.layout.prop(context.object.tauform, "use_air", text="")

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.active = s.use_air
        for p in ("air_density", "wind", "drag", "lift", "turbulence", "turbulence_scale",
                  "turbulence_time", "turbulence_seed", "gust", "gust_period",
                  "use_wind_fields"):
            col.prop(s, p)
        sub = col.column()
        sub.active = s.use_wind_fields
        sub.prop(s, "wind_collection")


class TAUFORM_PT_contact(SubPanel, bpy.types.Panel):
    bl_label = "Contact"

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.prop(s, "thickness")
        col.prop(s, "friction")
        col.prop(s, "use_self_collision")
        if s.kind == "CLOTH":
            sub = col.column()
            sub.active = s.use_self_collision
            sub.prop_search(s, "self_exclude_group", context.object, "vertex_groups")
        col.prop(s, "use_ground")
        sub = col.column()
        sub.active = s.use_ground
        sub.prop(s, "ground_height")
        sub.prop(s, "ground_friction")
        if s.kind == "CLOTH":
            col.prop(s, "layer_group")
            if s.layer_group:
                names = sorted(o.name for o in context.scene.objects
                               if o.type == "MESH" and o.tauform.enabled
                               and o.tauform.layer_group == s.layer_group)
                col.label(text="%d object%s: %s (settings from '%s')"
                          % (len(names), "" if len(names) == 1 else "s", ", ".join(names),
                             names[0] if names else "-"))
        n = sum(1 for o in context.scene.objects
                if o is not context.object and o.tauform_collider.enabled)
        col.label(text="%d collider object%s in the scene" % (n, "" if n == 1 else "s"))


class TAUFORM_PT_solver(SubPanel, bpy.types.Panel):
    bl_label = "Solver"

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        for p in ("max_newton", "max_cg", "tolerance", "abs_tolerance", "threads"):
            col.prop(s, p)


class TAUFORM_PT_rig(SubPanel, bpy.types.Panel):
    bl_label = "Lua Rig"

    def draw(self, context):
        s = context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.prop(s, "rig")
        if s.rig == "TEXT":
            col.prop(s, "rig_text")
        elif s.rig == "FILE":
            col.prop(s, "rig_file")


class TAUFORM_PT_cache(SubPanel, bpy.types.Panel):
    bl_label = "Cache"
    bl_options = set()

    def draw(self, context):
        ob, s = context.object, context.object.tauform
        col = self.layout.column()
        col.use_property_split = True
        col.prop(s, "cache_dir")
        col.prop(s, "preview")
        m = cache.modifier(ob)
        if s.baked:
            col.label(text="Baked: frames %d-%d" % (s.frame_start, s.cached_last),
                      icon="CHECKMARK")
        elif m is not None:
            col.label(text="Cached up to frame %d (live)" % s.cached_last)
        row = col.row(align=True)
        row.operator("tauform.bake", text="Bake", icon="REC")
        row.operator("tauform.free_bake", text="Free Bake", icon="TRASH")


class TAUFORM_PT_collider(PhysicsPanel, bpy.types.Panel):
    bl_label = "tauform Collider"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        self.layout.prop(context.object.tauform_collider, "enabled", text="")

    def draw(self, context):
        c = context.object.tauform_collider
        col = self.layout.column()
        col.use_property_split = True
        col.active = c.enabled
        col.prop(c, "thickness")
        col.prop(c, "friction")
        col.prop(c, "one_sided")


class TAUFORM_PT_missing(bpy.types.Panel):
    """Shown while the library cannot be loaded: says why and where to set its path."""
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"
    bl_label = "tauform"

    error = ""

    @classmethod
    def poll(cls, context):
        return context.object is not None and not hasattr(context.object, "tauform")

    def draw(self, context):
        self.layout.label(text=self.error or "libtauform is not loaded", icon="ERROR")
        self.layout.label(text="Preferences > Add-ons > tauform: set the library path")


classes = (TAUFORM_PT_main, TAUFORM_PT_material, TAUFORM_PT_damping, TAUFORM_PT_shape,
           TAUFORM_PT_plastic, TAUFORM_PT_response, TAUFORM_PT_wind, TAUFORM_PT_contact,
           TAUFORM_PT_solver, TAUFORM_PT_rig, TAUFORM_PT_cache, TAUFORM_PT_collider)

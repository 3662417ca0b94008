-- SPDX-License-Identifier: MIT
-- One schema for every table a user writes: the constructors tauform.cloth{...} and
-- tauform.flesh{...}, the option tables of the sim methods and mesh helpers, and every table of a
-- rig. Each field has its type(s), unit, default, bounds, a one-line doc, and whether it may be a
-- keyframe curve or a function of the frame. Parameters (tau, stretch, wind, ...) take their unit,
-- range, default and doc from the library's own table, tauform.core.params.
--
--   schema.validate(name, value)  -> nil, or the first mistake: "pins[1].weigth: unknown field
--                                    (did you mean 'weight'?)", "frames: expected ..., got ..."
--   schema.check_result(path, value, field) -> the same check for what a keyed function returned
--   schema.markdown()             -> plugin/docs/reference.md (the reference is generated from here)
--
-- Names: one Lua name per parameter everywhere (core.params' name). A C name (stretch_stiffness)
-- is an error that points at the Lua name; it is not an alias. The rig's wind table keeps its own
-- short names (density, turbulence.amplitude, gust.period, ...) and also takes the parameter
-- name air_density for density.
local core = require "tauform.core"
local keyframes = require "tauform.keyframes"

local P = core.params
local M = { tables = {}, order = {} }

-- ---- the tables --------------------------------------------------------------------------------

local function tbl(name, def)
  def.name = name
  def.by_name = {}
  for _, f in ipairs(def) do
    if type(f.type) == "string" then f.type = { f.type } end
    local p = f.param and P[f.param]
    if p then -- unit, default, bounds and doc are the library's
      f.unit = f.unit or p.unit
      if f.default == nil then f.default = p.default end
      f.doc = f.doc or p.doc
      f.type = f.type or { p.count == 3 and "vec3" or (p.integer and "integer" or "number") }
      if f.keyed == nil and def.rig then f.keyed = p.keyable end
    end
    f.type = f.type or { "number" }
    def.by_name[f[1]] = f
  end
  M.tables[name] = def
  M.order[#M.order + 1] = def
  return def
end

-- parameters a constructor reads (the C binding reads these itself); `after` ones the Lua layer
-- sets with sim:set right after creation, so every parameter of the kind is a constructor field
local CLOTH_READS = { stretch = 1, poisson = 1, bend = 1, tau = 1, kappa = 1, phi = 1, psi = 1, pin_stiffness = 1,
                      gravity = 1, bend_poisson = 1, shear = 1, bend_springs = 1 }
local FLESH_READS = { youngs = 1, poisson = 1, tau = 1, kappa = 1, pin_stiffness = 1, gravity = 1 }

local function param_names(kind)
  local names = {}
  for name, p in pairs(P) do if p[kind] then names[#names + 1] = name end end
  table.sort(names)
  return names
end

local ELEMENT = { "element", type = "enum", values = { "linear", "quadratic" }, default = "linear",
  doc = "the tet element: \"linear\" (4 nodes: cheap, locks in bending and near incompressibility); "
     .. "\"quadratic\" (10 nodes: the same sag and frequency at any tet density, ~10x the cost per tet; "
     .. "physics.md, Flesh elements)" }

local BEND_MODEL = { "bend_model", type = "enum", values = { "shell", "hinge" }, default = "shell",
  doc = "\"shell\": isotropic plate bending on any mesh, with bend_poisson; \"hinge\": the discrete hinge "
     .. "(stiffer along some mesh directions; physics.md, Bending)" }

local CLOTH_MODEL = { "cloth_model", type = "enum", values = { "membrane", "springs" }, default = "membrane",
  doc = "\"membrane\": a continuum membrane with plate bending (stretch, poisson, bend); \"springs\": "
     .. "Leplatre's mass-spring cloth, structural (stretch), shear and bend_springs families built from "
     .. "the mesh (physics.md, Spring cloth)" }

local SOLVER = { "solver", type = "table", sub = "solver", doc = "Newton and CG limits of the implicit step" }

local cloth = {
  doc = "Creates a cloth simulation from a triangle mesh. A mesh helper's table (vertices, triangles, groups) "
     .. "can be passed as it is. Every cloth parameter of the parameter table is a field here.",
  example = [[local m = tauform.mesh.grid{ nx = 20, ny = 20 }
local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles,
                                   density = 0.2, stretch = 4000, tau = 0.5 }]],
  lenient = true, call = "tauform.cloth",
  { "vertices", type = "array", required = true, doc = "rest positions, flat {x1, y1, z1, ...} or nested {{x, y, z}, ...}", unit = "m" },
  { "triangles", type = "array", required = true, doc = "1-based vertex triples, flat or nested" },
  { "groups", type = "table", doc = "named vertex lists of a mesh helper or OBJ: accepted and ignored" },
  { "masses", type = "array", unit = "kg", doc = "one mass per vertex (instead of density or total_mass)" },
  { "density", unit = "kg/m^2", default = 0.1, bounds = "> 0", doc = "area density: mass = density x area, lumped to the vertices" },
  { "total_mass", unit = "kg", default = "(from density)", bounds = "> 0", doc = "the cloth's whole mass, spread by area (replaces density)" },
  { "integrator", type = "enum", values = { "tau", "strain_rate" }, default = "tau",
    doc = "\"tau\" (Young 2007 damping) or \"strain_rate\" (phi/psi damping, for comparison)" },
  BEND_MODEL,
  CLOTH_MODEL,
  SOLVER,
}
for _, name in ipairs(param_names("cloth")) do
  cloth[#cloth + 1] = { name, param = name, after = not CLOTH_READS[name] or nil,
                        type = name == "bend" and { "number" } or nil }
end
tbl("tauform.cloth", cloth)

local flesh = {
  doc = "Creates a flesh (volume) simulation: from tets, or by filling a closed surface with a lattice of tets; "
     .. "the surface is then the skin the cache holds. Every flesh parameter of the parameter table is a field here.",
  example = [[local skin = tauform.mesh.ellipsoid{ radii = { 0.2, 0.15, 0.1 } }
local body <close> = tauform.flesh{ surface = skin, cells = 10, youngs = 3e4, poisson = 0.45, tau = 0.2 }]],
  lenient = true, call = "tauform.flesh",
  { "vertices", type = "array", unit = "m", doc = "tet mesh rest positions (with tets), flat or nested" },
  { "tets", type = "array", doc = "1-based vertex quads, flat or nested (tauform.tet_load reads .msh/.node files)" },
  { "surface", type = "mesh", doc = "skin {vertices, triangles}: embedded in the tets, or filled with tets when there are none" },
  { "cells", type = "integer", default = 12, bounds = ">= 2", doc = "lattice cells across the surface's longest side (when filling)" },
  ELEMENT,
  { "density", unit = "kg/m^3", default = 1000, bounds = "> 0", doc = "mass density of the base material" },
  { "materials", type = "array", items = "flesh.materials[i]", doc = "region materials; tet_materials picks one per tet" },
  { "tet_materials", type = "array", doc = "per tet: 0 the base material, k materials[k]" },
  { "regions", type = "array", doc = "per-tet region tags of tauform.tet_load: accepted and ignored" },
  { "region_names", type = "table", doc = "region names of tauform.tet_load: accepted and ignored" },
  SOLVER,
}
for _, name in ipairs(param_names("flesh")) do
  flesh[#flesh + 1] = { name, param = name, after = not FLESH_READS[name] or nil }
end
tbl("tauform.flesh", flesh)

tbl("flesh.materials[i]", {
  doc = "One region material of tauform.flesh; a field left out is the base material's.",
  lenient = true,
  { "youngs", param = "youngs" },
  { "poisson", param = "poisson" },
  { "density", unit = "kg/m^3", bounds = "> 0", default = "(the base's)", doc = "mass density" },
})

tbl("solver", {
  doc = "Limits of the implicit solve, per time step (the constructors' and rigs' `solver`).",
  lenient = true,
  { "max_newton", type = "integer", default = 20, bounds = ">= 1", doc = "Newton iterations per step at most" },
  { "max_cg", type = "integer", default = 500, bounds = ">= 1", doc = "conjugate-gradient iterations per Newton iteration at most" },
  { "tolerance", default = 1e-3, bounds = "> 0", doc = "relative residual that ends the Newton loop" },
  { "abs_tolerance", default = 1e-7, bounds = ">= 0", doc = "absolute residual that ends it too" },
  { "threads", type = "integer", default = 0, bounds = "0 .. 256",
    doc = "threads of the step's loops: 0 every core (one on a small mesh), or exactly this many; results are bitwise the same for every count (physics.md, Threads)" },
})

tbl("render options", {
  doc = "Options of sim:render_png(path, options) and sim:render_sheet(path, shapes, options): a shaded "
     .. "picture for a quick look (not a renderer).",
  example = [[sim:render_png("last.png", { view = { 1, -1.5, 0.8 }, width = 800, height = 600 })
sim:render_sheet("sheet.png", shapes, { columns = 3, width = 480, height = 360 })]],
  lenient = true,
  { "width", type = "integer", unit = "px", default = 800, bounds = "1..16384", doc = "picture (tile) width" },
  { "height", type = "integer", unit = "px", default = 600, bounds = "1..16384", doc = "picture (tile) height" },
  { "view", type = "vec3", default = { 1, -1.5, 0.8 }, doc = "direction from the mesh to the camera (framing the whole mesh)" },
  { "eye", type = "vec3", unit = "m", doc = "camera position (instead of view)" },
  { "target", type = "vec3", unit = "m", doc = "point the camera looks at (with eye)" },
  { "up", type = "vec3", default = { 0, 0, 1 }, doc = "camera up direction" },
  { "fov", unit = "degrees", default = 35, doc = "vertical field of view" },
  { "wireframe", type = "boolean", default = true, doc = "draw the triangle edges" },
  { "pins", type = "boolean", default = true, doc = "mark pinned vertices" },
  { "columns", type = "integer", default = 3, bounds = ">= 1", doc = "render_sheet only: tiles per row" },
})

tbl("sim:collider", {
  doc = "The table of sim:collider{...}: a triangle mesh the cloth or flesh does not cross (contact, ABI 1.5). "
     .. "Move it every frame with collider:move(positions) or collider:transform(matrix); within an advance it "
     .. "moves linearly to that pose. A mesh helper's table can be passed as it is. The gap kept between the "
     .. "simulation and the collider is the simulation's thickness (parameter `thickness`) plus the collider's.",
  example = [[local plate = tauform.mesh.grid{ width = 2, height = 2, nx = 2, ny = 2, origin = { -1, -1, 0 } }
local c = sim:collider{ vertices = plate.vertices, triangles = plate.triangles, thickness = 0.005, friction = 0.4 }
c:transform{ 1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0.1,  0, 0, 0, 1 }   -- up 0.1 m over the next advance]],
  call = "collider",
  { "vertices", type = "array", required = true, unit = "m", doc = "the first pose, flat {x1, y1, z1, ...} or nested (the pose transform() transforms)" },
  { "triangles", type = "array", required = true, doc = "1-based vertex triples, flat or nested" },
  { "groups", type = "table", doc = "named vertex lists of a mesh helper or OBJ: accepted and ignored" },
  { "thickness", unit = "m", default = 0.001, bounds = "0..0.1", doc = "the collider's part of the contact gap" },
  { "friction", default = 0.5, bounds = "0..10", doc = "friction coefficient; a contact's is sqrt(the simulation's friction x this)" },
  { "one_sided", type = "boolean", default = false,
    doc = "a closed surface with outward normals: vertices found inside are pushed out (stats().intersecting counts them)" },
})
tbl("collider:set", {
  doc = "The table of collider:set{...}: a field left out keeps its value.",
  example = [[c:set{ friction = 0.1 }]],
  call = "set",
  { "thickness", unit = "m", bounds = "0..0.1", doc = "the collider's part of the contact gap" },
  { "friction", bounds = "0..10", doc = "friction coefficient" },
})

-- mesh helpers
tbl("tauform.mesh.grid", {
  doc = "A rectangular cloth grid of (nx + 1) x (ny + 1) vertices: vertex (i, j) is number j*(nx+1)+i+1 at "
     .. "origin + i*width/nx*u + j*height/ny*v. Groups: row0 (j = 0), rowN (j = ny), col0 (i = 0), "
     .. "colN (i = nx), corners, all.",
  example = [[tauform.mesh.grid{ width = 0.8, height = 1.1, nx = 24, ny = 33,
                   origin = { -0.4, 0, 1.5 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }]],
  groups = { "row0", "rowN", "col0", "colN", "corners", "all" }, call = "tauform.mesh.grid",
  { "width", unit = "m", default = 1, doc = "extent along u" },
  { "height", unit = "m", default = 1, doc = "extent along v" },
  { "nx", type = "integer", default = 10, bounds = ">= 1", doc = "cells along u" },
  { "ny", type = "integer", default = 10, bounds = ">= 1", doc = "cells along v" },
  { "origin", type = "vec3", unit = "m", default = { 0, 0, 0 }, doc = "position of vertex 1 (i = j = 0)" },
  { "u", type = "vec3", default = { 1, 0, 0 }, doc = "direction of the rows (i)" },
  { "v", type = "vec3", default = { 0, 1, 0 }, doc = "direction of the columns (j)" },
})
tbl("tauform.mesh.disc", {
  doc = "A disc in the x-y plane: a center vertex and rings of segments. Groups: center, rim, all.",
  example = [[tauform.mesh.disc{ radius = 0.5, rings = 8, segments = 32, center = { 0, 0, 1 } }]],
  groups = { "center", "rim", "all" }, call = "tauform.mesh.disc",
  { "radius", unit = "m", default = 1, doc = "outer radius" },
  { "rings", type = "integer", default = 8, bounds = ">= 1", doc = "rings of vertices around the center" },
  { "segments", type = "integer", default = 32, bounds = ">= 3", doc = "vertices per ring" },
  { "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, doc = "center position" },
})
tbl("tauform.mesh.ellipsoid", {
  doc = "A closed surface with outward triangles (poles on the z axis), the kind tauform.flesh fills with tets. "
     .. "Groups: top (north pole), bottom (south pole), all.",
  example = [[tauform.mesh.ellipsoid{ radii = { 0.18, 0.12, 0.15 }, center = { 0, 0, 1 }, rings = 16, segments = 32 }]],
  groups = { "top", "bottom", "all" }, call = "tauform.mesh.ellipsoid",
  { "radii", type = "vec3", unit = "m", default = { 1, 1, 1 }, doc = "semi-axes along x, y, z" },
  { "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, doc = "center position" },
  { "rings", type = "integer", default = 12, bounds = ">= 2", doc = "latitude bands" },
  { "segments", type = "integer", default = 24, bounds = ">= 3", doc = "vertices per latitude" },
})
tbl("tauform.mesh.box", {
  doc = "A closed box with outward triangles (8 corners, 12 triangles), the kind a one-sided collider wants "
     .. "(sim:collider{ one_sided = true }). Groups: bottom (z = lo), top (z = hi), all.",
  example = [[sim:collider(tauform.mesh.box{ lo = { -0.5, -0.5, 0.7 }, hi = { 0.5, 0.5, 0.75 } })]],
  groups = { "bottom", "top", "all" }, call = "tauform.mesh.box",
  { "lo", type = "vec3", unit = "m", default = { -0.5, -0.5, -0.5 }, doc = "the corner with the smallest x, y, z" },
  { "hi", type = "vec3", unit = "m", default = { 0.5, 0.5, 0.5 }, doc = "the opposite corner; larger in every axis" },
})
tbl("tauform.mesh.load_obj options", {
  doc = "The optional second argument of tauform.mesh.load_obj(path, options). OBJ `g`/`o` statements name "
     .. "the groups of the vertices their faces use; a companion \"<path>.groups\" file of lines "
     .. "\"name: i j k ...\" adds groups.",
  example = [[local cape = tauform.mesh.load_obj("cape.obj", { groups = "cape.pins" })]],
  call = "tauform.mesh.load_obj",
  { "groups", type = "string", default = "<path>.groups", doc = "group file to read instead of <path>.groups" },
})

-- rigs
local RIG_KEYED = "number, keyframe curve or function(frame)"
tbl("rig", {
  rig = true,
  doc = "What a rig file returns (or the table given to tauform.rig.load / tauform.run). A cloth rig gives "
     .. "`mesh`, a flesh rig gives `flesh`. Keyed fields take a constant, a keyframe curve "
     .. "(tauform.key{ {frame, value}, ... }) or a function(frame) returning the value.",
  example = [[local tauform = require "tauform"
local key = tauform.key
return {
  mesh = tauform.mesh.grid{ width = 0.8, height = 1.1, nx = 24, ny = 33,
                            origin = { -0.4, 0, 1.5 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } },
  material = { density = 0.25, stretch = 4000, poisson = 0.3 },
  fps = 24, frames = { 1, 96 }, substeps = 2,
  tau = key{ { 1, 0.3 }, { 60, 0.3 }, { 72, 2.0 } },
  bend = { value = 2e-5, groups = { row0 = 5e-4 } },
  pins = { { group = "row0", translate = key{ { 1, { 0, 0, 0 } }, { 48, { 0, 1.2, 0 } } } } },
  wind = { velocity = { 6, 0, 0 }, turbulence = { amplitude = 1 } },
}]],
  { "mesh", type = { "mesh", "string" }, own_check = true,
    doc = "cloth: a mesh table {vertices, triangles, groups} or an OBJ path (relative to the rig file)" },
  { "flesh", type = "table", sub = "rig.flesh", doc = "flesh: the body (instead of mesh)" },
  { "material", type = "table", sub = function(rig) return rig.flesh ~= nil and "rig.material (flesh)" or "rig.material (cloth)" end,
    subs = { "rig.material (cloth)", "rig.material (flesh)" }, doc = "mass and stiffness (static)" },
  { "fps", unit = "frames/s", default = 24, bounds = "> 0", doc = "frame rate" },
  { "frames", type = "frames", default = { 1, 48 }, doc = "first and last frame {first, last}" },
  { "substeps", type = "integer", default = 1, bounds = "1..10000", doc = "solver steps per frame" },
  { "tau", param = "tau" },
  { "settle", unit = "s", keyed = true, bounds = "> one step",
    doc = "settle time instead of tau: tau is chosen so the slowest mode decays 100x in this time" },
  { "kappa", param = "kappa" },
  { "gravity", param = "gravity" },
  { "bend", param = "bend", type = { "number", "table" }, sub = "rig.bend",
    doc = "cloth: bending stiffness, or a per-vertex map { value = ..., groups = { name = ... } }" },
  { "plastic", type = "table", sub = "rig.plastic",
    doc = "rest shapes that yield past an elastic limit, up to a plastic limit: springs, triangles, tets, bending" },
  { "tear", type = "table", sub = "rig.tear",
    doc = "cloth: edges that break past a strain, the cloth splitting there (a weak seam as a group)" },
  { "pins", type = "array", items = "rig.pins[i]", doc = "pinned vertices and how their targets move" },
  { "pokes", type = "array", items = "rig.pokes[i]", doc = "external forces on a spot, a region or a group, keyed" },
  { "response", type = "table", sub = "rig.response",
    doc = "how external forces spread: local (level 0) to the whole body (the last level), in percent per level" },
  { "wind", type = "table", sub = "rig.wind", doc = "air: wind velocity, drag, lift, turbulence and gusts" },
  { "contact", type = "table", sub = "rig.contact", doc = "contact thickness and friction of the cloth or skin" },
  { "ground", type = "table", sub = "rig.ground", doc = "a ground plane (none without this table)" },
  { "colliders", type = "array", items = "rig.colliders[i]", doc = "triangle meshes the simulation does not cross, moved every frame" },
  { "solver", type = "table", sub = "solver", doc = "Newton and CG limits (the constructors' solver table)" },
  { "view", type = "vec3", doc = "camera direction of the runner's --preview and --sheet pictures" },
  { "frame", type = "function", doc = "function(frame, sim, rig), called after the rig's sets for every frame" },
  { "setup", type = "function", doc = "function(sim, rig), called once after the simulation is created" },
  { "name", type = "string", doc = "a label for the rig (not used by the runner)" },
  moved = { stretch = "material.stretch", poisson = "material.poisson", density = "material.density",
            youngs = "material.youngs", total_mass = "material.total_mass", masses = "material.masses",
            pin_stiffness = "material.pin_stiffness", velocity = "wind.velocity", drag = "wind.drag",
            lift = "wind.lift", air_density = "wind.density", turbulence = "wind.turbulence",
            gust = "wind.gust", max_newton = "solver.max_newton", max_cg = "solver.max_cg",
            cells = "flesh.cells", surface = "flesh.surface", tets = "flesh.tets", group = "pins[i].group",
            thickness = "contact.thickness", friction = "contact.friction", ground_normal = "ground.normal",
            ground_height = "ground.height", ground_friction = "ground.friction", collider = "colliders",
            sequence = "colliders[i].sequence" },
})
tbl("rig.material (cloth)", {
  doc = "A cloth rig's material (static: read once when the simulation is created).",
  example = [[material = { density = 0.25, stretch = 4000, poisson = 0.3 }]],
  { "density", unit = "kg/m^2", default = 0.1, bounds = "> 0", doc = "area density" },
  { "total_mass", unit = "kg", bounds = "> 0", doc = "whole mass, spread by area (replaces density)" },
  { "masses", type = "array", unit = "kg", doc = "one mass per vertex" },
  { "stretch", param = "stretch", type = { "number", "table" }, sub = "rig.material.stretch",
    doc = "2D Young's modulus, or a per-vertex map { value = ..., groups = { name = ... } }: pieces of one mesh with their own fabric" },
  { "poisson", param = "poisson" },
  { "pin_stiffness", param = "pin_stiffness" },
  BEND_MODEL,
  { "bend_poisson", param = "bend_poisson", keyed = false },
  CLOTH_MODEL,
  { "shear", param = "shear", keyed = false },
  { "bend_springs", param = "bend_springs", keyed = false },
  moved = { bend = "bend (top level)", youngs = "a flesh rig's material" },
})
tbl("rig.material.stretch", {
  doc = "A per-vertex stretch map (static, like the material): the value everywhere, and others on named "
     .. "vertex groups; a triangle (a structural spring) takes its vertices' mean. Layered garments are "
     .. "pieces of one mesh (tauform.mesh.merge names each piece as a group), each with its own fabric, "
     .. "and self-contact keeps them apart.",
  example = [[material = { stretch = { value = 2000, groups = { jacket = 8000 } } }]],
  { "value", param = "stretch", type = { "number" }, keyed = false, doc = "stretch stiffness outside the groups" },
  { "groups", type = "table", map = { type = { "number" }, keyed = false, unit = "N/m" },
    doc = "{ group name = stiffness }" },
})
tbl("rig.material (flesh)", {
  doc = "A flesh rig's material (static), with optional per-region materials.",
  example = [[material = { youngs = 15e3, poisson = 0.45, density = 1000,
             regions = { muscle = { youngs = 3e5 } } }]],
  { "youngs", param = "youngs" },
  { "poisson", param = "poisson" },
  { "density", unit = "kg/m^3", default = 1000, bounds = "> 0", doc = "mass density" },
  { "pin_stiffness", param = "pin_stiffness" },
  { "regions", type = "table", map = "rig.material.regions[name]",
    doc = "{ [Gmsh physical name or region id] = { youngs, poisson, density } } (needs a tet file with regions)" },
  moved = { stretch = "a cloth rig's material", bend = "a cloth rig (flesh has no hinges)" },
})
tbl("rig.material.regions[name]", {
  doc = "One region's material; a field left out is the base material's.",
  { "youngs", param = "youngs", keyed = false },
  { "poisson", param = "poisson", keyed = false },
  { "density", unit = "kg/m^3", bounds = "> 0", default = "(the base's)", doc = "mass density" },
})
tbl("rig.flesh", {
  doc = "A flesh rig's body: a closed skin filled with a lattice of tets, or given tets with the skin embedded.",
  example = [[flesh = { surface = tauform.mesh.ellipsoid{ radii = { 0.18, 0.12, 0.15 } }, cells = 10 }
flesh = { surface = "belly.obj", tets = "belly.msh" }]],
  { "surface", type = { "mesh", "string" }, doc = "the skin: a mesh table or an OBJ path" },
  { "cells", type = "integer", default = 12, bounds = ">= 2", doc = "lattice cells across the longest side" },
  { "tets", type = { "string", "table" }, doc = "a tet file (.msh, .node) or { vertices, tets, regions }" },
  ELEMENT,
})
tbl("rig.bend", {
  doc = "A per-vertex bending map: the value everywhere, and other values on named vertex groups.",
  example = [[bend = { value = 2e-5, groups = { row0 = 5e-4, hem = tauform.key{ { 1, 1e-4 }, { 48, 1e-3 } } } }]],
  rig = true,
  { "value", param = "bend", type = { "number" }, default = 0, doc = "bending stiffness outside the groups" },
  { "groups", type = "table", map = { type = { "number" }, keyed = true, unit = "N m" },
    doc = "{ group name = stiffness (number, curve or function) }" },
})
tbl("rig.plastic", {
  doc = "Plasticity: past the elastic limit (yield, a strain) the rest shape moves so the strain stays at the "
     .. "limit, never further than the plastic limit (limit) from the rest mesh's. Spring cloth "
     .. "(material.cloth_model = \"springs\"; Leplatre): each spring's rest length. Membrane cloth: each "
     .. "triangle's rest frame along its principal stretches (its rest area follows). Flesh: each tet's rest "
     .. "shape, its volume kept, on the equivalent (von Mises) strain: a dent stays. The bending of membrane "
     .. "cloth (shell or hinge): a fold past bend_yield (1/m) keeps a crease, up to bend_limit. time is the "
     .. "rate of all of them; every yield and limit takes a per-vertex map.",
  example = [[plastic = { yield = 0.05, limit = { value = 0, groups = { elbow = 0.3 } }, time = 0.5 }]],
  rig = true,
  { "yield", param = "plastic_yield", type = { "number", "table" }, sub = "rig.plastic.yield",
    doc = "elastic limit (a strain), or a per-vertex map { value = ..., groups = { name = ... } }" },
  { "limit", param = "plastic_limit", type = { "number", "table" }, sub = "rig.plastic.limit",
    doc = "plastic limit (a strain from the rest mesh's shape; 0: elastic), or a per-vertex map" },
  { "time", param = "plastic_time" },
  { "bend_yield", param = "bend_yield", type = { "number", "table" }, sub = "rig.plastic.bend_yield",
    doc = "membrane cloth: the change of curvature (1/m) past which a fold creases, or a per-vertex map" },
  { "bend_limit", param = "bend_plastic_limit", type = { "number", "table" }, sub = "rig.plastic.bend_limit",
    doc = "membrane cloth: how far (1/m) a crease may go from the rest mesh's curvature, or a per-vertex map" },
})
for _, part in ipairs({ { "yield", "plastic_yield" }, { "limit", "plastic_limit" },
                        { "bend_yield", "bend_yield" }, { "bend_limit", "bend_plastic_limit" } }) do
  tbl("rig.plastic." .. part[1], {
    doc = "A per-vertex map of plastic." .. part[1] .. ": the value everywhere, and others on named vertex groups.",
    example = "plastic = { " .. part[1] .. " = { value = " .. (part[1]:find("bend") and "5" or "0.1")
      .. ", groups = { collar = " .. (part[1]:find("bend") and "50" or "0.02") .. " } } }",
    rig = true,
    { "value", param = part[2], type = { "number" }, doc = "outside the groups" },
    { "groups", type = "table", map = { type = { "number" }, keyed = true, unit = part[1]:find("bend") and "1/m" or "" },
      doc = "{ group name = value (number, curve or function) }" },
  })
end
tbl("rig.tear", {
  doc = "Tearing (cloth): after each step an interior edge whose opening strain (the stretch of its two triangles "
     .. "across it) passes the strain breaks, and where broken edges cut a vertex's triangles apart the vertex "
     .. "splits, so the cloth rips and its pieces fly free with their momentum. groups weaken (or strengthen) "
     .. "named vertex groups; an edge takes the mean of its two ends'. The vertex count grows: the runner then "
     .. "writes an OBJ sequence (a PC2 or MDD cache cannot change its vertex count).",
  example = [[tear = { strain = 0.5, groups = { seam = 0.05 } }]],
  rig = true,
  { "strain", param = "tear_strain", doc = "the opening strain past which an edge breaks (0: never)" },
  { "groups", type = "table", map = { type = { "number" }, keyed = true, unit = "" },
    doc = "{ group name = strain (number, curve or function) }" },
})
tbl("rig.pokes[i]", {
  rig = true,
  doc = "An external force (a poke, a push on a region): its total force, keyed, spread over the chosen vertices "
     .. "by mass (the region accelerates evenly), shaped by a smooth bump (1 - (d/r)^2)^2 of the rest distance d "
     .. "within radius r of at (or a group, indices or select). It acts while the frame is within frames. The "
     .. "response decides how the body answers it.",
  example = [[pokes = { { at = { 1, 0, 0 }, radius = 0.1, force = key{ { 10, { 0, 2, 0 } }, { 12, { 0, 0, 0 } } } } }]],
  { "at", type = "vec3", unit = "m", doc = "the centre, in rest coordinates (the poke follows the material)" },
  { "radius", unit = "m", default = 0, bounds = ">= 0", doc = "with at: the bump's radius (0: the nearest vertex)" },
  { "group", type = "string", doc = "cloth: a vertex group of the mesh, instead of at" },
  { "indices", type = "array", doc = "1-based vertex numbers, instead of at" },
  { "select", type = "function", doc = "function(x, y, z) -> true for the rest positions to push, instead of at" },
  { "force", type = "vec3", keyed = true, unit = "N", required = true, doc = "the total force" },
  { "frames", type = "frames", doc = "{first, last}: frames (inclusive) whose advance it acts in; default all" },
})
tbl("rig.response", {
  rig = true,
  doc = "Palazzi's multilevel response: each external force (pokes, wind) is shared among levels, level 0 the "
     .. "vertices (a local dent), each next level patches twice as large over the rest shape, the last the body "
     .. "as one rigid piece; a level pushes its patches rigidly with the force and torque it receives, so the "
     .. "body's total force and torque are kept. Percentages per level from level 0, summing to 100 (the levels "
     .. "after the given ones get 0; sim:response_levels() lists the levels and their sizes in metres). Gravity, "
     .. "pins and contact are not shared. Keyed: each percentage a number, curve or function of the frame.",
  example = [[response = { levels = { 20 }, global = 80, groups = { collar = { levels = { 100 } } } }]],
  { "levels", type = "array", map = { type = { "number" }, keyed = true, unit = "%" },
    doc = "percent per level from level 0, summing to 100 with global" },
  { "global", keyed = true, unit = "%", doc = "percent on the last level (the body as one rigid piece)" },
  { "groups", type = "table", own_check = true,
    doc = "{ group name = levels, or { levels = ..., global = ... } }: other percentages for the forces on a vertex group" },
})
tbl("rig.pins[i]", {
  rig = true,
  doc = "One set of pinned vertices: which (group, indices or select), how hard (weight), and where their "
     .. "targets go (translate, rotate, or targets for full control).",
  example = [[pins = {
  { group = "row0", translate = key{ { 1, { 0, 0, 0 } }, { 48, { 0, 1.2, 0 } } },
    rotate = { axis = { 0, 0, 1 }, center = { 0, 0, 1.5 }, angle = key{ { 1, 0 }, { 20, 12 } } } },
  { indices = { 1, 25 }, weight = 0.5 },
}]],
  { "group", type = "string", doc = "cloth: a vertex group of the mesh (row0, corners, an OBJ group, ...)" },
  { "indices", type = "array", doc = "1-based vertex numbers" },
  { "select", type = "function", doc = "function(x, y, z) -> true for the rest positions to pin (flesh and cloth)" },
  { "weight", default = 1, bounds = "(0, 1]", doc = "1 hard; below 1 a soft pin pulling with pin_stiffness w/(1-w)" },
  { "release", type = "integer", doc = "the frame from which these vertices are free (the pin lets go); default never" },
  { "translate", type = "vec3", keyed = true, unit = "m", default = { 0, 0, 0 }, doc = "offset of the targets from rest" },
  { "rotate", type = "table", sub = "rig.pins[i].rotate", doc = "rotation of the targets (before translate)" },
  { "targets", type = "function", doc = "function(frame, rest, ids) -> flat {x1, y1, z1, ...}, one per pinned vertex" },
})
tbl("rig.pins[i].rotate", {
  rig = true,
  doc = "A rotation of a pin set's rest positions about an axis through a center.",
  { "axis", type = "vec3", required = true, doc = "rotation axis (normalized for you)" },
  { "angle", keyed = true, unit = "degrees", default = 0, doc = "rotation angle" },
  { "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, doc = "a point on the axis" },
})
tbl("rig.wind", {
  rig = true,
  doc = "Air on the cloth: a base velocity with drag and lift, turbulence and gusts. Once a rig has wind its "
     .. "air density is 1.225 kg/m^3 (sea level) unless given. The rig's names map to the parameters: "
     .. "velocity = wind, density = air_density (air_density is accepted too), turbulence.amplitude = "
     .. "turbulence, turbulence.scale/time/seed = turbulence_scale/_time/_seed, gust.amplitude = gust, "
     .. "gust.period = gust_period.",
  example = [[wind = { velocity = key{ { 1, { 0, 0, 0 } }, { 36, { 8, 1, 0 } } }, drag = 1.2, lift = 0.6,
         turbulence = { amplitude = 1.5, scale = 0.8, time = 0.4, seed = 7 },
         gust = { amplitude = 0.6, period = 1.5 } }]],
  { "velocity", param = "wind" },
  { "density", param = "air_density", default = 1.225, doc = "air density (the parameter air_density)" },
  { "air_density", param = "air_density", alias_of = "density", default = 1.225, doc = "the same as density" },
  { "drag", param = "drag" },
  { "lift", param = "lift" },
  { "turbulence", type = "table", sub = "rig.wind.turbulence", doc = "random eddies" },
  { "gust", type = "table", sub = "rig.wind.gust", doc = "gusts" },
  moved = { amplitude = "wind.turbulence.amplitude or wind.gust.amplitude", period = "wind.gust.period",
            seed = "wind.turbulence.seed" },
})
tbl("rig.wind.turbulence", {
  rig = true,
  doc = "Turbulence: a smooth random velocity field added to the wind.",
  { "amplitude", param = "turbulence" },
  { "scale", param = "turbulence_scale", keyed = false },
  { "time", param = "turbulence_time", keyed = false },
  { "seed", param = "turbulence_seed", keyed = false },
})
tbl("rig.wind.gust", {
  rig = true,
  doc = "Gusts: the base wind scaled by up to (1 + amplitude) now and then.",
  { "amplitude", param = "gust" },
  { "period", param = "gust_period", keyed = false },
})

tbl("rig.contact", {
  rig = true,
  doc = "Contact of the simulation with its colliders, the ground and itself: its own thickness (the gap to a "
     .. "collider is this plus the collider's, to its own layers this alone) and friction (a contact's is "
     .. "sqrt(this x the other's)).",
  example = [[contact = { thickness = 0.003, friction = key{ { 1, 0.3 }, { 48, 0.8 } }, self = 1 }]],
  { "thickness", param = "thickness" },
  { "friction", param = "friction" },
  { "self", param = "self_contact", doc = "1: the cloth's (skin's) own layers never pass through each other, kept "
      .. "one thickness apart; 0: off. Key it with a function of the frame returning 0 or 1" },
  { "self_exclude", type = "array", doc = "vertex group names whose vertices do not collide with each other (a collar "
      .. "sewn onto itself); they still collide with the rest of the surface. Static" },
})
tbl("rig.ground", {
  rig = true,
  doc = "A ground plane normal . x = height the simulation stays above. A rig without `ground` has none; with "
     .. "it, the normal defaults to {0, 0, 1} (Z up). The names map to the parameters ground_normal, "
     .. "ground_height and ground_friction.",
  example = [[ground = { normal = { 0, 0, 1 }, height = 0, friction = 0.5 }]],
  { "normal", param = "ground_normal", default = { 0, 0, 1 }, doc = "upward normal of the plane (normalized for you)" },
  { "height", param = "ground_height" },
  { "friction", param = "ground_friction" },
})
tbl("rig.colliders[i]", {
  rig = true,
  doc = "One collider: a triangle mesh (or an OBJ sequence) and how it moves. Its pose at a frame is the mesh "
     .. "(or that frame's OBJ of the sequence) transformed by `transform`, then rotated by `rotate`, then "
     .. "moved by `translate`; the rig moves it there before advancing to that frame, and it starts at the "
     .. "first frame's pose.",
  example = [[colliders = {
  { mesh = tauform.mesh.grid{ width = 2, height = 2, nx = 2, ny = 2, origin = { -1, -1, 0 } },
    translate = key{ { 1, { 0, 0, 0 } }, { 24, { 0, 0, 0.2 } } }, friction = 0.6 },
  { mesh = "box.obj", one_sided = true, rotate = { axis = { 0, 0, 1 }, angle = key{ { 1, 0 }, { 48, 90 } } } },
  { sequence = "body/body_####.obj", thickness = 0.004 },        -- body_0001.obj, body_0002.obj, ...
  { mesh = "arm.obj", transform = function(frame) return arm_matrix(frame) end },
}]],
  { "mesh", type = { "mesh", "string" }, own_check = true,
    doc = "a mesh table {vertices, triangles} or an OBJ path (relative to the rig file); with a sequence: its topology" },
  { "sequence", type = "string",
    doc = "OBJ per frame, #### the frame number zero-padded to as many digits (relative to the rig file); "
       .. "every file the same topology" },
  { "thickness", keyed = true, unit = "m", default = 0.001, bounds = "0..0.1", doc = "the collider's part of the contact gap" },
  { "friction", keyed = true, default = 0.5, bounds = "0..10", doc = "friction coefficient" },
  { "one_sided", type = "boolean", default = false, doc = "a closed surface with outward normals: vertices inside are pushed out" },
  { "transform", type = { "matrix", "function" },
    doc = "a 4x4 affine matrix (16 numbers row-major, or 4 rows of 4) or function(frame) returning one" },
  { "rotate", type = "table", sub = "rig.pins[i].rotate", doc = "a rotation about an axis, as pins' rotate (after transform)" },
  { "translate", type = "vec3", keyed = true, unit = "m", default = { 0, 0, 0 }, doc = "an offset (last)" },
})

tbl("tauform.run options", {
  doc = "The second argument of tauform.run(rig, options) (examples/run.lua's command line sets these). "
     .. "Documented here; the runner reads them itself.",
  example = [[local res = assert(tauform.run("cape.lua", { frames = "1-48", out = "cape.pc2", progress = false }))]],
  doc_only = true,
  { "frames", type = { "string", "table" }, doc = "\"first-last\" or {first, last}; default the rig's" },
  { "fps", doc = "frame rate; default the rig's" },
  { "substeps", type = "integer", doc = "solver steps per frame; default the rig's" },
  { "threads", type = "integer", doc = "threads of the simulation (0 every core); default the rig's solver.threads. The cache is bitwise the same for every count" },
  { "out", type = "string", doc = "cache path: .pc2 (default format), .mdd, or .obj (one file per frame)" },
  { "format", type = "enum", values = { "pc2", "mdd", "obj" }, doc = "cache format when the extension does not say" },
  { "preview", type = "string", doc = "PNG of the last frame" },
  { "sheet", type = "string", doc = "PNG contact sheet of evenly spaced frames" },
  { "sheet_frames", type = "integer", default = 6, doc = "frames on the sheet" },
  { "sheet_columns", type = "integer", default = 3, doc = "sheet tiles per row" },
  { "sheet_width", type = "integer", default = 480, unit = "px", doc = "sheet tile width" },
  { "sheet_height", type = "integer", default = 360, unit = "px", doc = "sheet tile height" },
  { "view", type = "vec3", doc = "camera direction of the pictures; default the rig's view" },
  { "progress", type = "boolean", doc = "progress bar; default: when stderr is a terminal" },
  { "on_frame", type = "function", doc = "function(frame, sim, positions) after each frame" },
  { "checkpoint_every", type = "integer", doc = "every N frames a snapshot of the run goes to <out>.checkpoint (a PC2 or OBJ cache); a finished run removes it" },
  { "resume", type = "boolean", doc = "continue a stopped or killed run from <out>.checkpoint, with the same rig, frames, fps and substeps: the cache ends bit for bit as an uninterrupted run's" },
  { "name", type = "string", doc = "the name errors give a rig passed as a table" },
  { "rest_obj", type = { "string", "boolean" }, doc = "where the rest mesh OBJ goes (default <out without extension>.obj beside a PC2 or MDD cache), or false for none" },
})

-- ---- checking ----------------------------------------------------------------------------------

-- optimal string alignment distance (Levenshtein with transpositions: weigth -> weight is 1)
local function distance(a, b)
  local la, lb = #a, #b
  local d = {}
  for i = 0, la do d[i] = { [0] = i } end
  for j = 0, lb do d[0][j] = j end
  for i = 1, la do
    for j = 1, lb do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        v = math.min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[la][lb]
end
M.distance = distance

-- the closest of `names` to `key`, when close enough to be a likely misspelling
function M.suggest(key, names)
  if type(key) ~= "string" then return nil end
  local best, bd = nil, math.huge
  local lk = key:lower()
  for _, n in ipairs(names) do
    local d = distance(lk, n:lower())
    if d < bd or (d == bd and n < best) then best, bd = n, d end
  end
  if best and (bd <= 2 or bd <= #key // 3) and bd < #key then return best end
  return nil
end

local C_NAMES = {}
for name, p in pairs(P) do if p.c_name ~= name then C_NAMES[p.c_name] = name end end

local function names_of(def)
  local names = {}
  for _, f in ipairs(def) do names[#names + 1] = f[1] end
  return names
end

local function join(path, key)
  if type(key) == "number" then return ("%s[%d]"):format(path, key) end
  if path == "" then return tostring(key) end
  return path .. "." .. tostring(key)
end

-- "string \"1-96\"", "number 0", "a table", ...
local function got(v)
  local t = type(v)
  if t == "string" then return ("string %q"):format(v) end
  if t == "number" and v ~= v then return "NaN" end -- tostring gives "nan" or "-nan" by platform
  if t == "number" or t == "boolean" then return ("%s %s"):format(t, tostring(v)) end
  if keyframes.is_curve(v) then return "a keyframe curve" end
  if t == "table" then
    local parts = {}
    for i = 1, math.min(#v, 4) do parts[i] = type(v[i]) == "table" and "{...}" or tostring(v[i]) end
    if #v > 4 then parts[#parts + 1] = "..." end
    if #parts > 0 then return "{" .. table.concat(parts, ", ") .. "}" end
    return "a table"
  end
  return t == "nil" and "nil" or "a " .. t
end
M.got = got

local function is_number(v, lenient)
  return type(v) == "number" or (lenient and type(v) == "string" and tonumber(v) ~= nil)
end

local function is_vec3(v, lenient)
  return type(v) == "table" and not keyframes.is_curve(v) and #v == 3 and is_number(v[1], lenient)
     and is_number(v[2], lenient) and is_number(v[3], lenient)
end

-- a 4x4 matrix: 16 numbers (row-major) or 4 rows of 4 numbers
function M.is_matrix(v)
  if type(v) ~= "table" or keyframes.is_curve(v) then return false end
  if #v == 16 then
    for i = 1, 16 do if type(v[i]) ~= "number" then return false end end
    return true
  end
  if #v ~= 4 then return false end
  for r = 1, 4 do
    local row = v[r]
    if type(row) ~= "table" or #row ~= 4 then return false end
    for c = 1, 4 do if type(row[c]) ~= "number" then return false end end
  end
  return true
end

local MATCH = {
  number = function(v, l) return is_number(v, l) end,
  integer = function(v, l)
    local n = is_number(v, l) and tonumber(v)
    return n and n == math.floor(n) or false
  end,
  string = function(v) return type(v) == "string" end,
  boolean = function(v) return type(v) == "boolean" end,
  ["function"] = function(v) return type(v) == "function" end,
  table = function(v) return type(v) == "table" and not keyframes.is_curve(v) end,
  array = function(v) return type(v) == "table" and not keyframes.is_curve(v) end,
  mesh = function(v) return type(v) == "table" and type(v.vertices) == "table" end,
  vec3 = is_vec3,
  matrix = function(v) return M.is_matrix(v) end,
  enum = function(v) return type(v) == "string" end,
  frames = function(v)
    return type(v) == "table" and #v == 2 and math.type(v[1]) == "integer" and math.type(v[2]) == "integer"
       and v[2] >= v[1]
  end,
}

local TYPE_TEXT = {
  number = "a number", integer = "a whole number", string = "a string", boolean = "true or false",
  ["function"] = "a function", mesh = "a mesh table {vertices, triangles, groups}", vec3 = "{x, y, z}",
  array = "a table (list)", frames = "{first, last} (two frame numbers)",
  matrix = "a 4x4 matrix (16 numbers row-major, or 4 rows of 4)",
}

local function or_list(parts)
  if #parts == 1 then return parts[1] end
  return table.concat(parts, ", ", 1, #parts - 1) .. " or " .. parts[#parts]
end

-- what a field takes, in words
local function expected(f)
  local parts = {}
  for _, t in ipairs(f.type) do
    if t == "table" then
      local sub = f.subs and f.subs[1] or f.sub
      local def = type(sub) == "string" and M.tables[sub]
      if def then
        local n = names_of(def)
        if #n > 4 then n = { n[1], n[2], n[3], n[4], "..." } end
        parts[#parts + 1] = "a table {" .. table.concat(n, ", ") .. "}"
      else
        parts[#parts + 1] = "a table"
      end
    elseif t == "enum" then
      local q = {}
      for i, v in ipairs(f.values) do q[i] = ("%q"):format(v) end
      parts[#parts + 1] = or_list(q)
    else
      parts[#parts + 1] = TYPE_TEXT[t]
    end
  end
  if f.keyed then
    parts[#parts + 1] = "a keyframe curve"
    parts[#parts + 1] = "a function(frame)"
  end
  return or_list(parts)
end
M.expected = expected

-- bounds a plain value must keep that the library does not check itself (parameters it does)
local BOUNDS = {
  [">= 1"] = function(v) return v >= 1 end, [">= 2"] = function(v) return v >= 2 end,
  [">= 3"] = function(v) return v >= 3 end, ["> 0"] = function(v) return v > 0 end,
  [">= 0"] = function(v) return v >= 0 end, ["(0, 1]"] = function(v) return v > 0 and v <= 1 end,
  ["1..10000"] = function(v) return v >= 1 and v <= 10000 end,
  ["1..16384"] = function(v) return v >= 1 and v <= 16384 end,
}

local check_table

local function check_value(f, v, path, lenient, parent)
  if f.own_check then return nil end
  if f.keyed then
    if type(v) == "function" then return nil end
    if keyframes.is_curve(v) then
      local vector = f.type[1] == "vec3"
      if vector and v.dim ~= 3 then
        return ("%s: a keyframe curve of %s where {x, y, z} values are expected"):format(path, v.dim and ("%d-vectors"):format(v.dim) or "numbers")
      elseif not vector and v.dim and f.type[1] == "number" and not f.sub then
        return ("%s: a keyframe curve of %d-vectors where numbers are expected"):format(path, v.dim)
      end
      return nil
    end
  end
  local matched
  for _, t in ipairs(f.type) do
    if MATCH[t](v, lenient) then matched = t; break end
  end
  if not matched then
    return ("%s: expected %s, got %s"):format(path, expected(f), got(v))
  end
  if matched == "enum" then
    for _, e in ipairs(f.values) do if e == v then return nil end end
    return ("%s: expected %s, got %s"):format(path, expected(f), got(v))
  end
  if (matched == "number" or matched == "integer") and f.bounds and BOUNDS[f.bounds] and not f.param then
    local n = tonumber(v)
    if not BOUNDS[f.bounds](n) then
      local what = matched == "integer" and "a whole number" or "a number"
      local b = f.bounds
      if b == "(0, 1]" then return ("%s: must be %s in (0, 1], got %s"):format(path, what, tostring(v)) end
      if b:find("%.%.") then
        local lo, hi = b:match("^(%d+)%.%.(%d+)$")
        if n < tonumber(lo) then return ("%s: must be %s >= %s, got %s"):format(path, what, lo, tostring(v)) end
        return ("%s: must be %s <= %s, got %s"):format(path, what, hi, tostring(v))
      end
      return ("%s: must be %s %s, got %s"):format(path, what, b, tostring(v))
    end
  end
  if matched == "table" or matched == "array" or matched == "mesh" then
    local sub = f.sub
    if type(sub) == "function" then sub = sub(parent) end
    if sub then return check_table(M.tables[sub], v, path) end
    if f.items then
      local def = M.tables[f.items]
      for k, item in pairs(v) do
        if math.type(k) ~= "integer" then
          return ("%s: expected a list {...} of tables, got a key %s"):format(path, got(k))
        end
        local msg = check_table(def, item, join(path, k))
        if msg then return msg end
      end
    elseif f.map then
      local def = type(f.map) == "string" and M.tables[f.map]
      for k, item in pairs(v) do
        local p = type(k) == "number" and ("%s[%s]"):format(path, tostring(k)) or join(path, k)
        local msg
        if def then msg = check_table(def, item, p)
        else
          local ff = f.map
          if not ff.type then ff.type = { "number" } end
          msg = check_value(ff, item, p, lenient, v)
        end
        if msg then return msg end
      end
    end
  end
  return nil
end

local function unknown(def, key, path)
  local p = join(path, key)
  if type(key) ~= "string" then
    return ("%s: unexpected entry (%s takes named fields: %s)"):format(p, path == "" and "the table" or path,
                                                                      table.concat(names_of(def), ", "))
  end
  local lua = C_NAMES[key]
  if lua and def.by_name[lua] then
    return ("%s: unknown field (did you mean '%s'? the C name %s is '%s' in Lua)"):format(p, lua, key, lua)
  end
  if def.moved and def.moved[key] then
    return ("%s: unknown field here (it belongs in %s)"):format(p, def.moved[key])
  end
  local s = M.suggest(key, names_of(def))
  if s then return ("%s: unknown field (did you mean '%s'?)"):format(p, s) end
  return ("%s: unknown field (fields: %s)"):format(p, table.concat(names_of(def), ", "))
end

function check_table(def, t, path)
  if type(t) ~= "table" or keyframes.is_curve(t) then
    local n = names_of(def)
    if #n > 4 then n = { n[1], n[2], n[3], n[4], "..." } end
    return ("%s: expected a table {%s}, got %s"):format(path == "" and "value" or path, table.concat(n, ", "), got(t))
  end
  -- fields in the schema's order, then unknown keys: the first message is stable
  for _, f in ipairs(def) do
    local v = t[f[1]]
    if v ~= nil then
      local msg = check_value(f, v, join(path, f[1]), def.lenient, t)
      if msg then return msg end
    end
  end
  local bad
  for k in pairs(t) do
    if not def.by_name[k] and (bad == nil or tostring(k) < tostring(bad)) then bad = k end
  end
  if bad ~= nil then return unknown(def, bad, path) end
  for _, f in ipairs(def) do
    if f.alias_of and t[f[1]] ~= nil and t[f.alias_of] ~= nil then
      return ("%s: give %s or %s, not both (the same field)"):format(join(path, f[1]), f[1], f.alias_of)
    end
  end
  return nil
end

-- nil, or the first mistake in `value` as the table `name` (a key of M.tables) describes it
function M.validate(name, value, path)
  local def = assert(M.tables[name], name)
  return check_table(def, value, path or "")
end

-- what a keyed function returned at a frame: a number or {x, y, z} as the field takes
function M.check_result(path, v, vector)
  if vector then
    if not is_vec3(v) then return ("%s: the function returned %s, expected {x, y, z}"):format(path, got(v)) end
  elseif type(v) ~= "number" then
    return ("%s: the function returned %s, expected a number"):format(path, got(v))
  end
  return nil
end

-- sim:set / sim:get keys: a parameter's Lua name
function M.param_key(key)
  if P[key] then return nil end
  if type(key) ~= "string" then return ("%s: not a parameter name"):format(got(key)) end
  local lua = C_NAMES[key]
  if lua then return ("%s: unknown parameter (did you mean '%s'? the C name %s is '%s' in Lua)"):format(key, lua, key, lua) end
  local names = {}
  for n in pairs(P) do names[#names + 1] = n end
  table.sort(names)
  local s = M.suggest(key, names)
  if s then return ("%s: unknown parameter (did you mean '%s'?)"):format(key, s) end
  return ("%s: unknown parameter (parameters: %s)"):format(key, table.concat(names, ", "))
end

-- the fields of a constructor table the C constructor does not read: set right after creation
function M.after_params(name, def)
  local set
  for _, f in ipairs(M.tables[name]) do
    if f.after and def[f[1]] ~= nil then
      set = set or {}
      set[f[1]] = def[f[1]]
    end
  end
  return set
end

-- ---- the reference -----------------------------------------------------------------------------

-- functions and methods: { signature, doc }
M.functions = {
  { "Library", {
    { "tauform.cloth{...} -> sim", "a cloth simulation (fields: [tauform.cloth](#tauformcloth))" },
    { "tauform.flesh{...} -> sim", "a flesh simulation (fields: [tauform.flesh](#tauformflesh))" },
    { "tauform.tet_load(path) -> { vertices, tets, regions, region_names } | nil, message, code",
      "reads a Gmsh .msh or TetGen .node/.ele tet mesh" },
    { "tauform.critical_damping(lambda, mu, rho, wavelength) -> phi, psi [, warning]",
      "strain-rate damping that critically damps waves of that wavelength" },
    { "tauform.measure_settle(times, distances [, lambda, dt]) -> { settle_time, rate, tau }",
      "fits the decay of a settling motion" },
    { "tauform.native_bytes() -> bytes, allocations", "native memory the simulations hold now" },
    { "tauform.version", "the library's version string" },
    { "tauform.core.params", "the parameter table ([Parameters](#parameters))" },
  } },
  { "Simulation methods (sim:...)", {
    { "sim:advance(dt [, substeps]) -> true | nil, message, code", "steps dt seconds in substeps (1..10000) implicit steps" },
    { "sim:set{ name = value, ... } -> sim", "sets [parameters](#parameters); stretch, bend, self_contact, the plastic limits and tear_strain also take one value per vertex (each element the mean of its vertices'); all checked before any is set" },
    { "sim:get(name) -> value", "a parameter's value (a number or {x, y, z})" },
    { "sim:positions([out]) / sim:velocities([out]) / sim:normals([out]) / sim:forces([out]) -> flat table", "per-vertex vectors {x1, y1, z1, ...}; out is reused" },
    { "sim:position(i) -> x, y, z", "one vertex (1-based)" },
    { "sim:vert_count() -> n / sim:triangles() -> flat 1-based triples", "mesh size and faces (a flesh body's tet boundary)" },
    { "sim:pin(indices [, weights])", "pins vertices (weights: one number or one per vertex; 1 hard, below 1 soft)" },
    { "sim:pin_targets(targets)", "where the pinned vertices go: one {x, y, z} per pin, flat or nested" },
    { "sim:set_state(positions [, velocities])", "moves every vertex (and sets velocities): a teleport; the pins' carrier restarts" },
    { "sim:save_state() -> string / sim:load_state(s) -> sim", "a snapshot of everything that decides the next step, as bytes to keep or write to a file; loading it into a simulation made the same way (same mesh and def, same colliders) continues bit for bit; another mesh, version or a damaged string is refused by name" },
    { "sim:energy() -> joules / sim:stats() -> { steps, newton_iterations, cg_iterations, ... }", "diagnostics of the last advance" },
    { "sim:settle_tau(settle_time, dt) -> tau, lambda | nil, message, code", "tau that settles the slowest mode in settle_time" },
    { "sim:render_png(path [, options]) -> true | nil, message", "a shaded picture ([render options](#render-options))" },
    { "sim:render_sheet(path, shapes [, options]) -> true | nil, message", "a contact sheet of position tables ([render options](#render-options))" },
    { "sim:surface_positions([out]) / sim:rest_positions([out]) / sim:surface_count() / sim:info()", "flesh: the skin, the rest pose, skin size, tet quality and volume" },
    { "sim:close() / sim:is_closed()", "frees the simulation now (also on <close> and garbage collection)" },
  } },
  { "Colliders (contact)", {
    { "sim:collider{...} -> collider", "adds a triangle mesh the simulation does not cross ([sim:collider](#simcollider))" },
    { "collider:move(positions) -> collider", "its pose at the end of the next advance: one {x, y, z} per collider vertex, flat or nested" },
    { "collider:transform(matrix) -> collider", "the same as a 4x4 affine transform of its first pose: 16 numbers row-major (translation in 4, 8, 12) or 4 rows of 4" },
    { "collider:set{ thickness =, friction = } -> collider", "changes its thickness and friction ([collider:set](#colliderset))" },
    { "collider:id() -> n / collider:vert_count() -> n / sim:collider_count() -> n", "its number (1-based, in the order added), its vertices, the simulation's colliders" },
    { "sim:set{ thickness =, friction =, ground_normal =, ground_height =, ground_friction =, self_contact = }", "the simulation's contact [parameters](#parameters); ground_normal {0, 0, 0} (the default) is no ground; self_contact 1 keeps the surface's own layers apart" },
    { "sim:stats() -> { contacts, broad_pairs, ccd_cuts, intersecting, contact_growths, collider_substeps, min_distance, contact_seconds, self_pairs, self_excluded, self_seconds, threads, ... }",
      "contact over the last advance; min_distance is inf when nothing was within the gap. A collider keeps its simulation alive; after sim:close() its methods raise" },
  } },
  { "Meshes (tauform.mesh)", {
    { "tauform.mesh.grid{...} / disc{...} / ellipsoid{...} -> mesh", "helper meshes {vertices, triangles, groups} ([Mesh helpers](#mesh-helpers))" },
    { "tauform.mesh.load_obj(path [, options]) -> mesh", "a Wavefront OBJ with named vertex groups" },
    { "tauform.mesh.group(mesh, name) -> indices", "a group's vertex list (an error lists the groups there are)" },
    { "tauform.mesh.vert_count(mesh) -> n", "vertex count" },
    { "tauform.mesh.merge({ mesh, ... } [, { name, ... }]) -> mesh", "one mesh of several pieces (layered garments in one simulation, kept apart by self-contact); groups \"<name>.<group>\" and one per piece \"<name>\"" },
  } },
  { "Rigs, curves, caches", {
    { "tauform.key{ {frame, value, interp =, ease =}, ..., interp = } -> curve", "a keyframe curve: interp \"smooth\" (default), \"linear\" or \"constant\"; ease \"in\", \"out\", \"in_out\"; values numbers or vectors" },
    { "curve(t) / curve:slope(t) / curve:range()", "value, derivative and key range" },
    { "tauform.rig.load(path or table [, { name = }]) -> rig", "reads and checks a [rig](#rig)" },
    { "rig:create() -> sim / rig:apply(sim, frame)", "the simulation at the first frame; the rig's values and pin targets for a frame" },
    { "tauform.run(rig [, options]) -> summary | nil, message, code", "steps a rig through its frames and writes a cache ([tauform.run options](#tauformrun-options))" },
    { "tauform.cache.open(path, vert_count [, { start, fps, format, triangles }]) -> writer", "writer:write(flat positions) per frame, writer:close()" },
    { "tauform.cache.read_pc2(path) -> cache", "reads a PC2 back" },
    { "tauform.schema.validate(name, table) -> nil | message", "checks a table against this reference" },
    { "tauform.plot.figure{...} / tauform.plot.csv(path, columns)", "SVG plots and CSV tables for studies" },
  } },
}

local function fmt_num(v)
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 1e15 then return ("%d"):format(v) end
  return ("%.6g"):format(v)
end

local function fmt_value(v)
  if v == nil then return "" end
  if type(v) == "number" then return fmt_num(v) end
  if type(v) == "table" then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = fmt_value(x) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  if type(v) == "string" and v:sub(1, 1) ~= "(" and v:sub(1, 1) ~= "<" then return ("%q"):format(v) end
  return tostring(v)
end

-- a parameter's range in words: "> 0", "0..1", "(-1, 1)", "any"
local function param_range(p)
  local lo, hi = p.lo, p.hi
  if lo == -math.huge and hi == math.huge then return "any" end
  if hi == math.huge then return (p.lo_open and "> " or ">= ") .. fmt_num(lo) end
  if p.lo_open or p.hi_open then
    return (p.lo_open and "(" or "[") .. fmt_num(lo) .. ", " .. fmt_num(hi) .. (p.hi_open and ")" or "]")
  end
  return fmt_num(lo) .. ".." .. fmt_num(hi) .. (p.integer and " (whole)" or "")
end

local function type_words(f)
  local parts = {}
  for _, t in ipairs(f.type) do
    if t == "enum" then
      local q = {}
      for i, v in ipairs(f.values) do q[i] = ("%q"):format(v) end
      parts[#parts + 1] = table.concat(q, " or ")
    elseif t == "table" and (f.sub or f.subs) then
      local subs = f.subs or { f.sub }
      local links = {}
      for i, sname in ipairs(subs) do links[i] = ("[table](#%s)"):format(M.anchor(sname)) end
      parts[#parts + 1] = table.concat(links, " / ")
    elseif t == "array" and f.items then
      parts[#parts + 1] = ("list of [tables](#%s)"):format(M.anchor(f.items))
    elseif t == "table" and type(f.map) == "string" then
      parts[#parts + 1] = ("{ [name] = [table](#%s) }"):format(M.anchor(f.map))
    else
      parts[#parts + 1] = ({ number = "number", integer = "integer", string = "string", boolean = "boolean",
                             ["function"] = "function", table = "table", array = "list", mesh = "mesh",
                             vec3 = "{x, y, z}", frames = "{first, last}", matrix = "4x4 matrix" })[t]
    end
  end
  return table.concat(parts, " or ")
end

-- GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes
function M.anchor(title)
  return (title:lower():gsub("[^%w%s_-]", ""):gsub("%s", "-"))
end

local function esc(s) return (tostring(s):gsub("|", "\\|")) end

local function field_rows(out, def)
  out[#out + 1] = "| field | type | unit | default | bounds | keyed | |"
  out[#out + 1] = "|---|---|---|---|---|---|---|"
  for _, f in ipairs(def) do
    local p = f.param and P[f.param]
    local bounds = f.bounds or (p and param_range(p)) or ""
    local doc = f.doc or ""
    if p and f[1] ~= f.param then doc = doc .. (" (parameter `%s`)"):format(f.param) end
    if f.alias_of then doc = doc .. (" (alias of `%s`)"):format(f.alias_of) end
    if f.after then doc = doc .. " (set right after creation)" end
    if f.required then doc = doc .. " **required**" end
    out[#out + 1] = ("| `%s` | %s | %s | %s | %s | %s | %s |"):format(f[1], esc(type_words(f)), esc(f.unit or ""),
      esc(fmt_value(f.default)), esc(bounds), f.keyed and "yes" or "", esc(doc))
  end
end

local SECTIONS = {
  { "Constructors", { "tauform.cloth", "tauform.flesh", "flesh.materials[i]", "solver" } },
  { "Method options", { "render options", "sim:collider", "collider:set" } },
  { "Mesh helpers", { "tauform.mesh.grid", "tauform.mesh.disc", "tauform.mesh.ellipsoid", "tauform.mesh.box", "tauform.mesh.load_obj options" } },
  { "Rigs", { "rig", "rig.material (cloth)", "rig.material.stretch", "rig.material (flesh)", "rig.material.regions[name]", "rig.flesh",
              "rig.bend", "rig.plastic", "rig.plastic.yield", "rig.plastic.limit", "rig.plastic.bend_yield", "rig.plastic.bend_limit", "rig.tear", "rig.pins[i]", "rig.pins[i].rotate", "rig.pokes[i]", "rig.response",
              "rig.wind", "rig.wind.turbulence", "rig.wind.gust",
              "rig.contact", "rig.ground", "rig.colliders[i]" } },
  { "Running", { "tauform.run options" } },
}

-- plugin/docs/reference.md
function M.markdown()
  local out = {}
  local function add(s) out[#out + 1] = s end
  add("# tauform Lua reference")
  add("")
  add("<!-- Generated from lua/tauform/schema.lua (schema.markdown()); do not edit by hand. Regenerate with:")
  add("     LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/lua/?.so;;' \\")
  add("       lua5.4 -e 'io.write(require(\"tauform.schema\").markdown())' > plugin/docs/reference.md")
  add("     tests/spec/reference_spec.lua fails when this file differs from what the schema produces. -->")
  add("")
  add("Every function, method and table a Lua user writes, with units, defaults and bounds. Every table "
   .. "is checked against this reference before use: an unknown field is an error naming its path and "
   .. "the closest valid name, e.g.")
  add("")
  add("```")
  add("cape.lua: pins[1].weigth: unknown field (did you mean 'weight'?)")
  add("cape.lua: frames: expected {first, last} (two frame numbers), got string \"1-96\"")
  add("bad argument #1 to 'tauform.cloth' (stretch_stiffness: unknown field (did you mean 'stretch'? the C name stretch_stiffness is 'stretch' in Lua))")
  add("```")
  add("")
  add("Conventions:")
  add("")
  add("- Units are SI (m, kg, s); angles in rigs are degrees. Vectors are `{x, y, z}`; vertex arrays are flat "
   .. "`{x1, y1, z1, ...}` or nested `{{x, y, z}, ...}`; vertex numbers are 1-based.")
  add("- **keyed** fields (rigs) take a constant, a keyframe curve `tauform.key{ {frame, value}, ... }` or a "
   .. "`function(frame)` returning the value; a function's result is checked every frame.")
  add("- A parameter has one Lua name everywhere ([Parameters](#parameters)); its bounds are the library's "
   .. "and are checked when it is set. The C names (`stretch_stiffness`) are not accepted in Lua: using one "
   .. "is an error that names the Lua name. The rig's `wind` table keeps short names for its parameters "
   .. "(`density` for `air_density`, which it accepts too; `turbulence.amplitude` for `turbulence`, ...).")
  add("- Static tables are checked once (when created or loaded), not per frame.")
  add("")
  add("## Contents")
  add("")
  add("- [Functions and methods](#functions-and-methods)")
  add("- [Parameters](#parameters)")
  for _, sec in ipairs(SECTIONS) do
    add(("- [%s](#%s)"):format(sec[1], M.anchor(sec[1])))
    for _, name in ipairs(sec[2]) do add(("  - [%s](#%s)"):format(name, M.anchor(name))) end
  end
  add("- [Vertex groups of the helper meshes](#vertex-groups-of-the-helper-meshes)")
  add("- [Using a cache in Blender (Mesh Cache)](#using-a-cache-in-blender-mesh-cache)")
  add("")
  add("## Functions and methods")
  add("")
  for _, group in ipairs(M.functions) do
    add("### " .. group[1])
    add("")
    for _, fn in ipairs(group[2]) do add(("- `%s`: %s"):format(fn[1], fn[2])) end
    add("")
  end
  add("## Parameters")
  add("")
  add("The library's parameter table (`tauform.core.params`): the names `sim:set`, `sim:get`, the "
   .. "constructors and rigs use. Keyable parameters may change every frame.")
  add("")
  add("| name | C name | unit | default | range | keyable | cloth | flesh | |")
  add("|---|---|---|---|---|---|---|---|---|")
  local names = {}
  for n in pairs(P) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    local p = P[n]
    add(("| `%s` | `%s` | %s | %s | %s | %s | %s | %s | %s |"):format(n, p.c_name, esc(p.unit), esc(fmt_value(p.default)),
      esc(param_range(p)), p.keyable and "yes" or "", p.cloth and "yes" or "", p.flesh and "yes" or "", esc(p.doc)))
  end
  add("")
  add("In a rig: `tau`, `kappa`, `gravity`, `bend` at the top level; `stretch`, `poisson`, `youngs`, "
   .. "`pin_stiffness` in `material`; `wind`, `air_density`, `drag`, `lift`, `turbulence*`, `gust*` in "
   .. "`wind`; `thickness`, `friction` and `self_contact` (as `self`) in `contact`; `ground_normal`, `ground_height`, `ground_friction` "
   .. "as `normal`, `height`, `friction` in `ground`. `time` is the simulation's clock "
   .. "(`sim:set{ time = ... }`), which rigs leave alone.")
  add("")
  for _, sec in ipairs(SECTIONS) do
    add("## " .. sec[1])
    add("")
    for _, name in ipairs(sec[2]) do
      local def = M.tables[name]
      add("### " .. name)
      add("")
      add(def.doc)
      add("")
      if def.example then
        add("```lua")
        add(def.example)
        add("```")
        add("")
      end
      field_rows(out, def)
      add("")
    end
  end
  add("## Vertex groups of the helper meshes")
  add("")
  add("Rigs pin and map groups by name (`pins = { { group = \"row0\" } }`, `bend = { groups = { row0 = ... } }`).")
  add("")
  add("| helper | groups |")
  add("|---|---|")
  for _, name in ipairs({ "tauform.mesh.grid", "tauform.mesh.disc", "tauform.mesh.ellipsoid", "tauform.mesh.box" }) do
    add(("| `%s` | %s |"):format(name, "`" .. table.concat(M.tables[name].groups, "`, `") .. "`"))
  end
  add("| `tauform.mesh.load_obj` | the OBJ's `g`/`o` names and the lines of `<path>.groups` |")
  add("")
  add("## Using a cache in Blender (Mesh Cache)")
  add("")
  add("The runner writes a PC2 point cache (`--out shot.pc2`) and, beside it, the rest mesh as an OBJ "
   .. "(the same vertices in the same order). To play it in Blender:")
  add("")
  add("1. File > Import > Wavefront (.obj): the rest mesh written beside the cache. In the importer, keep "
   .. "the vertex order (Split by Object/Group off) and set Forward/Up to match the cache (tauform is Z up: "
   .. "Forward Y, Up Z).")
  add("2. Add Modifier > Deform > Mesh Cache on the imported object; Format **PC2**, File Path the `.pc2`.")
  add("3. Frame Start **1** (the cache's first frame plays at scene frame 1; use the rig's first frame to "
   .. "line up with a shot), Play Mode Scene. Scrub the timeline.")
  add("")
  add("A flesh rig's cache holds its skin (the surface's vertices); a flesh body without a skin caches its "
   .. "tet vertices. MDD (`--out shot.mdd`) loads the same way with Format MDD.")
  add("")
  return table.concat(out, "\n")
end

return M

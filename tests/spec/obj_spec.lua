-- SPDX-License-Identifier: MIT
-- The OBJ reader's refusals (non-finite or malformed numbers, bad face indices, each with
-- file:line), groups as sets (a vertex in a `g` group and the companion file is listed once, so
-- the group pins), polygons fanned into triangles, and the mesh helpers' refusals by name.
local tauform = require "tauform"
local mesh = tauform.mesh

local function tmpname(suffix)
  local n = os.tmpname()
  os.remove(n)
  return n .. suffix
end

local function write(path, s)
  local f = assert(io.open(path, "w"))
  f:write(s)
  f:close()
end

-- load `text` as an OBJ file; the error message with the temporary path replaced by "file.obj"
local function load_error(text)
  local path = tmpname(".obj")
  write(path, text)
  local ok, err = pcall(mesh.load_obj, path)
  os.remove(path)
  assert.is_false(ok, "loaded: " .. text)
  return (tostring(err):gsub(path:gsub("%p", "%%%0"), "file.obj"))
end

local TRI = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

describe("OBJ reader", function()
  it("refuses non-finite and malformed vertex numbers with file:line", function()
    assert.are.equal("file.obj:3: vertex coordinate 1e400 is not a finite number", load_error("v 0 0 0\nv 1 0 0\nv 1e400 0 0\nf 1 2 3\n"))
    assert.are.equal("file.obj:1: vertex coordinate -1e999 is not a finite number", load_error("v 0 -1e999 0\n"))
    assert.are.equal("file.obj:2: vertex coordinate nan is not a finite number", load_error("v 0 0 0\nv nan 0 0\n"))
    assert.are.equal("file.obj:1: vertex coordinate inf is not a finite number", load_error("v inf 0 0\n"))
    assert.are.equal("file.obj:1: vertex coordinate '3abc' is not a number", load_error("v 1 2 3abc\n"))
    assert.are.equal("file.obj:1: vertex coordinate '0x10' is not a decimal number", load_error("v 0x10 0 0\n"))
    assert.are.equal("file.obj:1: vertex needs three numbers", load_error("v 1 2\n"))
    assert.are.equal("file.obj:1: vertex has 5 numbers (x y z, x y z w or x y z r g b)", load_error("v 1 2 3 4 5\n"))
    assert.are.equal("file.obj:1: vertex colour 1e400 is not a finite number", load_error("v 1 2 3 1 1e400 0\n"))
  end)

  it("accepts the numbers OBJ writers produce", function()
    local path = tmpname(".obj")
    write(path, "v -1.5e-3 +2. .25\nv 1 0 0 1\nv 0 1 0 0.5 0.5 0.5 # colour\nf 1 2 3\n")
    local m = mesh.load_obj(path)
    os.remove(path)
    assert.are.same({ -1.5e-3, 2, 0.25, 1, 0, 0, 0, 1, 0 }, m.vertices)
  end)

  it("refuses bad face indices with file:line", function()
    assert.are.equal("file.obj:4: face index 0: OBJ vertex numbers start at 1 (negative ones count back from the last vertex)",
                     load_error(TRI .. "f 1 2 0\n"))
    assert.are.equal("file.obj:4: face index 4 out of range 1..3", load_error(TRI .. "f 1 2 4\n"))
    assert.are.equal("file.obj:4: face index -4 reaches before the first vertex (3 read so far)", load_error(TRI .. "f -1 -2 -4\n"))
    assert.are.equal("file.obj:4: bad face index '1.5' (expected an integer vertex number)", load_error(TRI .. "f 1.5 2 3\n"))
    assert.are.equal("file.obj:4: bad face index 'a' (expected an integer vertex number)", load_error(TRI .. "f a 2 3\n"))
    assert.are.equal("file.obj:4: bad face index '2/x' (texture and normal indices are integers)", load_error(TRI .. "f 1 2/x 3\n"))
    assert.are.equal("file.obj:4: face uses vertex 2 twice", load_error(TRI .. "f 1 2 2\n"))
    assert.are.equal("file.obj:4: a face needs at least 3 vertices", load_error(TRI .. "f 1 2\n"))
  end)

  it("reads negative (relative) indices and v/vt/vn corners", function()
    local path = tmpname(".obj")
    write(path, TRI .. "vt 0 0\nvn 0 0 1\nf -3/1/1 -2//1 -1/1\n")
    local m = mesh.load_obj(path)
    os.remove(path)
    assert.are.same({ 1, 2, 3 }, m.triangles)
  end)

  it("fans quads and n-gons into triangles from their first corner", function()
    local path = tmpname(".obj")
    write(path, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0.5 0\nf 1 2 3 4 5\n")
    local m = mesh.load_obj(path)
    os.remove(path)
    assert.are.same({ 1, 2, 3, 1, 3, 4, 1, 4, 5 }, m.triangles)
  end)

  it("keeps groups as sets: a vertex in a g group and the .groups file is listed once, and the group pins", function()
    local path = tmpname(".obj")
    write(path, "v 0 0 1\nv 1 0 1\nv 1 0 0\nv 0 0 0\ng top\nf 1 2 3\nf 1 3 4\n")
    write(path .. ".groups", "top: 2 1 4 1\nedge: 3 3 2\n")
    local m = mesh.load_obj(path)
    assert.are.same({ 1, 2, 3, 4 }, m.groups.top)  -- faces' order first, then the file's new ones
    assert.are.same({ 3, 2 }, m.groups.edge)
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles }
    sim:pin(mesh.group(m, "top"))               -- "vertex 1 is pinned twice" before groups were sets
    local rig = tauform.rig.load{ mesh = path, frames = { 1, 3 }, pins = { { group = "edge" } } }
    local rsim <close> = rig:create()
    os.remove(path); os.remove(path .. ".groups")
  end)

  it("names the group file's line for a vertex the mesh does not have", function()
    local path = tmpname(".obj")
    write(path, TRI .. "f 1 2 3\n")
    write(path .. ".groups", "# pins\n\nleft: 1 9\n")
    local ok, err = pcall(mesh.load_obj, path)
    assert.is_false(ok)
    assert.are.equal(path .. ".groups:3: group 'left' names vertex 9, the mesh has 3", err)
    write(path .. ".groups", "left: 1 -2\n")
    ok, err = pcall(mesh.load_obj, path)
    assert.are.equal(path .. ".groups:1: '-2' is not a vertex number (1, 2, ...)", err)
    os.remove(path .. ".groups")
    ok, err = pcall(mesh.load_obj, path, { groups = path .. ".missing" })
    assert.is_false(ok)
    assert.matches("cannot open the group file", err)
    os.remove(path)
  end)
end)

describe("mesh helpers", function()
  -- the message names the helper and the field (the schema's words for keys, types and bounds;
  -- the helper's own for what a schema cannot say: finite sizes, vertex counts, parallel axes)
  local function refuses(f, text)
    local ok, err = pcall(f)
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find(text, 1, true), ("expected %q in %q"):format(text, tostring(err)))
  end

  it("refuse NaN, infinite, non-integer and out-of-range counts by name", function()
    refuses(function() mesh.disc{ rings = 0 / 0 } end, "'tauform.mesh.disc' (rings: expected a whole number, got NaN)")
    refuses(function() mesh.disc{ rings = 0 } end, "'tauform.mesh.disc' (rings: must be a whole number >= 1, got 0)")
    refuses(function() mesh.disc{ segments = 2 } end, "(segments: must be a whole number >= 3, got 2)")
    refuses(function() mesh.disc{ segments = math.huge } end, "mesh.disc: segments must be an integer >= 3 (got inf)")
    refuses(function() mesh.grid{ nx = 2.5 } end, "'tauform.mesh.grid' (nx: expected a whole number, got number 2.5)")
    refuses(function() mesh.grid{ ny = "4" } end, "(ny: expected a whole number, got string \"4\")")
    refuses(function() mesh.grid{ nx = 100000, ny = 100000 } end,
            "mesh.grid: nx = 100000 and ny = 100000 make 10000200001 vertices, more than 16777216")
    refuses(function() mesh.ellipsoid{ rings = 1 } end, "(rings: must be a whole number >= 2, got 1)")
    refuses(function() mesh.ellipsoid{ segments = -1 / 0 } end, "(segments: must be a whole number >= 3, got -inf)")
    assert.are.equal(9 * 3, #mesh.grid{ nx = 2.0, ny = 2 }.vertices) -- an integral float is a count
  end)

  it("refuse non-finite and non-positive sizes, and bad vectors, by name", function()
    refuses(function() mesh.grid{ width = 0 / 0 } end, "mesh.grid: width must be a positive finite number (got NaN)")
    refuses(function() mesh.grid{ height = -1 } end, "mesh.grid: height must be a positive finite number (got -1)")
    refuses(function() mesh.grid{ origin = { 0, 1 / 0, 0 } } end, "mesh.grid: origin[2] must be a finite number (got inf)")
    refuses(function() mesh.grid{ u = { 1, 0, 0 }, v = { 2, 0, 0 } } end, "mesh.grid: u and v must be non-zero and not parallel")
    refuses(function() mesh.grid{ v = { 0, 1 } } end, "(v: expected {x, y, z}, got {0, 1})")
    refuses(function() mesh.disc{ radius = math.huge } end, "mesh.disc: radius must be a positive finite number (got inf)")
    refuses(function() mesh.disc{ center = { 0, 0, 0 / 0 } } end, "mesh.disc: center[3] must be a finite number (got NaN)")
    refuses(function() mesh.ellipsoid{ radii = { 1, 0, 1 } } end, "mesh.ellipsoid: radii[2] must be a positive finite number (got 0)")
    refuses(function() mesh.disc{ radius = 1, ring = 4 } end, "(ring: unknown field (did you mean 'rings'?))")
  end)
end)

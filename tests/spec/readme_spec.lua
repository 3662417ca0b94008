-- SPDX-License-Identifier: MIT
-- The README's code runs as written: every ```lua block is loaded and run on its own (a block
-- that returns a rig table is loaded with tauform.rig.load, created and run for a few frames), and
-- the ```c block is compiled against the public header, linked with this build's library and run.
-- A block that cannot run alone must say so on its first line (`-- not runnable: why`); there are
-- at most MAX_NOT_RUNNABLE of them.
local tauform = require "tauform"

local MAX_NOT_RUNNABLE = 1

local root = (debug.getinfo(1, "S").source:match("^@(.*)/tests/spec/[^/]*$")) or "."
local readme_path = root .. "/README.md"

-- the fenced blocks of one language: { line = first code line, code = text }
local function blocks(lang)
  local out, cur = {}, nil
  local n = 0
  for line in io.lines(readme_path) do
    n = n + 1
    if cur then
      if line:match("^```%s*$") then
        out[#out + 1] = cur
        cur = nil
      else
        cur.code = cur.code .. line .. "\n"
      end
    elseif line:match("^```" .. lang .. "%s*$") then
      cur = { line = n + 1, code = "" }
    end
  end
  assert(cur == nil, "README.md: unterminated ```" .. lang .. " block")
  return out
end

-- the build directory: where the tauform module this spec loaded lives (<build>/lua/tauform.so)
local function build_dir()
  local path = package.searchpath("tauform.core", package.cpath) or package.searchpath("tauform", package.cpath)
  return path and path:match("^(.*)/lua/[^/]*$")
end

local function run(cmd)
  local ok, how, code = os.execute(cmd)
  return ok == true and how == "exit" and code == 0
end

describe("README", function()
  local lua_blocks = blocks("lua")
  local not_runnable = 0

  it("has Lua examples, few of them marked not runnable", function()
    assert.is_true(#lua_blocks >= 3, "expected the cloth, flesh and rig examples")
    for _, b in ipairs(lua_blocks) do
      if b.code:match("^%-%- not runnable:") then not_runnable = not_runnable + 1 end
    end
    assert.is_true(not_runnable <= MAX_NOT_RUNNABLE,
                   ("%d Lua blocks marked '-- not runnable:', at most %d allowed"):format(not_runnable, MAX_NOT_RUNNABLE))
  end)

  for _, b in ipairs(lua_blocks) do
    if not b.code:match("^%-%- not runnable:") then
      it("runs the Lua block at README.md:" .. b.line, function()
        local env = setmetatable({}, { __index = _G })
        local chunk, err = load(b.code, "@README.md:" .. b.line, "t", env)
        assert(chunk, err)
        local real_print = print
        env.print = function() end -- the examples may print; keep the test output clean
        local ok, res = pcall(chunk)
        env.print = real_print
        assert(ok, res)
        if type(res) == "table" and (res.mesh or res.flesh) then
          -- a rig file: load it, create its simulation, step its first frames
          local rig = tauform.rig.load(res, { name = "README.md:" .. b.line })
          local sim <close> = rig:create()
          local first = rig.frames[1]
          for f = first + 1, first + 3 do
            rig:apply(sim, f)
            assert(sim:advance(1 / (res.fps or 24), res.substeps or 1))
          end
          assert.are.equal(#res.mesh.vertices, #sim:positions())
        end
      end)
    end
  end

  it("C block compiles against tauform.h, links and runs", function()
    local c_blocks = blocks("c")
    assert.are.equal(1, #c_blocks, "one ```c block expected")
    local cc = os.getenv("CC") or "cc"
    if not run(cc .. " --version >/dev/null 2>&1") then
      pending("no C compiler (" .. cc .. ")")
      return
    end
    local build = build_dir()
    assert(build, "cannot tell the build directory from package.cpath")
    local base = os.tmpname()
    local src, exe, log = base .. ".c", base .. ".exe", base .. ".log"
    local f = assert(io.open(src, "w"))
    f:write(("#line %d \"README.md\"\n"):format(c_blocks[1].line), c_blocks[1].code)
    f:close()
    local compiled = run(("%s -std=c99 -Wall -Wextra -Werror -pedantic -I'%s/plugin/include' '%s' -o '%s' " ..
                          "-L'%s' -ltauform -Wl,-rpath,'%s' >'%s' 2>&1"):format(cc, root, src, exe, build, build, log))
    local msg = io.open(log):read("a")
    local ran = compiled and run(("'%s' >'%s' 2>&1"):format(exe, log))
    local out = io.open(log):read("a")
    os.remove(src)
    os.remove(exe)
    os.remove(log)
    os.remove(base)
    assert(compiled, "README's C block does not compile:\n" .. msg)
    assert(ran, "README's C block failed when run:\n" .. out)
    assert.truthy(out:match("bottom corner"), out)
  end)
end)

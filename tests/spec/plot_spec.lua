-- SPDX-License-Identifier: MIT
-- The plotting helper writes SVG that parses as XML, with one polyline per series, and CSV with
-- a header row.
local tauform = require "tauform"

-- a small XML well-formedness check: every element closes in order, attributes are quoted
local function parse_xml(s)
  local stack, count = {}, {}
  s = s:gsub("<%?.-%?>", "")
  for slash, name, attrs, selfclose in s:gmatch("<(/?)([%w:_-]+)(.-)(/?)>") do
    if slash == "/" then
      local top = table.remove(stack)
      if top ~= name then return nil, ("</%s> closes <%s>"):format(name, tostring(top)) end
    else
      local stripped = attrs:gsub('%s+[%w:_-]+="[^"]*"', "")
      if stripped:match("%S") then return nil, ("bad attributes in <%s>: %s"):format(name, stripped) end
      count[name] = (count[name] or 0) + 1
      if selfclose ~= "/" then stack[#stack + 1] = name end
    end
  end
  if #stack > 0 then return nil, "unclosed <" .. stack[#stack] .. ">" end
  return count
end

describe("plot", function()
  it("draws a run that blew up (inf, nan) at the edge of a given y range, the others on scale", function()
    local x, ok_run, bad = {}, {}, {}
    for i = 1, 20 do x[i] = i; ok_run[i] = 1 / i; bad[i] = i < 10 and 10 ^ (i * 40) or (i < 15 and math.huge or 0 / 0) end
    local svg = tauform.plot.figure{ series = { { x = x, y = ok_run }, { x = x, y = bad } }, ymax = 1.2 }
    local count = assert(parse_xml(svg))
    assert.are.equal(2, count.polyline)
    assert.is_nil(svg:find("inf") or svg:find("nan"))
    -- the tick labels stay on the finite runs' scale
    assert.is_truthy(svg:find(">1.2<", 1, true) or svg:find(">1<", 1, true))
  end)

  it("writes SVG with one polyline per series", function()
    local path = os.tmpname() .. ".svg"
    local x = {}
    for i = 1, 50 do x[i] = (i - 1) * 0.1 end
    local function f(k) local y = {}; for i, t in ipairs(x) do y[i] = math.exp(-k * t) end; return y end
    tauform.plot.figure{ path = path, panels = {
      { title = "a < b & c", xlabel = "time (s)", ylabel = "d1", series = { { x = x, y = f(1), label = "tau = 1" }, { x = x, y = f(4), label = "tau = 4", dash = "6 3" } } },
      { title = "(b)", series = { { x = x, y = f(2), label = "Lambda = 2" } } } } }
    local fh = assert(io.open(path))
    local svg = fh:read("a")
    fh:close()
    local count, err = parse_xml(svg)
    assert.is_truthy(count, err)
    assert.are.equal(1, count.svg)
    assert.are.equal(3, count.polyline)
    assert.matches("a &lt; b &amp; c", svg) -- text is escaped
    os.remove(path)
    -- the checker itself fails on broken XML
    assert.is_nil(parse_xml("<svg><g></svg>"))
  end)

  it("writes CSV with a header", function()
    local path = os.tmpname() .. ".csv"
    tauform.plot.csv(path, { { "t", { 0, 0.5 } }, { "d1", { 1, 0.25, 7 } } })
    local fh = assert(io.open(path))
    assert.are.equal("t,d1", fh:read("l"))
    assert.are.equal("0,1", fh:read("l"))
    assert.are.equal("0.5,0.25", fh:read("l"))
    assert.are.equal(",7", fh:read("l"))
    fh:close()
    os.remove(path)
  end)
end)

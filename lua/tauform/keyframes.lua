-- SPDX-License-Identifier: MIT
-- Keyframe curves for rig parameters. A curve is built from keys {time, value, interp = ...,
-- ease = ...}: the segment from one key to the next uses the interpolation of its left key:
--   "constant"  holds the left value (a step at the next key)
--   "linear"    straight line
--   "smooth"    monotone cubic Hermite (Fritsch & Carlson 1980): C1, and never overshoots the
--               key values, so a tau keyed from 0.2 to 2 never goes negative (the default);
--               flat at the first and last key, where the curve starts and stops holding
-- ease = "in" | "out" | "in_out" reshapes the segment's parameter (quadratic in/out,
-- smoothstep), starting or stopping it with zero slope. Values are numbers or tables of
-- numbers (vectors, interpolated per component). Before the first key and after the last the
-- curve holds the end values. curve(t) evaluates, curve:slope(t) is the derivative d value/dt.
-- Key times and values must be finite numbers (a NaN or infinite one is refused naming the key:
-- "keyframes: key 2: value is NaN"), and times strictly increasing.
local M = {}

local EASE = {
  ["in"] = function(u) return u * u, 2 * u end,
  out = function(u) return u * (2 - u), 2 - 2 * u end,
  in_out = function(u) return u * u * (3 - 2 * u), 6 * u * (1 - u) end,
}
local INTERP = { constant = true, linear = true, smooth = true }

local function is_vector(v) return type(v) == "table" end

-- nil for a finite number, else how to name it
local function not_finite(v)
  if v ~= v then return "NaN" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  return nil
end

-- Fritsch-Carlson tangents for one scalar component c of the keys
local function monotone_tangents(times, vals)
  local n = #times
  local m, d = {}, {}
  for i = 1, n - 1 do d[i] = (vals[i + 1] - vals[i]) / (times[i + 1] - times[i]) end
  if n == 1 then return { 0 } end
  -- zero slope at the first and last key: the curve holds outside them, so it stays C1 there too
  m[1], m[n] = 0, 0
  for i = 2, n - 1 do
    if d[i - 1] * d[i] <= 0 then m[i] = 0 else m[i] = (d[i - 1] + d[i]) / 2 end
  end
  for i = 1, n - 1 do
    if d[i] == 0 then
      m[i], m[i + 1] = 0, 0
    else
      local a, b = m[i] / d[i], m[i + 1] / d[i]
      local s = a * a + b * b
      if s > 9 then
        local t = 3 / math.sqrt(s)
        m[i], m[i + 1] = t * a * d[i], t * b * d[i]
      end
    end
  end
  return m
end

local Curve = {}
Curve.__index = Curve

-- value and slope of component c at t
local function eval_component(self, c, t)
  local k, n = self.keys, #self.keys
  local function get(i) local v = k[i].value; if self.dim then return v[c] end return v end
  if t <= k[1].time then return get(1), 0 end
  if t >= k[n].time then return get(n), 0 end
  -- binary search for the segment
  local lo, hi = 1, n
  while hi - lo > 1 do
    local mid = (lo + hi) // 2
    if k[mid].time <= t then lo = mid else hi = mid end
  end
  local a, b = k[lo], k[hi]
  local h = b.time - a.time
  local u, du = (t - a.time) / h, 1 / h
  if a.ease then
    local e, de = EASE[a.ease](u)
    u, du = e, de * du
  end
  local y0, y1 = get(lo), get(hi)
  if a.interp == "constant" then return y0, 0 end
  if a.interp == "linear" then return y0 + (y1 - y0) * u, (y1 - y0) * du end
  local m = self.tangents[c]
  local m0, m1 = m[lo] * h, m[hi] * h
  local u2, u3 = u * u, u * u * u
  local h00, h10, h01, h11 = 2 * u3 - 3 * u2 + 1, u3 - 2 * u2 + u, -2 * u3 + 3 * u2, u3 - u2
  local d00, d10, d01, d11 = 6 * u2 - 6 * u, 3 * u2 - 4 * u + 1, -6 * u2 + 6 * u, 3 * u2 - 2 * u
  return h00 * y0 + h10 * m0 + h01 * y1 + h11 * m1, (d00 * y0 + d10 * m0 + d01 * y1 + d11 * m1) * du
end

function Curve:__call(t)
  if not self.dim then return (eval_component(self, 1, t)) end
  local out = {}
  for c = 1, self.dim do out[c] = (eval_component(self, c, t)) end
  return out
end

function Curve:slope(t)
  if not self.dim then return select(2, eval_component(self, 1, t)) end
  local out = {}
  for c = 1, self.dim do out[c] = select(2, eval_component(self, c, t)) end
  return out
end

function Curve:range() return self.keys[1].time, self.keys[#self.keys].time end

-- curve{ {t, v}, {t, v, interp = "linear", ease = "in_out"}, ..., interp = default }
function M.curve(spec, level)
  level = (level or 1) + 1
  if type(spec) ~= "table" or #spec == 0 then error("keyframes: a curve needs at least one key {time, value}", level) end
  local default = spec.interp or "smooth"
  if not INTERP[default] then error(("keyframes: unknown interpolation '%s'"):format(tostring(default)), level) end
  local keys, dim = {}, nil
  for i, key in ipairs(spec) do
    if type(key) ~= "table" or type(key[1]) ~= "number" or key[2] == nil then
      error(("keyframes: key %d must be {time, value}"):format(i), level)
    end
    local bad = not_finite(key[1])
    if bad then error(("keyframes: key %d: time is %s"):format(i, bad), level) end
    local v = key[2]
    if is_vector(v) then
      if dim == nil and i == 1 then dim = #v end
      if dim == nil or #v ~= dim then error(("keyframes: key %d has %d components, key 1 has %s"):format(i, #v, tostring(dim)), level) end
      for c = 1, dim do
        if type(v[c]) ~= "number" then error(("keyframes: key %d component %d is not a number"):format(i, c), level) end
        bad = not_finite(v[c])
        if bad then error(("keyframes: key %d: value component %d is %s"):format(i, c, bad), level) end
      end
    elseif type(v) ~= "number" or dim ~= nil then
      error(("keyframes: key %d value must be a number%s"):format(i, dim and " table like key 1" or ""), level)
    else
      bad = not_finite(v)
      if bad then error(("keyframes: key %d: value is %s"):format(i, bad), level) end
    end
    local interp = key.interp or default
    if not INTERP[interp] then error(("keyframes: key %d: unknown interpolation '%s'"):format(i, tostring(interp)), level) end
    if key.ease and not EASE[key.ease] then error(("keyframes: key %d: unknown ease '%s'"):format(i, tostring(key.ease)), level) end
    if i > 1 and key[1] == keys[i - 1].time then
      error(("keyframes: key %d time %g is not after key %d (two keys at one time)"):format(i, key[1], i - 1), level)
    end
    if i > 1 and key[1] < keys[i - 1].time then
      error(("keyframes: key %d time %g is not after key %d (time %g): keys go in increasing time"):format(i, key[1], i - 1, keys[i - 1].time), level)
    end
    keys[i] = { time = key[1], value = v, interp = interp, ease = key.ease }
  end
  local self = setmetatable({ keys = keys, dim = dim, tangents = {} }, Curve)
  local times = {}
  for i, k in ipairs(keys) do times[i] = k.time end
  for c = 1, dim or 1 do
    local vals = {}
    for i, k in ipairs(keys) do vals[i] = dim and k.value[c] or k.value end
    self.tangents[c] = monotone_tangents(times, vals)
  end
  return self
end

function M.is_curve(x) return getmetatable(x) == Curve end

-- value of a rig parameter at time t: a curve, a function of t, or a constant
function M.sample(x, t)
  if getmetatable(x) == Curve then return x(t) end
  if type(x) == "function" then return x(t) end
  return x
end

return M

-- SPDX-License-Identifier: MIT
-- Keyframe curves: values at and between keys, tangents, easing, before and after the range,
-- vectors, and the errors a rig author gets.
local K = require "tauform.keyframes"

local function near(a, b, tol) assert.is_true(math.abs(a - b) <= (tol or 1e-12), ("%.17g vs %.17g"):format(a, b)) end

describe("keyframes", function()
  it("hits every key and holds outside the range", function()
    local c = K.curve{ { 1, 0.2 }, { 10, 1.0 }, { 20, 0.5 } }
    near(c(1), 0.2); near(c(10), 1.0); near(c(20), 0.5)
    near(c(-5), 0.2); near(c(100), 0.5)
    near(c:slope(-5), 0); near(c:slope(100), 0)
    assert.are.same({ 1, 20 }, { c:range() })
  end)

  it("interpolates constant and linear segments", function()
    local c = K.curve{ { 0, 0, interp = "constant" }, { 10, 10, interp = "linear" }, { 20, 0 } }
    near(c(5), 0); near(c(9.999), 0); near(c(10), 10)
    near(c(15), 5); near(c:slope(15), -1)
  end)

  it("smooth: C1 at keys, and monotone between them (no overshoot)", function()
    local c = K.curve{ { 0, 0.1 }, { 10, 2.0 }, { 12, 2.0 }, { 30, 0.3 } }
    for t = 0, 30, 0.05 do
      local v = c(t)
      assert.is_true(v >= 0.1 - 1e-12 and v <= 2.0 + 1e-12, ("overshoot at %g: %g"):format(t, v))
    end
    -- slope continuous across a key: left and right finite differences agree with slope()
    local h = 1e-6
    local left, right = (c(10) - c(10 - h)) / h, (c(10 + h) - c(10)) / h
    assert.is_true(math.abs(left - right) < 1e-4)
    -- slope() matches finite differences inside a segment
    near(c:slope(5), (c(5 + h) - c(5 - h)) / (2 * h), 1e-6)
    -- flat between equal keys, and at the first and last key (C1 into the held ends)
    near(c(11), 2.0)
    near(c:slope(0), 0); near(c:slope(30), 0)
  end)

  it("eases in and out", function()
    local c = K.curve{ { 0, 0, interp = "linear", ease = "in_out" }, { 10, 1 } }
    near(c:slope(0), 0); near(c:slope(10), 0); near(c(5), 0.5)
    local i = K.curve{ { 0, 0, interp = "linear", ease = "in" }, { 10, 1 } }
    near(i:slope(0), 0); near(i(5), 0.25)
    local o = K.curve{ { 0, 0, interp = "linear", ease = "out" }, { 10, 1 } }
    near(o:slope(10), 0); near(o(5), 0.75)
  end)

  it("interpolates vectors per component", function()
    local c = K.curve{ { 0, { 0, 0, 0 }, interp = "linear" }, { 4, { 4, -8, 2 } } }
    assert.are.same({ 1, -2, 0.5 }, c(1))
    assert.are.same({ 1, -2, 0.5 }, c:slope(2))
  end)

  it("samples numbers, curves and functions alike", function()
    near(K.sample(3, 7), 3)
    near(K.sample(function(t) return 2 * t end, 7), 14)
    near(K.sample(K.curve{ { 0, 1 } }, 7), 1)
  end)

  it("reports bad keys", function()
    assert.has_error(function() K.curve{} end, "keyframes: a curve needs at least one key {time, value}")
    assert.has_error(function() K.curve{ { 1, 0 }, { 1, 2 } } end, "keyframes: key 2 time 1 is not after key 1 (two keys at one time)")
    assert.has_error(function() K.curve{ { 1, 0 }, { 5, 2 }, { 3, 1 } } end,
                     "keyframes: key 3 time 3 is not after key 2 (time 5): keys go in increasing time")
    assert.has_error(function() K.curve{ { 1, 0 }, { 2, 0 / 0 } } end, "keyframes: key 2: value is NaN")
    assert.has_error(function() K.curve{ { 1, 0 }, { 2, -math.huge } } end, "keyframes: key 2: value is -inf")
    assert.has_error(function() K.curve{ { 0 / 0, 0 } } end, "keyframes: key 1: time is NaN")
    assert.has_error(function() K.curve{ { 1, 0 }, { math.huge, 1 } } end, "keyframes: key 2: time is inf")
    assert.has_error(function() K.curve{ { 1, { 0, 0, 0 } }, { 2, { 0, 0 / 0, 0 } } } end, "keyframes: key 2: value component 2 is NaN")
    assert.has_error(function() K.curve{ { 1, 0, interp = "cubic" } } end, "keyframes: key 1: unknown interpolation 'cubic'")
    assert.has_error(function() K.curve{ { 1, 0, ease = "wobble" } } end, "keyframes: key 1: unknown ease 'wobble'")
    assert.has_error(function() K.curve{ { 1, { 0, 0 } }, { 2, { 1, 1, 1 } } } end, "keyframes: key 2 has 3 components, key 1 has 2")
  end)
end)

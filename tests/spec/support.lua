-- SPDX-License-Identifier: MIT
-- What several specs share (found on the spec path: tests/CMakeLists.txt and .ci/lua-sanitize
-- put tests/spec on busted's --lpath).
local M = {}

-- a fresh temporary path with the given suffix (the name os.tmpname made, that file removed)
function M.tmpname(suffix)
  local n = os.tmpname()
  os.remove(n)
  return n .. suffix
end

return M

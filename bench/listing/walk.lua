-- wrk script of the listing walk (bench/listing/walk.mjs): each connection walks a listing page by
-- page, following the rel="next" URL of the link header as an app syncing a catalog does, and starts
-- the next walk when one ends. The walks are read from the file named by the first argument, one a
-- line: "<path>\t<authorization or ->\t<pages at most>". Each walk gets a host name of its own,
-- w<n>.walk.test (the servers build their links with the request's host), which is how a response
-- is matched to its walk. wrk runs response() for a connection's answer before that connection's
-- next request(), so the continuation a response pushes is what the same connection sends next.

local templates = {}
local queue = {}
local walks = {}
local started = 0
local thread_index = 1
local counter = 1

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
end

function init(args)
  thread_index = index or 1
  for line in io.lines(args[1]) do
    local path, auth, pages = line:match("^([^\t]+)\t([^\t]+)\t(%d+)$")
    if path then table.insert(templates, { path = path, auth = auth, pages = tonumber(pages) }) end
  end
  -- The two threads start half the list apart, so walks of one template rarely overlap.
  started = math.floor(#templates / 2) * (thread_index - 1)
end

local function headers_for(walk, host)
  local h = { Host = host }
  if walk.auth ~= "-" then h["Authorization"] = walk.auth end
  return h
end

function request()
  local item = table.remove(queue)
  if item == nil then
    started = started + 1
    local template = templates[(started - 1) % #templates + 1]
    local id = thread_index * 1000000 + started
    local walk = { auth = template.auth, left = template.pages }
    walks[id] = walk
    item = { path = template.path, host = "w" .. id .. ".walk.test", walk = walk }
  end
  return wrk.format("GET", item.path, headers_for(item.walk, item.host))
end

function response(status, headers, body)
  local link = headers["link"] or headers["Link"]
  if link == nil then return end
  local url = link:match('<([^>]*)>; rel="next"')
  if url == nil then return end
  local host, path = url:match("^https?://([^/]+)(/.*)$")
  local id = tonumber(host:match("^w(%d+)%."))
  local walk = walks[id]
  if walk == nil then return end
  walk.left = walk.left - 1
  if walk.left <= 0 then
    walks[id] = nil
    return
  end
  table.insert(queue, { path = path, host = host, walk = walk })
end

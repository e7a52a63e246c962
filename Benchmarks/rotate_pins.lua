-- wrk script: polls the waiting rooms of many groups in turn, so the in-memory group state is
-- often stale and read again (the realistic case of many groups, each polled now and then).
-- PINS_FILE names a file with one PIN per line.
local pins = {}
for pin in io.lines(os.getenv("PINS_FILE")) do pins[#pins + 1] = pin end
local counter = math.random(#pins)

request = function()
  counter = counter + 1
  return wrk.format("GET", "/group/" .. pins[(counter % #pins) + 1] .. "/gameresultwait?token=load-device-token-000001")
end

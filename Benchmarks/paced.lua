-- wrk script: each connection is a shopper who waits THINK_MS (default 50) between requests,
-- so latency is measured at a steady load instead of at saturation.
local think = tonumber(os.getenv("THINK_MS") or "50")

function delay()
  return think
end

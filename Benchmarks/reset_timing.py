#!/usr/bin/env python3
"""Does "forgot password" tell who is registered? Starts the server (WHATWEEAT_BIN, default the
release build) on a fresh data folder, makes one account, then asks for resets of that address and
of unknown ones, interleaved at random, on one keep-alive connection each; prints the answers'
bytes (identical or not) and the latency of each kind beside `/healthz` measured the same way in
the same run. usage: Benchmarks/reset_timing.py [requests-per-kind]"""
import http.client, json, os, random, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("WHATWEEAT_BIN", os.path.join(ROOT, ".build/release/whatweeat"))
COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 300


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(connection, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    started = time.perf_counter()
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    return time.perf_counter() - started, response.status, payload


def summary(seconds):
    ms = sorted(s * 1000 for s in seconds)
    return {"median": statistics.median(ms), "p90": ms[int(len(ms) * 0.9)], "mean": statistics.fmean(ms)}


def main():
    data = tempfile.mkdtemp(prefix="whatweeat-reset-timing.")
    port = free_port()
    env = dict(os.environ, DATA_DIR=data, PORT=str(port), LOG_LEVEL="error", BCRYPT_COST="4",
               PASSWORD_RESETS_PER_HOUR="1000000", AUTH_ATTEMPTS_PER_MINUTE="1000000")
    server = subprocess.Popen([BINARY, "serve"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                if request(probe, "GET", "/healthz")[1] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        _, status, _ = request(connection, "POST", "/api/v1/auth/signup",
                               {"email": "known@example.com", "password": "password1", "nickname": "timing"})
        assert status == 201, status
        kinds = ["healthz", "known", "unknown"] * COUNT
        random.shuffle(kinds)
        for _ in range(50):  # warm-up
            request(connection, "POST", "/api/v1/auth/password-reset", {"email": "warm@example.com"})
        times, bodies = {"healthz": [], "known": [], "unknown": []}, {"known": set(), "unknown": set()}
        for index, kind in enumerate(kinds):
            if kind == "healthz":
                seconds, status, _ = request(connection, "GET", "/healthz")
            else:
                # The same address each time for the account; a fresh unknown one each time (no cache helps).
                email = "known@example.com" if kind == "known" else f"nobody{index}@example.com"
                seconds, status, payload = request(connection, "POST", "/api/v1/auth/password-reset", {"email": email})
                assert status == 202, (status, payload)
                bodies[kind].add(payload)
            times[kind].append(seconds)
        identical = len(bodies["known"] | bodies["unknown"]) == 1
        base = summary(times["healthz"])
        print(f"binary {BINARY}; {COUNT} requests of each kind, interleaved at random on one connection")
        print(f"answers byte-identical for known and unknown addresses: {identical}")
        print("| request | median ms | p90 ms | mean ms | median ÷ /healthz median |")
        print("|---|---:|---:|---:|---:|")
        for kind, label in (("healthz", "`GET /healthz`"), ("known", "reset, an account's address"), ("unknown", "reset, an unknown address")):
            s = summary(times[kind])
            print(f"| {label} | {s['median']:.3f} | {s['p90']:.3f} | {s['mean']:.3f} | {s['median'] / base['median']:.2f}× |")
        known, unknown = summary(times["known"]), summary(times["unknown"])
        print(f"known ÷ unknown: median {known['median'] / unknown['median']:.3f}, mean {known['mean'] / unknown['mean']:.3f}")
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", data])


if __name__ == "__main__":
    main()

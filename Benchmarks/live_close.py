"""Live-room latency: N players hold the group's WebSocket; the host closes the game over HTTP;
each player's delay is from just before the close request is sent to the moment its socket
delivers {"type":"closed"}. Repeated over several groups; prints one Markdown table row.

    python3 live_close.py http://127.0.0.1:8080 [players=100] [groups=20]
"""
import asyncio
import json
import statistics
import sys
import time
import urllib.request

import websockets


def post(url, headers=None):
    request = urllib.request.Request(url, method="POST", headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()


async def one_group(base, players):
    host = f"live-host-{time.time_ns()}-token"
    pin = json.loads(post(f"{base}/api/v1/menu-game/groups", {"X-Device-Token": host}))["pin"]
    ws_base = base.replace("http://", "ws://")
    sockets = [await websockets.connect(f"{ws_base}/api/v1/menu-game/groups/{pin}/live") for _ in range(players)]
    for socket in sockets:  # each first receives the room's state
        json.loads(await socket.recv())
    received = []

    async def wait_closed(socket):
        while True:
            message = json.loads(await socket.recv())
            if message.get("type") == "closed":
                received.append(time.perf_counter())
                return

    waiters = [asyncio.create_task(wait_closed(s)) for s in sockets]
    await asyncio.sleep(0.05)
    start = time.perf_counter()
    await asyncio.to_thread(post, f"{base}/api/v1/menu-game/groups/{pin}/close", {"X-Device-Token": host})
    await asyncio.wait_for(asyncio.gather(*waiters), timeout=10)
    for socket in sockets:
        await socket.close()
    return [(t - start) * 1000 for t in received]


async def main():
    base = sys.argv[1]
    players = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    groups = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    delays = []
    for _ in range(groups):
        delays += await one_group(base, players)
    delays.sort()
    p50 = statistics.median(delays)
    p99 = delays[max(0, int(len(delays) * 0.99) - 1)]
    print("| live room | players per group | groups | closed delivered | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| host closes → `closed` on every socket | {players} | {groups} | {len(delays)}/{players * groups} | {p50:.1f} | {p99:.1f} | {delays[-1]:.1f} |")


asyncio.run(main())

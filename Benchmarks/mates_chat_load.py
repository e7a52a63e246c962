"""Mates chat under load: P matched pairs (seeded by `whatweeat seed --synthetic --mate-pairs P`)
each hold their two chat sockets open (2P sockets on one server); lines are sent on the sockets at
a steady total rate, spread over the pairs, and each line's delay is measured from just before its
`send` leaves the client to the moment the partner's socket delivers the `message` event. Prints
one Markdown table row.

    python3 mates_chat_load.py http://127.0.0.1:8080 PASSWORD [pairs=500] [rate=100] [seconds=30] [seed=1]
"""
import asyncio
import json
import statistics
import sys
import time
import urllib.request

import websockets


def call(url, method="GET", body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


async def log_in(base, email, password):
    return await asyncio.to_thread(call, f"{base}/api/v1/auth/login", "POST", {"email": email, "password": password})


async def main():
    base, password = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    rate = float(sys.argv[4]) if len(sys.argv) > 4 else 100
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 30
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    ws_base = base.replace("http://", "ws://")

    # Sign in every member of every pair, a few at a time.
    emails = [f"pair-{seed}-{index}@synthetic.whatweeat.invalid" for index in range(pairs * 2)]
    tokens = []
    for start in range(0, len(emails), 50):
        batch = await asyncio.gather(*(log_in(base, email, password) for email in emails[start:start + 50]))
        tokens += [answer["accessToken"] for answer in batch]
    states = []
    for start in range(0, len(tokens), 50):
        states += await asyncio.gather(*(asyncio.to_thread(call, f"{base}/api/v1/mates/state", "GET", None, token)
                                         for token in tokens[start:start + 50]))
    matches = [state["matchId"] for state in states]

    pending = {}      # clientId -> time sent
    delays = []
    acks = 0
    errors = 0

    async def listen(socket, is_receiver_side):
        nonlocal acks, errors
        async for text in socket:
            event = json.loads(text)
            kind = event.get("type")
            if kind == "message" and event.get("clientId") in pending and is_receiver_side(event):
                delays.append(time.perf_counter() - pending.pop(event["clientId"]))
            elif kind == "ack":
                acks += 1
            elif kind == "error":
                errors += 1

    sockets = []
    listeners = []
    ids = [None] * len(tokens)
    for index, token in enumerate(tokens):
        socket = await websockets.connect(f"{ws_base}/api/v1/mates/chat/{matches[index]}/live",
                                          additional_headers={"Authorization": f"Bearer {token}"},
                                          max_queue=None, ping_interval=None)
        hello = json.loads(await socket.recv())
        assert hello["type"] == "hello", hello
        sockets.append(socket)
    opened = len(sockets)
    # Each line is counted when the partner (the other socket of the pair) delivers it.
    for index, socket in enumerate(sockets):
        me = index
        listeners.append(asyncio.create_task(listen(socket, lambda event, me=me: event["clientId"].split(":")[1] != str(me))))

    total = int(rate * seconds)
    started = time.perf_counter()
    for number in range(total):
        due = started + number / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        sender = (number * 2 + number // pairs) % len(sockets)  # both sides of every pair take turns
        client_id = f"{number}:{sender}"
        pending[client_id] = time.perf_counter()
        await sockets[sender].send(json.dumps({"type": "send", "text": f"부하 {number} 번째 줄", "clientId": client_id}))
    await asyncio.sleep(2)
    sent_rate = total / (time.perf_counter() - started - 2)
    for socket in sockets:
        await socket.close()
    for task in listeners:
        task.cancel()

    delays_ms = sorted(delay * 1000 for delay in delays)

    def percentile(p):
        return delays_ms[min(len(delays_ms) - 1, int(len(delays_ms) * p))] if delays_ms else float("nan")

    print(f"| {opened} sockets ({pairs} pairs), {rate:.0f} lines/s for {seconds:.0f} s | {len(delays_ms)} of {total} delivered, "
          f"{acks} acks, {errors} errors, {len(pending)} lost | {statistics.median(delays_ms):.1f} | {percentile(0.95):.1f} | "
          f"{percentile(0.99):.1f} | {delays_ms[-1]:.1f} | {sent_rate:.0f} |")


asyncio.run(main())

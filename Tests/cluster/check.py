"""Checks a whatweeat cluster through its proxy (Tests/cluster/run starts one): a group game whose
host and member sockets land on different instances hears every change live; 100 concurrent
orders for the last 10 units give exactly 10; a client's per-network budget is one for the whole
cluster; kill -9 of one instance mid-game leaves the room working through the other (the socket
reconnects) and loses no acknowledged submission; delivery settings saved through one instance
price both; a sign-out closes the session's sockets on both
instances; a photo uploaded through one instance is served by the other.

Usage: INSTANCE_PIDS="web-1=123,web-2=456" python3 check.py http://127.0.0.1:PORT"""
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import websocket

BASE = sys.argv[1].rstrip("/")
SOCKETS = BASE.replace("http://", "ws://", 1)
PIDS = dict(item.split("=") for item in os.environ["INSTANCE_PIDS"].split(","))
ANSWER = {"gameAnswer": {"hangover": True, "rice": True, "nation": ["KOREAN"]}, "dislikedFoods": ["SASHIMI"]}


def call(method, path, body=None, headers=None):
    request = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


def device(name):
    return {"X-Device-Token": f"cluster-{name}-{uuid.uuid4().hex[:16]}"}


def wait_until(condition, what, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Listener:
    """A live socket through the proxy, read on a thread; `served_by` is the instance that took it."""

    def __init__(self, path, headers=None):
        self.socket = websocket.create_connection(SOCKETS + path, timeout=20, header=[f"{k}: {v}" for k, v in (headers or {}).items()])
        self.served_by = self.socket.getheaders().get("x-served-by")
        self.messages = []
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while True:
                text = self.socket.recv()
                if not text:
                    break
                self.messages.append(json.loads(text))
        except Exception:  # closed, reset, or the instance died
            pass
        self.closed = True

    def saw(self, message):
        """Whether a message had every field of `message` (a change also carries the room)."""
        return any(all(seen.get(key) == value for key, value in message.items()) for seen in self.messages)

    def close(self):
        try:
            self.socket.close()
        except Exception:
            pass


def listener_not_on(path, instance, tries=12, headers=None):
    """A socket that lands on another instance than `instance` (round robin alternates)."""
    for _ in range(tries):
        candidate = Listener(path, headers)
        if candidate.served_by != instance:
            return candidate
        candidate.close()
    raise AssertionError(f"every socket landed on {instance}")


def submit(pin, player):
    status, _, _ = call("PUT", f"/api/v1/menu-game/groups/{pin}/submission", ANSWER, player)
    return status


def group_with_sockets_on_both_instances():
    """A new group game (PIN), its host's device, the live path of the host, and two sockets
    through the proxy: the host's, and a member's on the other instance."""
    host = device("host")
    status, group, _ = call("POST", "/api/v1/menu-game/groups", headers=host)
    assert status == 201, (status, group)
    pin = group["pin"]
    live = f"/api/v1/menu-game/groups/{pin}/live?token={host['X-Device-Token']}"
    host_socket = Listener(live)
    member_socket = listener_not_on(f"/api/v1/menu-game/groups/{pin}/live?token={device('member')['X-Device-Token']}", host_socket.served_by)
    return pin, host, live, host_socket, member_socket


def check_group_across_instances():
    pin, host, _, host_socket, member_socket = group_with_sockets_on_both_instances()
    assert {host_socket.served_by, member_socket.served_by} == {"web-1", "web-2"}, (host_socket.served_by, member_socket.served_by)
    for index in range(3):
        assert submit(pin, device(f"player{index}")) in (200, 201)
    for count in (1, 2, 3):
        expected = {"type": "submissionCount", "submissionCount": count}
        wait_until(lambda: host_socket.saw(expected) and member_socket.saw(expected), f"both instances' sockets to hear {count}")
    status, _, _ = call("POST", f"/api/v1/menu-game/groups/{pin}/close", headers=host)
    assert status == 200, status
    wait_until(lambda: host_socket.saw({"type": "closed"}) and member_socket.saw({"type": "closed"}), "both to hear the close")
    host_socket.close()
    member_socket.close()
    print(f"ok   group game live across instances (host on {host_socket.served_by}, member on {member_socket.served_by})")


def check_last_units():
    status, login, _ = call("POST", "/api/v1/auth/login", {"email": "cluster-admin@example.com", "password": "password1"})
    assert status == 200, (status, login)
    admin = {"Authorization": f"Bearer {login['accessToken']}"}
    dish = "HCLST" + uuid.uuid4().hex[:5].upper()
    status, created, _ = call("POST", "/api/v1/banchan/dishes", {"hash": dish, "section": "side", "title": "[클러스터] 마지막 10개",
                                                                  "salePrice": 4900, "stock": 10}, admin)
    assert status == 201, (status, created)
    with ThreadPoolExecutor(max_workers=50) as pool:
        statuses = list(pool.map(lambda index: call("POST", "/api/v1/banchan/orders", {"items": [{"hash": dish, "quantity": 1}]},
                                                   device(f"shopper{index}"))[0], range(100)))
    placed = statuses.count(201)
    assert placed == 10, f"{placed} orders for 10 units: {sorted(set(statuses))}"
    assert all(status < 500 for status in statuses), sorted(set(statuses))
    print(f"ok   100 concurrent orders for the last 10 units across both instances: {placed} placed, the rest refused")


def check_shop_settings_across_instances():
    """The console's delivery settings saved through one instance price the next answer of both
    (the save is announced on the event bus, PostgreSQL NOTIFY)."""
    status, login, _ = call("POST", "/api/v1/auth/login", {"email": "cluster-admin@example.com", "password": "password1"})
    assert status == 200, (status, login)
    admin = {"Authorization": f"Bearer {login['accessToken']}"}
    status, saved, headers = call("PUT", "/api/v1/admin/shop-settings", {"deliveryFee": 3100, "dawnCutoff": "21:30"}, admin)
    assert status == 200 and saved["deliveryFee"] == 3100, (status, saved)
    seen = {}
    started = time.time()

    def both_priced():
        _, detail, answer = call("GET", "/api/v1/banchan/dishes/HU6Z5")
        seen[answer.get("X-Served-By")] = detail["deliveryFee"]["fee"]
        return seen.get("web-1") == 3100 and seen.get("web-2") == 3100

    wait_until(both_priced, f"both instances to price with the saved fee (seen {seen})", timeout=10)
    print(f"ok   delivery settings saved through {headers.get('X-Served-By')} priced both instances' answers within {time.time() - started:.2f} s")


def check_budget_across_instances():
    """AUTH_ATTEMPTS_PER_MINUTE (60) email look-ups a minute for one client network, however the proxy spreads them."""
    answers = [call("GET", f"/api/v1/auth/email-available?email=nobody{index}%40example.com") for index in range(70)]
    statuses = [status for status, _, _ in answers]
    served = {headers.get("X-Served-By") for _, _, headers in answers}
    assert served == {"web-1", "web-2"}, served
    assert statuses.count(200) == 60 and statuses.count(429) == 10, statuses
    print("ok   one per-network budget across both instances: 60 look-ups answered, 10 refused")


def check_sign_out_closes_sockets_on_every_instance():
    """Sign-out ends the session's live sockets on both instances within a second or two (the end
    travels on the event bus, PostgreSQL NOTIFY), whichever instance took the sign-out."""
    status, tokens, _ = call("POST", "/api/v1/auth/signup", {"email": f"leaver-{uuid.uuid4().hex[:8]}@example.com", "password": "password1",
                                                          "nickname": f"나감{uuid.uuid4().hex[:4]}"})
    assert status == 201, (status, tokens)
    bearer = {"Authorization": f"Bearer {tokens['accessToken']}"}
    first = Listener("/api/v1/notifications/live", bearer)
    second = listener_not_on("/api/v1/notifications/live", first.served_by, headers=bearer)
    wait_until(lambda: first.messages and second.messages, "both inbox sockets to say hello")
    status, _, _ = call("POST", "/api/v1/auth/logout", headers=bearer)
    assert status == 204, status
    started = time.time()
    wait_until(lambda: first.closed and second.closed, "the signed-out session's sockets to close", timeout=5)
    print(f"ok   sign-out closed the session's sockets on {first.served_by} and {second.served_by} in {time.time() - started:.2f} s")


def tiny_png(seed):
    """A real 2×2 RGB PNG whose pixels depend on `seed` (so each run uploads new bytes)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    # Each row: filter byte 0, then two pixels of red, green, blue.
    rows = b"".join(b"\x00" + bytes([(seed + y) % 256, seed % 256, 200, 10, (seed + y) % 256, 90]) for y in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def check_photos_across_instances():
    """Files are kept in PostgreSQL (the default there): a profile picture uploaded through one
    instance is served, byte for byte and cacheable for good, by the other."""
    status, tokens, _ = call("POST", "/api/v1/auth/signup", {"email": f"photo-{uuid.uuid4().hex[:8]}@example.com", "password": "password1",
                                                          "nickname": f"사진{uuid.uuid4().hex[:4]}"})
    assert status == 201, (status, tokens)
    request = urllib.request.Request(BASE + "/api/v1/me/profile-image", method="PUT", data=tiny_png(int(time.time()) % 250))
    request.add_header("Content-Type", "image/png")
    request.add_header("Authorization", f"Bearer {tokens['accessToken']}")
    with urllib.request.urlopen(request, timeout=20) as response:
        taken_by = response.headers.get("X-Served-By")
        url = json.loads(response.read())["profileImageURL"]
    served = {}
    for _ in range(12):
        with urllib.request.urlopen(BASE + url, timeout=20) as response:
            assert response.status == 200, response.status
            assert response.headers.get("Cache-Control") == "public, max-age=31536000, immutable", response.headers
            served[response.headers.get("X-Served-By")] = response.read()
        if len(served) == 2:
            break
    assert set(served) == {"web-1", "web-2"}, f"only {set(served)} served {url}"
    assert served["web-1"] == served["web-2"], "the same bytes from both"
    print(f"ok   a photo uploaded through {taken_by} is served by web-1 and web-2 ({len(served['web-1'])} bytes)")


def check_instance_killed_mid_game():
    pin, host, live, host_socket, member_socket = group_with_sockets_on_both_instances()
    doomed, survivor = host_socket.served_by, member_socket.served_by
    acknowledged = sum(1 for index in range(5) if submit(pin, device(f"early{index}")) in (200, 201))
    assert acknowledged == 5
    wait_until(lambda: host_socket.saw({"type": "submissionCount", "submissionCount": 5}), "the host to hear 5")

    os.kill(int(PIDS[doomed]), signal.SIGKILL)
    wait_until(lambda: host_socket.closed, f"the host's socket on {doomed} to drop")
    # The host's page reconnects: the proxy sends it to the instance still running.
    host_socket = Listener(live)
    assert host_socket.served_by == survivor, (host_socket.served_by, survivor)
    wait_until(lambda: any(m.get("type") == "state" for m in host_socket.messages), "the state on reconnect")
    state = next(m for m in host_socket.messages if m.get("type") == "state")
    assert state["submissionCount"] == acknowledged, ("acknowledged submissions lost", state, acknowledged)

    for index in range(5):
        assert submit(pin, device(f"late{index}")) in (200, 201), "the proxy moves on to the instance still running"
        acknowledged += 1
    expected = {"type": "submissionCount", "submissionCount": acknowledged}
    wait_until(lambda: host_socket.saw(expected) and member_socket.saw(expected), "both to hear every submission")
    status, final, _ = call("GET", f"/api/v1/menu-game/groups/{pin}", headers=host)
    assert status == 200 and final["submissionCount"] == acknowledged, (status, final)
    host_socket.close()
    member_socket.close()
    print(f"ok   kill -9 of {doomed} mid-game: the room goes on through {survivor}, {acknowledged} of {acknowledged} submissions kept")


if __name__ == "__main__":
    wait_until(lambda: call("GET", "/readyz")[0] == 200, "the proxy and an instance to answer", timeout=60)
    check_group_across_instances()
    check_last_units()
    check_shop_settings_across_instances()
    check_budget_across_instances()
    check_sign_out_closes_sockets_on_every_instance()
    check_photos_across_instances()
    check_instance_killed_mid_game()
    print("cluster: all checks passed")

"""The 새싹 스터디 apps through the cluster's proxy (Tests/cluster/run starts it, with a fake Firebase
project): two app users sign up, match and chat with a real Socket.IO client — one over WebSocket
only, the other over polling upgraded to WebSocket (nginx keeps a polling session on its
instance). Their HTTP calls go round robin to both instances, and every line reaches the other
socket live, whichever instance took it: the lines travel on the event bus (PostgreSQL NOTIFY).

Behind nginx with the shipped files (TRUSTED_PROXIES from deploy/systemd), each phone is its own
network: A's app calls from 127.0.0.2 and its socket, from 127.0.0.1, binds by the cookie its HTTP
answers set (python-socketio sends the requests session's cookies, as socket.io-client-swift sends
the shared cookie store's); a stranger's socket from 127.0.0.1 naming A's uid hears nothing. A Host
the instances do not serve (DNS rebinding) gets 421 through the proxy.

Usage: python3 check_sesac.py http://127.0.0.1:PORT /path/to/firebase.json"""
import pathlib
import queue
import sys
import uuid

import requests
import requests.adapters
import socketio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from firebase_tokens import FakeFirebase  # noqa: E402

BASE = sys.argv[1].rstrip("/")
FIREBASE = FakeFirebase.load(sys.argv[2])
HERE, NEARBY = (37.5665, 126.9780), (37.5680, 126.9805)


class FromAddress(requests.adapters.HTTPAdapter):
    """Connections from another loopback address: a phone on another network, as nginx sees it."""

    def __init__(self, address):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


class AppUser:
    def __init__(self, nick, phone, gender, address=None):
        self.uid = uuid.uuid4().hex[:28]
        self.token = FIREBASE.token(self.uid, phone=phone)
        self.served_by = set()
        # The app's HTTP client and its cookie store, shared with its socket (as on iOS).
        self.session = requests.Session()
        if address:
            self.session.mount("http://", FromAddress(address))
        reply = self.call("POST", "/v1/user", [("phoneNumber", phone), ("FCMtoken", "fcm"), ("nick", nick),
                                               ("birth", "1994-03-02T09:00:00.000Z"), ("email", ""), ("gender", str(gender))])
        assert reply.status_code == 200, reply.text

    def call(self, method, path, form=None):
        reply = self.session.request(method, BASE + path, data=form, headers={"idtoken": self.token}, timeout=20)
        self.served_by.add(reply.headers.get("X-Served-By"))
        return reply

    def socket(self, transports):
        client = socketio.Client(reconnection=False, http_session=self.session)
        heard = queue.Queue()
        client.on("chat", lambda data: heard.put(data))
        client.connect(BASE, transports=list(transports), socketio_path="socket.io", wait_timeout=20)
        client.call("changesocketid", self.uid, timeout=20)
        return client, heard


def main():
    a = AppUser("클러스터앱에이", "+821055550001", 1, address="127.0.0.2")
    b = AppUser("클러스터앱비이", "+821055550002", 0)
    for user, point in ((a, HERE), (b, NEARBY)):
        assert user.call("POST", "/v1/queue", [("studylist", "swift"), ("lat", str(point[0])), ("long", str(point[1]))]).status_code == 200
    assert a.call("POST", "/v1/queue/studyrequest", [("otheruid", b.uid)]).status_code == 200
    assert b.call("POST", "/v1/queue/studyaccept", [("otheruid", a.uid)]).status_code == 200
    state = a.call("GET", "/v1/queue/myQueueState").json()
    assert state["matched"] == 1 and state["matchedUid"] == b.uid, state

    a_socket, a_heard = a.socket(("websocket",))
    b_socket, b_heard = b.socket(("polling", "websocket"))
    try:
        for number in range(6):
            for sender, receiver, heard in ((b, a, a_heard), (a, b, b_heard)):
                text = f"{number}: 안녕 from {sender.uid[:6]}"
                sent = sender.call("POST", f"/v1/chat/{receiver.uid}", [("chat", text)])
                assert sent.status_code == 200, sent.text
                line = heard.get(timeout=15)
                assert line == sent.json(), (line, sent.json())
        assert a_heard.empty() and b_heard.empty(), "nobody hears their own lines"
        assert b_socket.transport() == "websocket", "the polling client upgraded"
        served = a.served_by | b.served_by
        assert {"web-1", "web-2"} <= served, f"the calls reached both instances: {served}"
        print(f"ok 새싹 스터디 apps: 12 lines live across instances {sorted(served)} (WebSocket and polling→WebSocket)")

        # A stranger on another network who knows A's uid: waits, and hears nothing of A's chat.
        stranger = socketio.Client(reconnection=False)
        eavesdropped, told = queue.Queue(), queue.Queue()
        stranger.on("chat", lambda data: eavesdropped.put(data))
        stranger.on("bind_pending", lambda data: told.put(data))
        stranger.connect(BASE, transports=["websocket"], socketio_path="socket.io", wait_timeout=20)
        stranger.emit("changesocketid", a.uid)
        assert told.get(timeout=20)["uid"] == a.uid, "the stranger's socket is told it waits"
        secret = b.call("POST", f"/v1/chat/{a.uid}", [("chat", "비밀번호는 1234")])
        assert secret.status_code == 200, secret.text
        assert a_heard.get(timeout=15) == secret.json(), "A's own socket (bound by its cookie) hears it"
        try:
            eavesdropped.get(timeout=2)
            raise AssertionError("a stranger's socket naming A's uid heard A's chat")
        except queue.Empty:
            pass
        stranger.disconnect()
        print("ok 새싹 스터디 apps: the phone's socket binds by its cookie; a stranger naming its uid hears nothing")

        # DNS rebinding: a Host the instances do not serve is refused; the apps' host is served.
        rebound = requests.get(BASE + "/socket.io/?EIO=4&transport=polling", headers={"Host": "rebind.example:1210"}, timeout=20)
        assert rebound.status_code == 421, rebound.status_code
        served_host = requests.get(BASE + "/socket.io/?EIO=4&transport=polling",
                                   headers={"Host": "api.sesac.co.kr:1210", "Origin": "ws://api.sesac.co.kr:1210"}, timeout=20)
        assert served_host.status_code == 200, served_host.text
        print("ok hosts: 421 for a rebinding Host, 200 for the apps' host with its default-port origin")
    finally:
        a_socket.disconnect()
        b_socket.disconnect()


if __name__ == "__main__":
    main()

"""The 새싹 스터디 apps against this server, with a real Socket.IO client (python-socketio, as the
apps' socket.io-client-swift speaks the same Engine.IO 4) and ID tokens of a fake Firebase project:
two app users match and chat live over WebSocket only and over polling upgraded to WebSocket;
the latest socket of a uid wins; nobody hears their own lines; and an app user and a browser
user of the mates pages find each other, match, and chat both ways live."""
import pathlib
import queue
import sys
import time
import uuid

import pytest
import requests
import socketio
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from firebase_tokens import FakeFirebase  # noqa: E402

from conftest import Server, allow_location, shot, sign_up, wait_for  # noqa: E402
from test_mates import HERE, NEARBY, chat_lines, send_message, set_profile, start_searching, verify  # noqa: E402

CHAT_KEYS = {"_id", "to", "from", "chat", "createdAt"}


@pytest.fixture(scope="module")
def firebase():
    fake = FakeFirebase().start()
    yield fake
    fake.stop()


@pytest.fixture
def sesac_server(firebase):
    instance = Server(LOG_LEVEL="notice", FIREBASE_PROJECT_IDS=firebase.project_id, FIREBASE_CERTS_URL=firebase.certs_url)
    instance.start()
    yield instance
    instance.cleanup()


class AppUser:
    """One phone running a 새싹 스터디 app: its uid, its ID token, form bodies, its socket."""

    def __init__(self, server, firebase, phone):
        self.server = server
        self.uid = uuid.uuid4().hex[:28]
        self.token = firebase.token(self.uid, phone=phone)
        self.sockets = []
        # The app's HTTP client with its cookie store (Alamofire's session keeps Set-Cookie in the
        # shared HTTPCookieStorage, whose cookies socket.io-client-swift puts on the handshake).
        self.http = requests.Session()

    def call(self, method, path, form=None, headers=None):
        # requests encodes a list of pairs as the apps do: repeated keys, spaces as '+'.
        return self.http.request(method, self.server.url + path, data=form, headers={"idtoken": self.token, **(headers or {})}, timeout=10)

    def sign_up(self, nick, gender=1):
        reply = self.call("POST", "/v1/user", [("phoneNumber", "+821000000000"), ("FCMtoken", "fcm"), ("nick", nick),
                                              ("birth", "1995-06-15T09:00:00.000Z"), ("email", "a@b.com"), ("gender", str(gender))])
        assert reply.status_code == 200, reply.text
        return reply.json()

    def search(self, lat, lon, studies=("코딩",)):
        reply = self.call("POST", "/v1/queue", [("studylist", s) for s in studies] + [("lat", str(lat)), ("long", str(lon))])
        assert reply.status_code == 200, reply.text

    def socket(self, transports):
        """Connects as the apps do, with the app's cookie store (its binding cookie on the
        handshake), and binds this uid (acknowledged, so it is bound on return)."""
        client = socketio.Client(reconnection=False, http_session=self.http)
        heard = queue.Queue()
        client.on("chat", lambda data: heard.put(data))
        client.connect(self.server.url, transports=list(transports), socketio_path="socket.io", wait_timeout=10)
        client.call("changesocketid", self.uid, timeout=10)
        self.sockets.append(client)
        return client, heard

    def close(self):
        for client in self.sockets:
            client.disconnect()


def matched_pair(server, firebase):
    a, b = AppUser(server, firebase, "+821011110000"), AppUser(server, firebase, "+821022220000")
    a.sign_up("앱새싹에이")
    b.sign_up("앱새싹비이", gender=0)
    a.search(*HERE)
    b.search(*NEARBY)
    assert a.call("POST", "/v1/queue/studyrequest", [("otheruid", b.uid)]).status_code == 200
    assert b.call("POST", "/v1/queue/studyaccept", [("otheruid", a.uid)]).status_code == 200
    return a, b


def eventually(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def heard_nothing(heard, seconds=1.0):
    try:
        heard.get(timeout=seconds)
        return False
    except queue.Empty:
        return True


@pytest.mark.parametrize("transports", [("websocket",), ("polling", "websocket"), ("polling",)],
                         ids=["websocket-only", "polling-then-upgrade", "polling-only"])
def test_app_users_chat_live(sesac_server, firebase, transports):
    a, b = matched_pair(sesac_server, firebase)
    try:
        a_socket, a_heard = a.socket(transports)
        _, b_heard = b.socket(transports)
        sent = b.call("POST", f"/v1/chat/{a.uid}", [("chat", "안녕하세요 🌱 같이 공부해요")])
        assert sent.status_code == 200, sent.text
        line = a_heard.get(timeout=10)
        assert set(line) == CHAT_KEYS
        assert line == sent.json(), "the socket's chat object is the one the sender got back"
        assert line["from"] == b.uid and line["to"] == a.uid and line["chat"] == "안녕하세요 🌱 같이 공부해요"
        assert heard_nothing(b_heard), "the sender does not hear its own line"

        reply = a.call("POST", f"/v1/chat/{b.uid}", [("chat", "좋아요")])
        assert b_heard.get(timeout=10)["chat"] == "좋아요"
        assert reply.status_code == 200
        if transports == ("polling", "websocket"):
            assert eventually(lambda: a_socket.transport() == "websocket"), "upgraded to WebSocket"
        elif transports == ("polling",):
            assert a_socket.transport() == "polling"
        history = b.call("GET", f"/v1/chat/{a.uid}?lastchatDate=2000-01-01T00:00:00.000Z").json()["payload"]
        assert [item["chat"] for item in history] == ["안녕하세요 🌱 같이 공부해요", "좋아요"]
    finally:
        a.close()
        b.close()


def test_the_latest_socket_of_a_uid_wins(sesac_server, firebase):
    a, b = matched_pair(sesac_server, firebase)
    try:
        _, first = a.socket(("websocket",))
        _, second = a.socket(("websocket",))
        assert b.call("POST", f"/v1/chat/{a.uid}", [("chat", "어디에 있어요?")]).status_code == 200
        assert second.get(timeout=10)["chat"] == "어디에 있어요?"
        assert heard_nothing(first), "an earlier socket of the same uid no longer hears"
    finally:
        a.close()
        b.close()


def test_an_app_user_and_a_browser_user_match_and_chat(sesac_server, firebase, browser):
    server = sesac_server
    app = AppUser(server, firebase, "+821033330000")
    try:
        app.sign_up("앱에서왔어요")
        sign_up(browser, server, "웹에서왔어요")
        allow_location(browser, server, *HERE)
        verify(browser, server, "010-4444-5555")
        set_profile(browser, "female", 1996, ["코딩"])
        start_searching(browser, server)

        # The app sees the browser user nearby, by her account id, and asks.
        found = app.call("POST", "/v1/queue/search", [("lat", str(NEARBY[0])), ("long", str(NEARBY[1]))]).json()
        web_user = next(person for person in found["fromQueueDB"] if person["nick"] == "웹에서왔어요")
        assert web_user["studylist"] == ["코딩"]
        app.search(*NEARBY)
        assert app.call("POST", "/v1/queue/studyrequest", [("otheruid", web_user["uid"])]).status_code == 200

        # She sees the request at once and accepts; both are matched.
        browser.get(server.url + "/mates/nearby?tab=requested")
        request = wait_for(browser, lambda d: next((c for c in d.find_elements(By.CSS_SELECTOR, "#requested-list .mate-row")
                                                   if "앱에서왔어요" in c.text), None))
        shot(browser, "01-app-user-asked")
        request.find_element(By.CSS_SELECTOR, "button[data-action=accept]").click()
        wait_for(browser, EC.url_contains("/mates/chat/"))
        state = app.call("GET", "/v1/queue/myQueueState").json()
        assert state["matched"] == 1 and state["matchedUid"] == web_user["uid"] and state["matchedNick"] == "웹에서왔어요"

        # Both ways, live: the app's line appears in her chat; hers reaches the app's socket.
        _, heard = app.socket(("websocket",))
        wait_for(browser, lambda d: d.find_element(By.ID, "live-state").text == "")
        assert app.call("POST", f"/v1/chat/{web_user['uid']}", [("chat", "앱에서 인사해요 👋")]).status_code == 200
        wait_for(browser, lambda d: "앱에서 인사해요 👋" in chat_lines(d))
        send_message(browser, "웹에서 답해요")
        line = heard.get(timeout=10)
        assert line["chat"] == "웹에서 답해요" and line["from"] == web_user["uid"] and line["to"] == app.uid
        shot(browser, "02-chat-with-app-user")
    finally:
        app.close()


@pytest.fixture
def sesac_proxied_server(firebase):
    """As behind the proxy: X-Forwarded-For says which network each request comes from."""
    instance = Server(LOG_LEVEL="notice", FIREBASE_PROJECT_IDS=firebase.project_id, FIREBASE_CERTS_URL=firebase.certs_url,
                      TRUSTED_PROXIES="127.0.0.1")
    instance.start()
    yield instance
    instance.cleanup()


def test_a_phone_that_changes_network_mid_chat_keeps_hearing_with_its_cookie(sesac_proxied_server, firebase):
    """A phone moving from Wi-Fi to LTE reconnects its socket from an address it never called the
    API from. Its socket library sends the binding cookie of the app's cookie store (python-socketio
    with the requests session's jar, as socket.io-client-swift with HTTPCookieStorage): bound at
    once, it hears every line with no call from LTE. A socket without the cookie is told it cannot
    bind and hears nothing, even after the phone calls from its network (the uid holds its cookie:
    nothing else binds it); a stranger who knows the uid hears nothing."""
    a, b = matched_pair(sesac_proxied_server, firebase)
    lte = {"X-Forwarded-For": "198.51.100.77"}
    try:
        assert "wwe_sesac_socket" in a.http.cookies, "the app's answers set the binding cookie"
        moved = socketio.Client(reconnection=False, http_session=a.http)
        heard, told = queue.Queue(), queue.Queue()
        moved.on("chat", lambda data: heard.put(data))
        moved.on("bind_pending", lambda data: told.put(data))
        moved.connect(sesac_proxied_server.url, transports=["websocket"], socketio_path="socket.io", headers=lte, wait_timeout=10)
        moved.call("changesocketid", a.uid, timeout=10)
        assert heard_nothing(told, 0.5), "bound by its cookie: nothing to wait for"
        assert b.call("POST", f"/v1/chat/{a.uid}", [("chat", "어디쯤이에요?")]).status_code == 200
        assert heard.get(timeout=10)["chat"] == "어디쯤이에요?", "heard on LTE with no call from there"

        # A socket without the cookie, on another network: told, hears nothing, and the phone's
        # next request from that network binds it no more than before.
        bare_network = {"X-Forwarded-For": "198.51.100.78"}
        bare = socketio.Client(reconnection=False)
        bare_heard, bare_told = queue.Queue(), queue.Queue()
        bare.on("chat", lambda data: bare_heard.put(data))
        bare.on("bind_pending", lambda data: bare_told.put(data))
        bare.connect(sesac_proxied_server.url, transports=["websocket"], socketio_path="socket.io", headers=bare_network, wait_timeout=10)
        bare.emit("changesocketid", a.uid)
        assert bare_told.get(timeout=10)["uid"] == a.uid, "the socket is told it is not bound"
        assert b.call("POST", f"/v1/chat/{a.uid}", [("chat", "도착했어요")]).status_code == 200
        assert heard.get(timeout=10)["chat"] == "도착했어요", "the cookie's socket keeps hearing"
        assert a.call("GET", "/v1/queue/myQueueState", headers=bare_network).status_code == 200
        assert b.call("POST", f"/v1/chat/{a.uid}", [("chat", "이제 들려요")]).status_code == 200
        assert heard.get(timeout=10)["chat"] == "이제 들려요", "the cookie's socket is not displaced"
        assert heard_nothing(bare_heard), "a uid that holds its cookie binds by nothing else"

        stranger = socketio.Client(reconnection=False)
        eavesdropped = queue.Queue()
        stranger.on("chat", lambda data: eavesdropped.put(data))
        stranger.connect(sesac_proxied_server.url, transports=["websocket"], socketio_path="socket.io",
                         headers={"X-Forwarded-For": "192.0.2.9"}, wait_timeout=10)
        stranger.emit("changesocketid", a.uid)
        time.sleep(0.5)
        assert b.call("POST", f"/v1/chat/{a.uid}", [("chat", "비밀")]).status_code == 200
        assert heard.get(timeout=10)["chat"] == "비밀"
        assert heard_nothing(eavesdropped), "a uid alone reads nothing"
        stranger.disconnect()
        bare.disconnect()
        moved.disconnect()
    finally:
        a.close()
        b.close()

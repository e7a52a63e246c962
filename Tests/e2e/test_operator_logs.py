"""The logs an operator reads (issue 58, item 5), from a real server: with LOG_FORMAT=json every
line is one JSON object; each request has an access line (method, route pattern, status,
milliseconds, a refusal's error code) carrying the request id the answer's X-Request-Id names (a
trusted proxy's own id is kept); and at debug level, SQL and all, no line holds an address, a
password hash or a token the server handed out."""
import json
import subprocess
import uuid

import requests

from conftest import Server


def test_json_lines_access_log_request_ids_and_nothing_secret():
    server = Server(LOG_FORMAT="json", LOG_LEVEL="debug", TRUSTED_PROXIES="127.0.0.1", MAIL_DELIVERY="none",
                    INSTANCE_NAME="web-9")
    server.start()
    try:
        email = f"logs-{uuid.uuid4().hex[:8]}@example.com"
        password = "logs-password-1"
        signed = requests.post(server.url + "/api/v1/auth/signup",
                               json={"email": email, "password": password, "nickname": "로그확인"}, timeout=10)
        assert signed.status_code == 201, signed.text
        tokens = signed.json()
        wrong = requests.post(server.url + "/api/v1/auth/login", json={"email": email, "password": "not-it-at-all"}, timeout=10)
        assert wrong.status_code == 401
        me = requests.get(server.url + "/api/v1/me", headers={"Authorization": "Bearer " + tokens["accessToken"],
                                                              "X-Request-Id": "nginx-req-0042"}, timeout=10)
        assert me.status_code == 200
        assert me.headers["X-Request-Id"] == "nginx-req-0042", "a trusted proxy's id is kept and sent back"
        odd = requests.get(server.url + "/healthz", headers={"X-Request-Id": "bad id with spaces"}, timeout=10)
        assert odd.headers["X-Request-Id"] not in ("", "bad id with spaces"), "an id we would not log is replaced"
        refreshed = requests.post(server.url + "/api/v1/auth/refresh", json={"refreshToken": tokens["refreshToken"]}, timeout=10)
        assert refreshed.status_code == 200
    finally:
        server.stop()
    text = server.log_text()
    server.cleanup()

    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line parses
    # ...and jq, what an operator pipes a log through, reads the whole stream object by object.
    read_by_jq = subprocess.run(["jq", "-c", "{level, message}"], input=text, capture_output=True, text=True)
    assert read_by_jq.returncode == 0, read_by_jq.stderr
    assert len(read_by_jq.stdout.splitlines()) == len(lines)
    assert lines and all({"time", "level", "message"} <= set(line) for line in lines)
    access = [line for line in lines if "route" in line and "status" in line]
    me_line = next(line for line in access if line["route"] == "/api/v1/me")
    assert me_line["request_id"] == "nginx-req-0042" and me_line["status"] == "200" and me_line["level"] == "info"
    assert me_line["instance"] == "web-9" and float(me_line["duration_ms"]) >= 0
    refused = next(line for line in access if line["route"] == "/api/v1/auth/login" and line["status"] == "401")
    assert refused["error"], "a refusal says its code at info"
    assert any(line["level"] == "debug" for line in lines), "the debug level was on"

    for secret in [email, email.split("@")[0], "$2b$", "$2a$", tokens["accessToken"], tokens["refreshToken"],
                   refreshed.json()["accessToken"], password]:
        assert secret not in text, f"{secret[:12]}… is in the log"

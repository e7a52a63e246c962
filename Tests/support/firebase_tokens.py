"""A fake Firebase Auth for the browser and cluster stages (needs requirements-firebase.txt).

It serves Google's certificate document for Firebase ID tokens (``{kid: certificate PEM}``, with
``Cache-Control: public, max-age=…``) on a free local port and mints RS256 ID tokens signed by the
key behind that certificate, as Firebase Auth does after a phone sign-in. Point the server at it
with ``FIREBASE_PROJECT_IDS=<project_id>`` and ``FIREBASE_CERTS_URL=<certs_url>``.

In one process::

    import sys; sys.path.insert(0, "Tests/support")
    from firebase_tokens import FakeFirebase
    firebase = FakeFirebase().start()          # .certs_url, .project_id
    token = firebase.token("firebase-uid-1")   # send as the `idtoken` header
    firebase.stop()

Across processes (a shell script starts the server before the checks that mint tokens)::

    python3 Tests/support/firebase_tokens.py serve --state "$WORK/firebase.json" &
    # … wait for the file, start whatweeat with the URL it names, then in the checks:
    firebase = FakeFirebase.load("$WORK/firebase.json"); firebase.token("uid-1")

``python3 Tests/support/firebase_tokens.py selftest`` checks a minted token with PyJWT against the
served certificate. ``… once`` prints ``{"certs_url", "project_id", "token"}`` as one JSON line and
serves until its standard input closes (the Swift tests use it to check the two agree).
"""

import argparse
import datetime
import http.server
import json
import os
import secrets
import sys
import threading
import time
import urllib.request

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

DEFAULT_PROJECT = "sesac-test-project"


class SigningKey:
    """An RSA key, its kid and a self-signed certificate for it, as Google publishes them."""

    def __init__(self, private_key=None, kid=None):
        self.private_key = private_key or rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = kid or secrets.token_hex(20)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.private_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=14))
            .sign(self.private_key, hashes.SHA256())
        )
        self.certificate_pem = certificate.public_bytes(serialization.Encoding.PEM).decode()

    @property
    def private_key_pem(self):
        return self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()


class FakeFirebase:
    def __init__(self, project_id=DEFAULT_PROJECT, max_age=3600, signing_key=None):
        self.project_id = project_id
        self.max_age = max_age
        self.current = signing_key or SigningKey()
        self.previous = None
        self.fetch_count = 0
        self.certs_url = None
        self._lock = threading.Lock()
        self._server = None

    # -- the certificate endpoint

    def certificates(self):
        with self._lock:
            keys = [self.current] + ([self.previous] if self.previous else [])
        return {key.kid: key.certificate_pem for key in keys}

    def start(self, host="127.0.0.1", port=0):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.split("?")[0] != "/certs":
                    self.send_error(404)
                    return
                with fake._lock:
                    fake.fetch_count += 1
                body = json.dumps(fake.certificates()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Cache-Control", f"public, max-age={fake.max_age}, must-revalidate, no-transform")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._server = http.server.ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.certs_url = f"http://{host}:{self._server.server_address[1]}/certs"
        threading.Thread(target=self._server.serve_forever, name="fake-firebase", daemon=True).start()
        return self

    def stop(self):
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start() if self._server is None else self

    def __exit__(self, *exc):
        self.stop()

    def rotate_keys(self, keep_previous=True):
        """A new key and kid sign from now on; the old certificate stays served beside it unless told."""
        key = SigningKey()
        with self._lock:
            self.previous = self.current if keep_previous else None
            self.current = key

    # -- tokens

    def claims(self, uid, phone="+821012345678", email=None, project=None, issued_at=None, expires_in=3600):
        project = project or self.project_id
        iat = int(issued_at if issued_at is not None else time.time())
        identities = {}
        if phone:
            identities["phone"] = [phone]
        if email:
            identities["email"] = [email]
        claims = {
            "iss": f"https://securetoken.google.com/{project}", "aud": project, "auth_time": iat,
            "user_id": uid, "sub": uid, "iat": iat, "exp": iat + int(expires_in),
            "firebase": {"identities": identities, "sign_in_provider": "phone" if phone else "password"},
        }
        if phone:
            claims["phone_number"] = phone
        if email:
            claims["email"] = email
            claims["email_verified"] = False
        return claims

    def signed(self, claims, kid=None):
        with self._lock:
            key = self.current
        return jwt.encode(claims, key.private_key, algorithm="RS256", headers={"kid": kid or key.kid, "typ": "JWT"})

    def token(self, uid, phone="+821012345678", email=None, project=None, issued_at=None, expires_in=3600, kid=None):
        """An ID token as Firebase Auth issues it, RS256-signed by the served key."""
        return self.signed(self.claims(uid, phone, email, project, issued_at, expires_in), kid=kid)

    # -- sharing with another process

    def save(self, path):
        """Writes what another process needs to mint tokens (the private key too: tests only)."""
        state = {"certs_url": self.certs_url, "project_id": self.project_id, "kid": self.current.kid,
                 "private_key_pem": self.current.private_key_pem}
        temporary = f"{path}.tmp"
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            json.dump(state, file)
        os.replace(temporary, path)

    @classmethod
    def load(cls, path):
        """A minting-only copy of a fake another process serves (`serve --state path`)."""
        with open(path) as file:
            state = json.load(file)
        private_key = serialization.load_pem_private_key(state["private_key_pem"].encode(), password=None)
        fake = cls(project_id=state["project_id"], signing_key=SigningKey(private_key=private_key, kid=state["kid"]))
        fake.certs_url = state["certs_url"]
        return fake


def verify_with_pyjwt(token, certs_url, project_id):
    """Google's checks done by PyJWT: the reference the Swift verifier is held to."""
    header = jwt.get_unverified_header(token)
    with urllib.request.urlopen(certs_url, timeout=10) as response:
        certificates = json.load(response)
    public_key = x509.load_pem_x509_certificate(certificates[header["kid"]].encode()).public_key()
    claims = jwt.decode(token, public_key, algorithms=["RS256"], audience=project_id,
                        issuer=f"https://securetoken.google.com/{project_id}", leeway=300,
                        options={"require": ["exp", "iat", "auth_time", "aud", "iss", "sub"]})
    assert claims["auth_time"] <= time.time() + 300 and 0 < len(claims["sub"]) <= 128
    return claims


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["serve", "once", "selftest"])
    parser.add_argument("--state", help="serve: write the state other processes load to this file")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--project", default=DEFAULT_PROJECT)
    parser.add_argument("--max-age", type=int, default=3600)
    parser.add_argument("--uid", default="firebase-uid-1")
    args = parser.parse_args()
    fake = FakeFirebase(project_id=args.project, max_age=args.max_age).start(port=args.port)
    try:
        if args.command == "selftest":
            claims = verify_with_pyjwt(fake.token(args.uid), fake.certs_url, fake.project_id)
            assert claims["sub"] == args.uid and claims["phone_number"] == "+821012345678", claims
            other = FakeFirebase(project_id=args.project)
            try:
                verify_with_pyjwt(other.signed(other.claims(args.uid), kid=fake.current.kid), fake.certs_url, fake.project_id)
                raise AssertionError("a token signed by another key was accepted")
            except jwt.InvalidSignatureError:
                pass
            print(f"ok: {fake.certs_url} serves {fake.current.kid}; PyJWT accepts its token for {claims['sub']}")
        elif args.command == "once":
            print(json.dumps({"certs_url": fake.certs_url, "project_id": fake.project_id, "token": fake.token(args.uid)}), flush=True)
            sys.stdin.read()
        else:
            if args.state:
                fake.save(args.state)
            print(json.dumps({"certs_url": fake.certs_url, "project_id": fake.project_id}), flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()

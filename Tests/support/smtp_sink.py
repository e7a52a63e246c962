"""A small SMTP server that keeps what it is sent, for the browser tests: every server they start
sends its mail here (conftest.py), so reset links and codes are read from mail, as a person reads
them, and never need to be in a log. Plain SMTP on 127.0.0.1 (the server allows clear text only to
this machine); EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT."""
import email
import email.policy
import socketserver
import threading


class SMTPSink:
    def __init__(self):
        self.messages = []  # (recipients, email.message.EmailMessage)
        self._lock = threading.Lock()
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, line):
                self.wfile.write((line + "\r\n").encode())

            def handle(self):
                self.reply("220 sink.test ESMTP")
                recipients = []
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    verb = line.decode("utf-8", "replace").strip().split(" ")[0].upper()
                    if verb in ("EHLO", "HELO"):
                        self.reply("250-sink.test")
                        self.reply("250 SIZE 10000000")
                    elif verb == "MAIL":
                        recipients = []
                        self.reply("250 OK")
                    elif verb == "RCPT":
                        address = line.decode().split(":", 1)[1].strip().strip("<>")
                        recipients.append(address)
                        self.reply("250 OK")
                    elif verb == "DATA":
                        self.reply("354 end with .")
                        data = []
                        while True:
                            chunk = self.rfile.readline()
                            if chunk in (b".\r\n", b".\n", b""):
                                break
                            data.append(chunk[1:] if chunk.startswith(b"..") else chunk)
                        message = email.message_from_bytes(b"".join(data), policy=email.policy.default)
                        with sink._lock:
                            sink.messages.append((list(recipients), message))
                        self.reply("250 OK queued")
                    elif verb == "QUIT":
                        self.reply("221 bye")
                        return
                    else:
                        self.reply("250 OK")

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}?from=noreply@whatweeat.test"

    def texts_to(self, address):
        """The plain-text bodies of every message to `address`, oldest first."""
        with self._lock:
            found = [message for recipients, message in self.messages if address.lower() in (r.lower() for r in recipients)]
        return [message.get_body(preferencelist=("plain",)).get_content() for message in found]

    def all_texts(self):
        with self._lock:
            return [message.get_body(preferencelist=("plain",)).get_content() for _, message in self.messages]

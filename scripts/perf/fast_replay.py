#!/usr/bin/env python3
"""A server that is never the bottleneck: serves a captured replay (an SSE body) on every
event-stream request in 1 MiB writes, then holds the stream open; forwards everything else
to the simulator. For by-hand `farm-bench` runs of `tail` and `export` against curl.

    cargo run --release -p gobare-sim --example seeded_sim -- 200000   # API TOKEN ID LAST
    curl -sN -H "Authorization: Bearer TOKEN" "API/v1/sessions/ID/events?last_event_id=0" \
        > replay.sse   # interrupt once the last seq has arrived
    scripts/perf/fast_replay.py replay.sse API PORT
    farm-bench --vs "sh -c 'curl -sN -H \\"Authorization: Bearer TOKEN\\" \\
        \\"http://127.0.0.1:PORT/v1/sessions/ID/events?last_event_id=0&close=1\\" | grep -m1 -qF \\"seq\\":LAST,'" \\
        -- sh -c 'gobare-tui --api http://127.0.0.1:PORT tail ID --from 0 | grep -m1 -qF \\"seq\\":LAST,'
"""
import http.server
import socketserver
import sys
import urllib.request

REPLAY = open(sys.argv[1], "rb").read()
UPSTREAM = sys.argv[2].rstrip("/")
PORT = int(sys.argv[3])
WRITE = 1 << 20


class Front(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.split("?")[0].endswith("/events"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            view = memoryview(REPLAY)
            try:
                for at in range(0, len(view), WRITE):
                    self.wfile.write(view[at : at + WRITE])
                self.wfile.flush()
                # Held open as a live stream is, until the client goes; `?close=1`
                # (for curl, which then ends with the replay) closes it at once.
                while "close=1" not in self.path and self.rfile.read(1):
                    pass
            except OSError:
                pass
            self.close_connection = True
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        req = urllib.request.Request(UPSTREAM + self.path, headers=headers)
        try:
            answer = urllib.request.urlopen(req)
            status, body, got = answer.status, answer.read(), answer.headers
        except urllib.error.HTTPError as e:
            status, body, got = e.code, e.read(), e.headers
        self.send_response(status)
        for k, v in got.items():
            if k.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


Server(("127.0.0.1", PORT), Front).serve_forever()

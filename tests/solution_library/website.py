"""A real documentation website on loopback, which a test can change between syncs."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Website:
    def __init__(self):
        self.pages: dict[str, bytes] = {}
        self.sitemap_paths: list[str] | None = None
        self.redirects: dict[str, str] = {}  # path → Location
        self.latency = 0.0
        self.requests: list[str] = []
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"

    def page(self, path: str, title: str, paragraphs: list[str], links: list[str] = ()) -> None:
        anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
        body = "".join(f"<p>{p}</p>" for p in paragraphs)
        self.pages[path] = (
            f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}<ul>{anchors}</ul></body></html>"
        ).encode()

    def hits(self, path: str) -> int:
        with self._lock:
            return self.requests.count(path)

    def _sitemap(self) -> bytes:
        locs = "".join(f"<url><loc>{self.url(p)}</loc></url>" for p in self.sitemap_paths or [])
        return (
            f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'.encode()
        )

    def _handler(self):
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                with site._lock:
                    site.requests.append(self.path)
                time.sleep(site.latency)
                if self.path in site.redirects:
                    self.send_response(302)
                    self.send_header("Location", site.redirects[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path == "/sitemap.xml" and site.sitemap_paths is not None:
                    self._send(200, site._sitemap(), "application/xml")
                elif self.path in site.pages:
                    self._send(200, site.pages[self.path], "text/html; charset=utf-8")
                else:
                    self._send(404, b"<html><body>Not found</body></html>", "text/html")

            def _send(self, status, body, content_type):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

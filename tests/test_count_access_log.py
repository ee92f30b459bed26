"""Web access logs (the Common and Combined Log Formats) are records with fields, counted and
summed in plain words with no model call. The Common format comes from a real writer:
Python's http.server, serving on loopback and logging each request as web servers do; the
Combined format is nginx's default `log_format combined` (the referer and user agent
quoted), written line by line."""

from __future__ import annotations

import http.server
import io
import threading
from contextlib import closing, redirect_stderr

import httpx
import pytest
from strategy_support import ask, load, small_runtime

from rlm_recursive.corpus.records import detect_format, read_layout


def _served_log(paths: list[str]) -> str:
    """What http.server writes to stderr for each request (its access log)."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:  # the handler API names it
            if self.path.startswith("/ok"):
                body = b"fine" * (len(self.path) % 7 + 1)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(404)

    log = io.StringIO()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    with redirect_stderr(log):
        thread.start()
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{server.server_port}") as client:
                for path in paths:
                    client.get(path)
        finally:
            server.shutdown()
            server.server_close()
    return log.getvalue()


def _combined(rows: list[tuple[str, str, int, int, str]]) -> str:
    """nginx's `combined` format, plus the request time it is often extended with."""
    return "".join(
        f'{ip} - - [09/Mar/2025:08:{i // 60:02d}:{i % 60:02d} +0000] "GET {path} HTTP/1.1" '
        f'{status} {size} "-" "{agent}" rt=0.0{i % 9}\n'
        for i, (ip, path, status, size, agent) in enumerate(rows))


ROWS = [("203.0.113.77", "/", 200, 14210, "Mozilla/5.0 (X11; Linux x86_64) Firefox/124.0"),
        ("198.51.100.4", "/search?q=404", 200, 5120, "Googlebot/2.1"),
        ("203.0.113.77", "/favicon.ico", 404, 153, "Mozilla/5.0 (X11; Linux x86_64)"),
        ("192.0.2.10", "/item/88", 404, 153, "curl/8.5.0"),
        ("203.0.113.77", "/item/12", 200, 9000, "Mozilla/5.0 (X11; Linux x86_64)"),
        ("192.0.2.10", "/admin", 403, 0, "curl/8.5.0")] * 5


@pytest.fixture
def rt(tmp_path, monkeypatch):
    with closing(small_runtime(tmp_path, monkeypatch)) as runtime:
        yield runtime


def _no_model(request):
    raise AssertionError("a count over fields asks no model")


def test_both_formats_are_read_as_requests_with_their_fields():
    common = _served_log(["/ok/a", "/missing", "/ok/bb", "/gone", "/ok/c"] * 4)
    assert detect_format(common) == "access"
    layout = read_layout([("d", common)])
    # Every request is a record with its fields; http.server also writes a line of its own
    # before each error ("code 404, message Not Found"), a record with none.
    requests = [r for r in layout.records if "status" in r.fields]
    assert len(requests) == 20 and layout.unit == "request"
    assert layout.fields["status"] == {"200": 12, "404": 8}
    assert layout.fields["client"] == {"127.0.0.1": 20}
    combined = _combined(ROWS)
    assert detect_format(combined) == "access"
    fields = read_layout([("d", combined)]).fields
    assert fields["status"]["404"] == 10 and fields["user_agent"]["curl/8.5.0"] == 10
    assert fields["rt"]  # what the server appended after the format


@pytest.mark.parametrize("question", ["How many 404s are in the log?",
                                      "How many requests got a 404 status?"])
async def test_statuses_count_exactly_from_a_real_servers_log(rt, question):
    log = _served_log(["/ok/a", "/missing", "/ok/bb", "/gone", "/ok/c", "/nope"] * 3)
    sid = load(rt, log)
    result, fake = await ask(rt, sid, question, "auto", _no_model)
    assert result.strategy == "count" and fake.requests == []
    assert result.answer.split()[0] == "9", result.answer
    assert "counted exactly by code" in result.answer


async def test_bytes_to_one_client_are_summed(rt):
    sid = load(rt, _combined(ROWS))
    result, fake = await ask(rt, sid, "In total, how many bytes were sent to 203.0.113.77?",
                             "auto", _no_model)
    gold = sum(size for ip, _, _, size, _ in ROWS if ip == "203.0.113.77")
    assert fake.requests == []
    assert result.answer.split()[0].replace(",", "") == str(gold), result.answer

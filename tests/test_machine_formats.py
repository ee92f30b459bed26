"""Machine formats whose fields have no labels: DNS zone files and Squid's access log read
into records with the fields their documentation names, the CNAME chain a resolver follows,
and the counts and look-ups over them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from strategy_support import ask, assert_counted_by_code, load_named, small_runtime

from rlm_recursive.agent.copied_check import verify_extract
from rlm_recursive.corpus.asked import asked_label
from rlm_recursive.corpus.positional import positional_fields
from rlm_recursive.corpus.proxy_log import squid_fields
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.zone_chains import resolved_address
from rlm_recursive.corpus.zone_records import zone_records
from rlm_recursive.providers.fake import reply

ZONE = """\
; zone for the harbour pilots' booking system
$TTL 86400
$ORIGIN pilotage-booking.invalid.
@   IN SOA  dns1.pilotage-booking.invalid. admin.pilotage-booking.invalid. (
        2031040507 ; serial
        3600       ; refresh
        900        ; retry
        604800     ; expire
        600 )      ; minimum
    IN NS   dns1
    IN MX   5 relay.pilotage-booking.invalid.
dns1        IN A     203.0.113.40
relay       IN A     203.0.113.41
portal      IN A     198.51.100.17
tides       120 IN A 198.51.100.90  ; short TTL during the migration
tides-v6    IN AAAA  2001:db8::90
berths      IN CNAME portal
bookings    IN CNAME berths.pilotage-booking.invalid.
rota        IN CNAME bookings
; legacy    IN CNAME portal   ; retired in March
loop-a      IN CNAME loop-b
loop-b      IN CNAME loop-a
twin        IN A     192.0.2.5
twin        IN A     192.0.2.6
twin-alias  IN CNAME twin
"""

SQUID = "\n".join([
    "1801000000.101    120 192.0.2.44 TCP_MISS/200 5120 GET http://charts.invalid/a.png "
    "mkowalski HIER_DIRECT/198.51.100.3 image/png",
    "1801000010.202      0 192.0.2.45 TCP_DENIED/403 3890 GET http://games.invalid/ "
    "tbrennan HIER_NONE/- text/html",
    "1801000020.303     15 192.0.2.44 TCP_HIT/200 880 GET http://charts.invalid/b.png "
    "mkowalski HIER_NONE/- image/png",
    "1801000030.404      0 192.0.2.46 TCP_DENIED/403 3890 CONNECT games.invalid:443 "
    "- HIER_NONE/- -",
    "1801000040.505   3300 192.0.2.45 TCP_TUNNEL/200 990112 CONNECT mail.invalid:443 "
    "tbrennan HIER_DIRECT/203.0.113.9 -",
    "1801000050.606     44 192.0.2.47 TCP_MISS/304 210 GET http://news.invalid/ "
    "rjones HIER_DIRECT/203.0.113.10 text/html",
]) + "\n"


def test_zone_records_follow_the_master_file_rules() -> None:
    records = {(f["name"], f["type"], f.get("address") or f.get("canonical name") or ""): f
               for _, _, f in zone_records(ZONE) or []}
    soa = next(f for _, _, f in zone_records(ZONE) or [] if f["type"] == "SOA")
    assert soa["name"] == "pilotage-booking.invalid"
    assert (soa["serial"], soa["retry"], soa["minimum"]) == ("2031040507", "900", "600")
    # An owner left out is the line's before (the origin's NS and MX).
    assert ("pilotage-booking.invalid", "NS", "") in records
    mx = next(f for _, _, f in zone_records(ZONE) or [] if f["type"] == "MX")
    assert (mx["preference"], mx["exchange"]) == ("5", "relay.pilotage-booking.invalid.")
    tides = records[("tides.pilotage-booking.invalid", "A", "198.51.100.90")]
    assert tides["ttl"] == "120"
    # The $TTL default is not said on a record's line: no ttl field to cite.
    assert "ttl" not in records[("portal.pilotage-booking.invalid", "A", "198.51.100.17")]
    # A record commented out is a comment.
    assert not any(name.startswith("legacy") for name, _, _ in records)


def test_zone_and_squid_documents_are_read_by_their_shape() -> None:
    layout = read_layout([("z", ZONE), ("p", SQUID), ("n", "Plan A is good.\nPlan B is not.\n"
                                                           "We met at noon.\n")])
    assert layout.formats == {"z": "zone", "p": "squid", "n": "prose"}
    assert layout.unit in ("record", "request")
    assert "proxy" in layout.titles["p"].lower() and "zone" in layout.titles["z"].lower()


def test_squid_fields_are_named_as_its_documentation_names_them() -> None:
    fields = squid_fields(SQUID.splitlines()[1])
    assert fields is not None
    assert (fields["client"], fields["result"], fields["outcome"], fields["status"],
            fields["bytes"], fields["method"], fields["user"], fields["hierarchy"]) == (
        "192.0.2.45", "TCP_DENIED", "DENIED", "403", "3890", "GET", "tbrennan", "HIER_NONE")
    assert "peer" not in fields  # "-" is Squid's "none"
    assert "user" not in (squid_fields(SQUID.splitlines()[3]) or {"user": ""})
    assert squid_fields("192.0.2.1 - - [01/Jan/2030:00:00:00 +0000] \"GET / HTTP/1.1\" 200 5"
                        ) is None


def test_a_cname_chain_is_followed_to_its_address() -> None:
    found = resolved_address("What IP address does rota.pilotage-booking.invalid resolve to?",
                             [("z", ZONE)])
    assert found is not None and found.value == "198.51.100.17"
    cited = [ZONE[a:b].split()[0] for a, b in found.records]
    assert cited == ["rota", "bookings", "berths", "portal"]
    assert found.through == ("bookings", "berths.pilotage-booking.invalid", "portal")


def test_a_chain_that_loops_forks_or_lacks_the_asked_type_is_refused() -> None:
    for question in ("What IP does loop-a.pilotage-booking.invalid resolve to?",
                     "What address does twin-alias.pilotage-booking.invalid point to?",
                     "What is the IPv6 (AAAA) address of rota.pilotage-booking.invalid?",
                     "What IP address does ghost.pilotage-booking.invalid resolve to?"):
        assert resolved_address(question, [("z", ZONE)]) is None, question
    six = resolved_address("IPv6 address of tides-v6.pilotage-booking.invalid", [("z", ZONE)])
    assert six is not None and six.value == "2001:db8::90" and six.kind == "AAAA"


def test_the_chain_answers_a_search_grounded_with_every_record_cited(
        tmp_path: Path, monkeypatch: Any) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"db.pilotage": ZONE})
        result, _ = asyncio.run(ask(
            runtime, sid, "Which IP address does rota.pilotage-booking.invalid ultimately "
            "resolve to?", "search", lambda request: reply("Not found.")))
    finally:
        runtime.close()
    assert result.grounded is True and result.answer.endswith("198.51.100.17"), result.answer
    cited = {ZONE[c.start:c.end].split()[0] for c in result.citations if c.end - c.start < 80}
    assert {"rota", "bookings", "berths", "portal"} <= cited


def test_denied_requests_are_counted_by_code(tmp_path: Path, monkeypatch: Any) -> None:
    asyncio.run(assert_counted_by_code(tmp_path, monkeypatch, {"cache.log": SQUID},
                                       "How many requests did the proxy deny?", 2))


def test_a_positional_field_is_named_by_its_format() -> None:
    line = SQUID.splitlines()[0]
    assert {"client", "bytes", "user", "status"} <= positional_fields(line)
    assert {"ttl", "address", "type"} <= positional_fields(ZONE.splitlines()[14])
    assert positional_fields("Client: 192.0.2.44") == frozenset()
    assert verify_extract("Which client address did mkowalski browse from?",
                          "client: 192.0.2.44", line, "")


def test_a_query_of_keywords_asks_the_word_before_its_shape_word() -> None:
    assert asked_label("relay preference value pilotage-booking") == ("prefer",)
    assert asked_label("What is the preference value of the relay?") == ("prefer",)

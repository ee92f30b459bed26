"""A program's ruled report (its columns named by the header over the rule), sums over its
named columns and a row picked by a column named with its value, a Prometheus scrape's
state sets, and a title line that is no record saying the question's words."""

from __future__ import annotations

from strategy_support import ask, load_named, small_runtime

from rlm_recursive.corpus.exposition import exposition_records, is_exposition
from rlm_recursive.providers.fake import reply

_QUEUES = """\
$ queuectl status --all
# taken 2026-03-04 11:02 by the night desk

QUEUE            SHARD   DEPTH    OLDEST-SECS   WORKER
---------------  ------  -------  ------------  ------
pickle-jars      0       1200     41            wk-a
pickle-jars      1       35       3             wk-b
pickle-jars      2       980      40            wk-a
label-printer    0       7        1             wk-c
label-printer    1       12       2             wk-c
"""


_SCRAPE = """\
# HELP kiln_zone_state Zone state of each kiln.
# TYPE kiln_zone_state gauge
kiln_zone_state{kiln="north",state="firing"} 1
kiln_zone_state{kiln="north",state="cooling"} 0
kiln_zone_state{kiln="north",state="fault"} 0
kiln_zone_state{kiln="south",state="firing"} 0
kiln_zone_state{kiln="south",state="cooling"} 0
kiln_zone_state{kiln="south",state="fault"} 1
kiln_zone_state{kiln="east",state="firing"} 0
kiln_zone_state{kiln="east",state="cooling"} 1
kiln_zone_state{kiln="east",state="fault"} 0
# HELP kiln_temperature_celsius Chamber temperature.
# TYPE kiln_temperature_celsius gauge
kiln_temperature_celsius{kiln="north"} 1180.5
kiln_temperature_celsius{kiln="south"} 22
kiln_temperature_celsius{kiln="east"} 240
"""


async def test_a_total_sums_the_column_named_next_to_it(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"queues.txt": _QUEUES})
    # "across all shards" names another numeric column; the total is of the depth.
    result, _ = await ask(runtime, sid, "Total depth across all shards of the pickle-jars "
                          "queue?", "auto", lambda request: reply("Not found."))
    assert result.grounded and result.answer.startswith("2,215"), result.answer
    runtime.close()


def test_a_scrape_keeps_only_the_state_each_thing_is_in() -> None:
    assert is_exposition(_SCRAPE)
    samples = [f for _, _, f in exposition_records(_SCRAPE) if f]
    states = [(f["kiln"], f["state"]) for f in samples if f["metric"] == "kiln_zone_state"]
    assert states == [("north", "firing"), ("south", "fault"), ("east", "cooling")]
    # A gauge of other values keeps every sample.
    assert [f["value"] for f in samples if f["metric"] == "kiln_temperature_celsius"] == [
        "1180.5", "22", "240"]
    assert not is_exposition("node 1\nnode 2\n")  # no `# TYPE` line: no scrape


async def test_a_state_set_is_counted_by_the_state_held(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"kilns.prom": _SCRAPE})
    result, _ = await ask(runtime, sid, "how many kilns are in the fault state?", "auto",
                          lambda request: reply("Not found."))
    assert result.grounded and result.answer.split()[0] == "1", result.answer
    runtime.close()


_RESULTS = """\
MOORSIDE HARRIERS - OPEN 5K PARKLAND RACE
Results, provisional

Pos  No   Name               Club                  Time
---  ---  -----------------  --------------------  -----
1    12   Ann Breck          Moorside Harriers     17:02
2    7    Joe Pell           Fellgate AC           17:40
3    31   Sue Marr           Moorside Harriers     18:15   first open race
4    22   Raj Dutt           Fellgate AC           18:50
5    9    Kim Orr            Moorside Harriers     19:20
"""


async def test_words_the_title_line_says_name_the_document(tmp_path, monkeypatch) -> None:
    # "open" is said by the title line and by one row's note: it names the race, not a
    # condition on the rows (which counted 1, exactly, for 3).
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"results.txt": _RESULTS, "notes.txt": "Marshals: six.\n"
                               "Car park opens at 8.\n"})
    result, _ = await ask(runtime, sid, "How many Moorside Harriers runners finished the "
                          "open 5K?", "auto", lambda request: reply("Not found."))
    assert result.answer.split()[0] == "3", result.answer
    runtime.close()


async def test_a_row_is_picked_by_a_column_named_with_its_value(tmp_path, monkeypatch) -> None:
    # "shard 1": the SHARD column's cell is 1 in one pickle-jars row only; the column's name
    # is in the header, not the row, and the title's header words name no subject.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"queues.txt": _QUEUES})
    result, _ = await ask(runtime, sid, "What was the depth on shard 1 of pickle-jars?",
                          "auto", lambda request: reply("Not found."))
    assert result.grounded and "35" in result.answer and "1200" not in result.answer
    missing, _ = await ask(runtime, sid, "What was the depth on shard 7 of pickle-jars?",
                           "auto", lambda request: reply("Not found."))
    assert not missing.grounded
    runtime.close()

"""Counting rows of a paged fixed-width report: the page banner above each header says what
every row is ("UNSERVICED VEHICLES BY DEPOT"), the header repeats on each page, columns sit
close together ("12/03/2031    41" under "LAST   MILES"), a name in a row ("Route 40 Miles")
is no header, and a code the question glosses in parentheses ("at Hatherby (depot HTB)") is
the condition the rows write. The report is written here; the expected numbers come from
the rows written. No model call."""

from __future__ import annotations

import random

from rlm_recursive.agent.counting.glosses import glossed_codes
from rlm_recursive.agent.counting.table_rows import compared_rows, summed_rows
from rlm_recursive.agent.routing import route
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.word_stems import words

DEPOTS = ("HTB", "LMC", "SWN")


def _vehicles(seed: int = 5) -> list[tuple[str, str, str, int]]:
    rng = random.Random(seed)
    out = []
    for i in range(30):
        depot = DEPOTS[i * len(DEPOTS) // 30]
        name = "Route 40 Miles shuttle" if i == 4 else f"Van {rng.choice('ABCDE')}{i:02d}"
        out.append((f"FV{7100 + i}", name, depot, rng.randint(2, 120)))
    return out


def _report(rows: list[tuple[str, str, str, int]], per_page: int = 12) -> str:
    out: list[str] = []
    rule = "-" * 70
    for page, first in enumerate(range(0, len(rows), per_page), 1):
        out += [f"WESTFOLD COUNCIL FLEET                                  PAGE {page}",
                "REPORT FL-22   UNSERVICED VEHICLES BY DEPOT",
                rule,
                "FLEETNO  VEHICLE                      DEPOT LAST        MILES",
                rule]
        for fleet, name, depot, miles in rows[first:first + per_page]:
            out.append(f"{fleet:<8} {name:<28} {depot:<5} 12/03/2031 {miles:>5}")
        out += ["", f"  ** page {page} ends **", ""]
    out += ["KEYS", "  MILES  hundreds of miles since the last service", ""]
    return "\n".join(out)


def test_a_glossed_code_stands_for_the_name_and_its_verb() -> None:
    question = "How many vans kept at Hatherby (depot HTB) are 40 or more miles overdue?"
    codes, said = glossed_codes(question)
    ws = words(question)
    assert codes == ["HTB"]
    assert {ws[i] for i in said} == {"kept", "hatherby", "depot", "htb"}
    assert glossed_codes("How many vans are there (all depots)?") == ([], set())


def test_rows_of_a_paged_report_counted_under_a_named_column() -> None:
    rows = _vehicles()
    text = _report(rows)
    question = "How many vehicles kept at Hatherby (depot HTB) are unserviced for 40 or more miles?"
    found = compared_rows(question, [("fleet.txt", text)], [])
    gold = sum(depot == "HTB" and miles >= 40 for _, _, depot, miles in rows)
    assert gold >= 2
    assert found is not None and found.total == gold
    # Every row's cell, across the pages (the row named "Route 40 Miles" included).
    every = compared_rows("How many unserviced vehicles have 0 or more miles?",
                          [("fleet.txt", text)], [])
    assert every is not None and every.total == len(rows)


def test_a_code_no_row_writes_counts_nothing() -> None:
    text = _report(_vehicles())
    assert compared_rows("How many vehicles at Dunmere (depot DNM) have 40 or more miles?",
                         [("fleet.txt", text)], []) is None


def test_a_column_summed_over_the_rows_a_glossed_code_chooses() -> None:
    rows = _vehicles()
    text = _report(rows)
    found = summed_rows("What is the combined total of the miles run by the unserviced vehicles "
                        "at the Lowmoor yard (LMC), in miles?", [("fleet.txt", text)], [])
    assert found is not None
    assert found.value == sum(m for _, _, depot, m in rows if depot == "LMC")
    assert len(found.rows) == sum(depot == "LMC" for _, _, depot, _ in rows)
    # A count, or a number no column is named for, is no sum.
    assert summed_rows("How many miles in total at the Lowmoor yard (LMC)?",
                       [("fleet.txt", text)], []) is None
    assert summed_rows("What is the total of the miles for vehicles serviced on 12/03/2031?",
                       [("fleet.txt", text)], []) is None


def test_a_column_sum_is_routed_to_the_count_strategy() -> None:
    text = _report(_vehicles())
    layout = read_layout([("fleet.txt", text)], {"fleet.txt": "fleet.txt"})
    question = "What is the total of the miles run by the vehicles at Swanby (depot SWN)?"
    assert route(question, layout, [text])[0] == "count"

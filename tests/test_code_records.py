"""A Python module's constructor calls and dicts of dicts as records (corpus.code_records,
read by corpus.code_facts)."""

from __future__ import annotations

from rlm_recursive.corpus.assignments import settings
from rlm_recursive.corpus.code_facts import code_fact
from rlm_recursive.corpus.code_records import code_records

FERRIES = '''"""Island ferry timetable constants."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from datetime import time


@dataclass(frozen=True)
class Crossing:
    route: str
    island: str
    vessel: str
    sail_minutes: int | None
    first: time
    fare: Decimal
    bikes: bool = False


CROSSINGS = [
    Crossing("R1", "Skerry Holm",  "MV Tern",   35, time(7), Decimal("6.40")),
    Crossing("R2", "Auskerry",     "MV Fulmar", 50, time(8), Decimal("8.10"), bikes=True),
    Crossing("R3", "Linga Sound",  "MV Tern",   None, time(9), Decimal("4.75")),
]

CABINS = {
    "upper": {"berths": 4, "supplement": Decimal("22.00")},
    "lower": {"berths": 2, "supplement": Decimal("15.50")},
}
'''


def test_constructor_calls_are_records_named_by_the_class_fields() -> None:
    groups = code_records(FERRIES)
    calls = next(g for g in groups if len(g) == 3)
    start, end, fields = calls[1]
    assert FERRIES[start:end].startswith('Crossing("R2"')
    assert fields["island"] == "Auskerry" and fields["sail_minutes"] == "50"
    assert fields["fare"] == "8.10" and fields["bikes"] == "True"
    # `time(8)` is a clock time, not the number 8; `None` is no value.
    assert "first" not in fields and "sail_minutes" not in calls[2][2]


def test_a_field_of_the_record_the_question_names() -> None:
    fact = code_fact("How many sail minutes is the crossing to Linga Sound?",
                     [("ferries.py", FERRIES)])
    # Linga Sound's call gives no sail time (`None`): no other crossing's is its.
    assert fact is None
    fact = code_fact("How many sail minutes is the crossing to Skerry Holm?",
                     [("ferries.py", FERRIES)])
    assert fact is not None and fact.value == "35"
    assert "Skerry Holm" in FERRIES[fact.start:fact.end]


def test_a_dict_of_dicts_keyed_records() -> None:
    groups = code_records(FERRIES)
    cabins = next(g for g in groups if any("key" in f for _, _, f in g))
    assert [f["key"] for _, _, f in cabins] == ["upper", "lower"]
    assert cabins[1][2]["supplement"] == "15.50"


def test_a_python_modules_annotations_are_no_settings() -> None:
    assert not any(s.name == "fare" for s in settings(FERRIES))
    assert code_fact("what is the fare type", [("ferries.py", FERRIES)]) is None


def test_text_that_is_not_python_gives_no_records() -> None:
    assert code_records("route: R1\n  island: Skerry Holm\n bad indent") == []

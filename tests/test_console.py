"""Per-host console output (`corpus.console`): outcome and recap lines as records keyed by
the host in brackets, the field of the host a line describes (`corpus.line_links`), and a
sum over the recap's counts."""

from __future__ import annotations

import pytest
from strategy_support import ask, load_named, no_model, small_runtime

from rlm_recursive.agent.answers.measures import asked_measures
from rlm_recursive.agent.routing import route
from rlm_recursive.corpus.console import console_records
from rlm_recursive.corpus.line_fields import line_field
from rlm_recursive.corpus.line_links import line_link
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.providers.fake import reply

RUN = """\
$ ansible-playbook lab.yml -i hosts.ini

PLAY [Refresh the greenhouse sensors] *****************************

TASK [Gathering Facts] ********************************************
ok: [probe-n1]
ok: [probe-n2]
ok: [probe-s1]

TASK [sensors : Flash firmware 4.2] *******************************
changed: [probe-n1]
ok: [probe-n2]
fatal: [probe-s1]: UNREACHABLE! => {"msg": "ssh: connect to host timed out", "unreachable": true}

TASK [sensors : Restart collector] ********************************
changed: [probe-n1]
changed: [probe-n2] => (item=collector)

PLAY RECAP ********************************************************
probe-n1                   : ok=3    changed=2    unreachable=0    failed=0    skipped=0
probe-n2                   : ok=4    changed=1    unreachable=0    failed=0    skipped=1
probe-s1                   : ok=1    changed=0    unreachable=1    failed=0    skipped=2
"""


def _records():
    found = console_records(RUN)
    assert found is not None
    return [(RUN[a:b], fields) for a, b, fields in found]


def test_each_outcome_line_is_keyed_by_its_host_under_its_task():
    lines = dict(_records())
    fields = lines["changed: [probe-n2] => (item=collector)"]
    assert fields["status"] == "changed" and fields["host"] == "probe-n2"
    assert fields["task"] == "sensors : Restart collector"
    assert fields["play"] == "Refresh the greenhouse sensors"
    fatal = next(f for line, f in lines.items() if line.startswith("fatal"))
    assert fatal["host"] == "probe-s1" and fatal["error"] == "UNREACHABLE"


def test_each_recap_line_gives_its_hosts_counts():
    recap = [f for line, f in _records() if "ok=" in line]
    assert [f["host"] for f in recap] == ["probe-n1", "probe-n2", "probe-s1"]
    assert recap[1]["changed"] == "1" and recap[2]["unreachable"] == "1"
    assert {f["section"] for f in recap} == {"PLAY RECAP"}


@pytest.mark.parametrize("text", [
    "ok: [a1]\nok: [a2]\n",  # too few outcomes to be a run's output
    "info: [db] connected\nwarn: [db] slow query\ninfo: [mq] up\ninfo: [db] idle\n",  # a log
    "Notes from the visit\n" + "The pump was ok: [see photo] and then\n" * 2
    + "A long paragraph about the site.\n" * 10,
])
def test_other_text_is_not_read_as_console_output(text):
    assert console_records(text) is None


def test_the_field_of_the_host_a_line_describes_is_read_from_its_recap_line():
    found = line_link("The sensor host that the play could not reach: what skipped count "
                      "does the recap give for it?", [("run.txt", RUN)])
    assert found is not None and found.value == "2" and found.bridge == "probe-s1"
    assert "UNREACHABLE" in RUN[found.described[0]:found.described[1]]


def test_two_lines_describing_it_alike_or_no_key_asked_give_nothing():
    twice = RUN.replace("changed: [probe-n1]\nok: [probe-n2]",
                        'changed: [probe-n1]\nfatal: [probe-n2]: UNREACHABLE! => '
                        '{"msg": "Failed to connect to the host via ssh: timed out"}')
    question = "The host that could not be reached over ssh: what ok count has it?"
    assert line_link(question, [("run.txt", twice)]) is None
    assert line_link("The host that could not be reached over ssh: which task was it?",
                     [("run.txt", RUN)]) is None


def test_a_host_named_on_every_steps_line_is_read_from_the_line_giving_the_field():
    more = RUN.replace("PLAY RECAP", "TASK [sensors : Rotate logs] ****\nok: [probe-n2]\n"
                       "ok: [probe-n2] => (item=archive)\n\nPLAY RECAP")
    question = "What ok count does the recap show for probe-n2?"
    found = line_field(question, [("run.txt", more)])
    assert found is not None and found.value == "4" and found.label == "ok"
    # Two lines giving the field with different values: no answer.
    twice = more + "probe-n2                   : ok=5    changed=0\n"
    assert line_field(question, [("run.txt", twice)]) is None


def test_a_hosts_name_asks_no_unit():
    assert asked_measures("What is the failed count for db-s1.lab.invalid?") == []
    assert [m.name for m in asked_measures("How loud is the db-s1 fan, in dB?")] == ["loudness"]


def test_a_question_about_what_the_recap_shows_is_a_look_up_not_a_summary():
    layout = read_layout([("run.txt", RUN)])
    assert route("What ok count does the recap show for probe-n2?", layout)[0] != "map-reduce"
    assert route("Recap the run for me.", layout)[0] == "map-reduce"


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    rt = small_runtime(tmp_path, monkeypatch)
    yield rt
    rt.close()


async def test_the_recaps_changed_counts_are_summed_by_code(runtime):
    sid = load_named(runtime, {"run.txt": RUN})
    result, _ = await ask(runtime, sid, "What is the total 'changed' across all hosts in the "
                          "play recap?", "auto", no_model)
    assert result.strategy == "count" and result.answer.split()[0] == "3", result.answer
    assert result.grounded is True


async def test_the_hop_through_the_described_host_is_answered_grounded(runtime):
    sid = load_named(runtime, {"run.txt": RUN})
    result, _ = await ask(runtime, sid, "The sensor host that the play could not reach: "
                          "what skipped count does the recap give for it?", "auto",
                          lambda request: reply("Not found."))
    assert result.grounded is True and "2" in result.answer, result.answer


async def test_a_recap_count_of_a_host_named_like_a_unit_is_answered(runtime):
    sid = load_named(runtime, {"run.txt": RUN.replace("probe-n1", "db-n1")})
    result, _ = await ask(runtime, sid, "What is the failed count for db-n1 in the play recap?",
                          "auto", lambda request: reply("Not found."))
    assert result.grounded is True and result.answer.endswith("0"), result.answer

"""A sample configuration documents its defaults commented out (`#port = 5432  # (change
requires restart)`, sshd's `#PermitRootLogin no`): each is a setting with its note, read
for "the default X", "the smallest X allowed" (the note's `min`), and "the setting that does
Y" (the note's words); the file's name says what the file is ("the kilnd sample config")."""

from __future__ import annotations

import pytest
from strategy_support import ask, load_named, small_runtime

from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.corpus.assignments import settings
from rlm_recursive.corpus.code_facts import code_fact
from rlm_recursive.corpus.doc_titles import file_words
from rlm_recursive.providers.fake import reply

_SAMPLE = """\
# -----------------------------------------------------------------
# KILN CONTROLLER DAEMON -- SAMPLE FILE
# -----------------------------------------------------------------
# Copy to kilnd.conf and uncomment what you change.

# - Firing -

#ramp_rate = 150\t\t\t# degrees per hour; min 20
#hold_minutes = 12\t\t# range 0-240
#peak_temperature = 1222\t# (takes effect next firing)
\t\t\t\t\t# cone 6 by default
#vent_open_below = 700\t\t# opens the damper under this temperature

# - Network -

#listen_port = 8611\t\t# (change requires restart)
#status_page = on\t\t# serve the status page
# see the manual for the status page's fields
"""

_SSHD_LIKE = """\
# Defaults of the glaze-room door controller, commented out.

#UnlockSeconds 9
#AlarmDelay 30
#PermitRemoteOpen no

# Site changes
AlarmDelay 45
"""


def test_commented_out_settings_are_read_with_their_notes() -> None:
    found = {s.name: s for s in settings(_SAMPLE)}
    assert found["ramp_rate"].value == "150"
    assert found["ramp_rate"].commented
    assert found["ramp_rate"].note == "degrees per hour; min 20"
    # An indented comment line under a setting carries its note on.
    assert found["peak_temperature"].note == "(takes effect next firing) cone 6 by default"
    # Prose comments ("see the manual ...", "Copy to kilnd.conf ...") are no settings.
    assert set(found) == {"ramp_rate", "hold_minutes", "peak_temperature", "vent_open_below",
                          "listen_port", "status_page"}


def test_an_active_setting_overrides_its_commented_default() -> None:
    found = settings(_SSHD_LIKE.replace("AlarmDelay 45", "alarm_delay = 45").replace(
        "#AlarmDelay 30", "#alarm_delay = 30"))
    values = {s.name: (s.value, s.commented) for s in found}
    assert values["alarm_delay"] == ("45", False)
    assert values["UnlockSeconds"] == ("9", True)


@pytest.mark.parametrize(("question", "value"), [
    ("ramp rate default", "150"),
    ("What port does the kiln daemon listen on by default?", "8611"),
    ("What is the smallest ramp rate allowed?", "20"),
    ("the longest hold you can set, in minutes", "240"),
    ("The setting that opens the damper: what is its default?", "700"),
])
def test_a_sample_default_answers(question: str, value: str) -> None:
    fact = code_fact(question, [("d1", _SAMPLE)], {"d1": "kilnd.conf.sample"})
    assert fact is not None and fact.value == value


def test_a_bound_the_note_does_not_give_is_refused() -> None:
    # "largest" asks a bound; the peak temperature's note gives none, and its default is
    # no maximum.
    assert code_fact("What is the largest peak temperature allowed?",
                     [("d1", _SAMPLE)], {"d1": "kilnd.conf.sample"}) is None


def test_the_file_name_says_what_the_question_calls_the_file() -> None:
    assert file_words("/etc/kiln/kilnd.conf.sample") == "kilnd conf sample"
    # The document's name says "potterd"; without it, half the question's other words are
    # not in the text.
    question = "Default status page setting of the potterd glaze sample?"
    assert code_fact(question, [("d1", _SAMPLE)], {"d1": "potterd.conf.sample"}).value == "on"
    assert code_fact(question, [("d1", _SAMPLE)]) is None


def test_the_kind_asked_is_read_after_the_colon() -> None:
    # "how much" describes the setting; "what is its default" asks, and -1 is a default.
    question = "The setting that caps how much disk each job may use: what is its default?"
    assert fits_kind(question, "disk_cap: -1")
    assert not fits_kind("How much disk may each job use?", "-1 jobs")


async def test_a_sample_default_is_answered_grounded_through_the_runtime(tmp_path, monkeypatch
                                                                        ) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"potterd.conf.sample": _SAMPLE, "notes.txt":
                               "Firing log kept by hand.\nBisque on Tuesday, glaze Friday.\n"})
    result, _ = await ask(runtime, sid, "What ramp rate does Potterd use by default?",
                          "auto", lambda request: reply("Not found."))
    assert result.grounded and "150" in result.answer
    runtime.close()

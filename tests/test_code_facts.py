"""Single facts in code, configuration and markup (`corpus.code_facts`): a setting's value
under a name the question says in its own words, an element's field of the element the
question describes, a command line's option for the file it names; and the refusals."""

from __future__ import annotations

import pytest
from strategy_support import ask, load_named, small_runtime

from rlm_recursive.corpus.assignments import name_words, settings
from rlm_recursive.corpus.code_facts import code_fact
from rlm_recursive.corpus.command_options import command_options
from rlm_recursive.providers.fake import reply

_JUSTFILE_ENV = """\
# build settings for the beekeeping sensor relay (hivenet)
# The relay uploads on this cadence; the hives' own loggers keep their own.
UPLOAD_INTERVAL_MINUTES := 45
MAX_RETRY_COUNT := 7
RELAY_MAJOR := 5
RELAY_MINOR := 11
RELAY_VERSION := $(RELAY_MAJOR).$(RELAY_MINOR)
BROKER_URL ?= mqtt://relay.invalid:1883

deploy:
\tinstall -m 0600 secrets/hivenet.key /etc/hivenet/hivenet.key
\tinstall -m 0644 etc/hivenet.toml /etc/hivenet/hivenet.toml
\tsvcctl --queue-depth 96 --name hivenet-relay start
"""

_DOCKERFILE = """\
FROM python:3.12-slim
ARG BUILD_CHANNEL=stable
ENV CHEESE_CAVE_HUMIDITY_TARGET=88
ENV CAVE_FAN_SPEED 1400
WORKDIR /srv/cave
RUN useradd --uid 4117 affineur
CMD ["python", "-m", "cave.monitor"]
"""

_SYSTEMD = """\
[Unit]
Description=Tide pool camera uploader

[Service]
Environment=SNAPSHOT_PERIOD_SECONDS=20
RestartSec=12
TimeoutStopSec=40
User=poolcam
"""

_KML = """\
<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
  <Document>
    <Placemark>
      <name>Badger sett - Oakhurst copse</name>
      <depth>2.4</depth>
      <description>Active, fresh spoil heap</description>
    </Placemark>
    <Placemark>
      <name>Fox earth - Millbrook bank</name>
      <depth>1.1</depth>
      <description>Disused since spring</description>
    </Placemark>
    <Placemark>
      <name>Rabbit warren - Oakhurst field edge</name>
      <depth>0.9</depth>
      <description>Large, many entrances near the badger sett</description>
    </Placemark>
  </Document>
</kml>
"""


def _answer(question: str, *texts: str) -> str | None:
    found = code_fact(question, [(f"doc{i}", text) for i, text in enumerate(texts)])
    return found.value if found else None


def test_a_name_is_cut_into_its_words() -> None:
    assert name_words("DEFAULT_POLL_SECONDS") == ["default", "poll", "seconds"]
    assert name_words("maxRetryCount") == ["max", "retry", "count"]
    assert name_words("http.listen-port") == ["http", "listen", "port"]


def test_settings_are_read_in_every_syntax_with_variables_replaced() -> None:
    made = {s.name: s.value for s in settings(_JUSTFILE_ENV)}
    assert made["UPLOAD_INTERVAL_MINUTES"] == "45"
    assert made["RELAY_VERSION"] == "5.11"  # $(RELAY_MAJOR).$(RELAY_MINOR)
    assert made["BROKER_URL"] == "mqtt://relay.invalid:1883"
    docker = {s.name: s.value for s in settings(_DOCKERFILE)}
    assert docker["CHEESE_CAVE_HUMIDITY_TARGET"] == "88" and docker["CAVE_FAN_SPEED"] == "1400"
    unit = {(s.parents, s.name): s.value for s in settings(_SYSTEMD)}
    assert unit[(("Service",), "RestartSec")] == "12"
    # A letter's header lines are no configuration.
    assert settings("Dear Sam,\nSubject: hives\n\nThe relay was down.\nIt is back.\n"
                    "See you Tuesday.\nPat\n") == []


def test_a_setting_answers_the_question_that_says_its_name_in_other_words() -> None:
    assert _answer("upload interval of the hivenet relay, in minutes?",
                   _JUSTFILE_ENV) == "45"
    assert _answer("What is the maximum retry count for the relay?", _JUSTFILE_ENV) == "7"
    assert _answer("which version of the hivenet relay is built?", _JUSTFILE_ENV) == "5.11"
    assert _answer("target humidity for the cheese cave", _DOCKERFILE) == "88"
    assert _answer("restart delay in seconds for the tide pool camera uploader",
                   _SYSTEMD) == "12"


_OPENAPI = """\
openapi: 3.0.3
info:
  title: Seed library loans
  version: 2.1.0
components:
  schemas:
    Loan:
      properties:
        renewal_days: { type: integer, minimum: 7, maximum: 42, default: 21 }
        packets: { type: integer, maximum: 12 }
"""


def test_a_one_line_mapping_gives_each_entry_under_its_key() -> None:
    made = {s.name: s.value for s in settings(_OPENAPI)}
    assert made["renewal_days.default"] == "21" and made["renewal_days.maximum"] == "42"
    assert _answer("by default how many renewal days does a seed library loan get?",
                   _OPENAPI) == "21"
    # `maximum` alone says no "how many days": both entries named so differ.
    assert _answer("what is the maximum for a seed library loan?", _OPENAPI) is None


def test_a_command_option_answers_for_the_file_the_question_names() -> None:
    options = {(o.command, o.flag, o.targets) for o in command_options(_JUSTFILE_ENV)}
    assert ("install", "m", ("hivenet.key", "hivenet.key")) in options
    assert _answer("what mode is hivenet.key installed with?", _JUSTFILE_ENV) == "0600"
    assert _answer("file mode of hivenet.toml after deploy", _JUSTFILE_ENV) == "0644"
    assert _answer("queue depth given to svcctl", _JUSTFILE_ENV) == "96"
    # No file named: the two modes differ, nothing is said.
    assert _answer("what mode are the hivenet files installed with?", _JUSTFILE_ENV) is None


def test_an_element_field_answers_for_the_element_the_question_describes() -> None:
    assert _answer("What depth is the badger sett at Oakhurst copse?", _KML) == "2.4"
    assert _answer("depth of the fox earth on Millbrook bank", _KML) == "1.1"
    # The question names the file's kind, which only its root element says: that is cited.
    found = code_fact("What depth is the badger sett at Oakhurst copse in the KML?",
                      [("doc0", _KML)])
    assert found is not None and found.value == "2.4" and found.opening is not None
    assert "<kml" in _KML[found.opening[0]:found.opening[1]]
    # Described through another element ("near the ... where ..."): a hop, refused.
    assert _answer("depth of the burrow in the copse where the fresh spoil heap is by the "
                   "rabbit warren", _KML) is None


_INI = """\
; orchard cider press controller
[press.primary]
port = 7711
pressure_limit_bar = 6

[press.backup]
port = 7712
pressure_limit_bar = 5
"""


def test_the_section_a_setting_sits_under_says_which_one_is_meant() -> None:
    assert _answer("which port does the backup press listen on?", _INI) == "7712"
    assert _answer("pressure limit of the primary press, in bar", _INI) == "6"
    # Nothing says which press: the two ports differ.
    assert _answer("which port does the cider press controller use?", _INI) is None
    # "press" is every section's: it tells none apart, and no press is the east one.
    assert _answer("which port does the east press listen on?", _INI) is None


def test_refusals() -> None:
    # A name's words not all said: `MAX_RETRY_COUNT` is no "retry delay".
    assert _answer("What is the retry delay of the relay?", _JUSTFILE_ENV) is None
    # The document says nothing of what the question names.
    assert _answer("upload interval in minutes for the Quillfeather weather kite",
                   _JUSTFILE_ENV) is None
    # Two files give the same name different values, nothing tells them apart.
    other = _JUSTFILE_ENV.replace(":= 45", ":= 30")
    assert _answer("upload interval of the hivenet relay, in minutes?",
                   _JUSTFILE_ENV, other) is None
    # The value is already in the question.
    assert _answer("is the maximum retry count 7?", _JUSTFILE_ENV) is None


@pytest.mark.asyncio
async def test_the_search_strategy_answers_a_setting_with_no_model_knowledge(
        tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"Dockerfile": _DOCKERFILE, "poolcam.service": _SYSTEMD})
        result, _ = await ask(runtime, sid, "restart delay in seconds for the tide pool "
                              "camera uploader", "search", lambda request: reply("Not found."))
        assert "12" in result.answer
        assert result.citations
    finally:
        runtime.close()


HCL = """# queue workers for the ticketing service
variable "worker_machine_size" {
  type    = string
  default = "c7g.large"
}

resource "aws_instance" "ticket_worker" {
  ami           = "ami-0abc1234"
  machine_size  = var.worker_machine_size
  monitoring    = true
}

resource "aws_instance" "bastion" {
  ami           = "ami-0def5678"
  machine_size  = "t4g.nano"
}
"""


def test_a_reference_to_another_setting_is_followed_to_its_value() -> None:
    # `var.worker_machine_size` says where the size is written: the variable's one default
    # is the size (a reference with no value is refused, see test_code_blocks), and never
    # the other resource's size.
    fact = code_fact("what machine size does the ticket worker run on", [("main.tf", HCL)])
    assert fact is not None and fact.value == "c7g.large"

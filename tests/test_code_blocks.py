"""Brace blocks in configuration as records, references followed, dates asked of a
timestamp (corpus.assignments, corpus.code_facts, corpus.scopes)."""

from __future__ import annotations

from rlm_recursive.corpus.assignments import is_reference, settings
from rlm_recursive.corpus.code_facts import code_fact
from rlm_recursive.corpus.label_values import label_value as _label_value

STACK = '''# observatory stack, region north

variable "telescope_node_size" {
  type    = string
  default = "c7g.2xlarge" # raised after the spring survey backlog
}

variable "archive_node_size" {
  type    = string
}

resource "compute_node" "telescope" {
  image     = "img-5b2c"
  node_size = var.telescope_node_size
}

resource "compute_node" "archive" {
  image     = "img-7d1e"
  node_size = var.archive_node_size
}

resource "compute_node" "weather" {
  image     = "img-0a9f"
  node_size = "c7g.medium"
}

resource "firewall" "edge" {
  name = "edge"

  allow {
    description = "Seismograph uplink from the quarry station"
    port        = 7410
    protocol    = "udp"
  }

  allow {
    description = "Operator dashboard"
    port        = 9443
    protocol    = "tcp"
  }
}
'''


def test_a_reference_is_followed_to_the_variables_one_default() -> None:
    fact = code_fact("what node size is the telescope compute node using",
                     [("stack.tf", STACK)])
    assert fact is not None and fact.value == "c7g.2xlarge"
    # The resource's opening line is cited with the setting, and the default's line too.
    assert STACK[fact.start:fact.end].startswith('resource "compute_node" "telescope" {')
    assert fact.opening is not None
    assert '"c7g.2xlarge"' in STACK[fact.opening[0]:fact.opening[1]]


def test_a_reference_with_no_value_is_refused() -> None:
    assert code_fact("what node size does the archive compute node have",
                     [("stack.tf", STACK)]) is None


def test_a_nested_block_is_named_by_its_description() -> None:
    fact = code_fact("Which port is allowed for the seismograph uplink from the quarry?",
                     [("stack.tf", STACK)])
    assert fact is not None and fact.value == "7410"
    assert "Seismograph uplink" in STACK[fact.start:fact.end]


def test_settings_carry_their_block_labels() -> None:
    found = {(s.name, s.value): s.parents for s in settings(STACK)}
    assert found[("port", "9443")] == ("resource firewall edge", "allow")
    assert found[("node_size", "c7g.medium")] == ("resource compute_node weather",)


def test_an_aligned_line_naming_a_reference_is_no_labelled_value() -> None:
    assert is_reference("var.archive_node_size")
    assert _label_value("node_size        = var.archive_node_size") is None
    assert _label_value("node_size        = \"c7g.medium\"") == ("node_size", '"c7g.medium"')


FEED = '''<?xml version="1.0"?>
<rss version="2.0"><channel>
  <title>Pier Notes</title>
  <item>
    <title>Rope work on the old lifeboat</title>
    <pubDate>Mon, 03 Aug 2026 07:30:00 +0000</pubDate>
    <description>Rigger Oona Kestrel on splicing.</description>
  </item>
  <item>
    <title>Tides and timetables</title>
    <pubDate>Mon, 17 Aug 2026 07:30:00 +0000</pubDate>
    <description>Harbourmaster Idris Fenwick on the tide tables.</description>
  </item>
</channel></rss>
'''


def test_a_date_asked_of_a_timestamp_is_the_date() -> None:
    fact = code_fact("On what date was the episode with rigger Oona Kestrel published?",
                     [("feed.xml", FEED)])
    assert fact is not None and fact.value == "03 Aug 2026"

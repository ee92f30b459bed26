"""The rule set as data: every rule compiles, and every ported gitleaks rule finds samples built
the way gitleaks' own tests build them (cmd/generate/config/utils/generate.go,
GenerateSampleSecrets: the same identifier/secret templates, MIT), with secrets drawn from the
rule's own secret pattern. Noisy rules (kept with gitleaks' entropy gate) are left out here:
a draw may fail their gate by design."""

from __future__ import annotations

import random
import re
import string
import tomllib
from importlib import resources

import pytest

from rlm_recursive.secretscan import RULESET_VERSION, default_detector, load_rules

# gitleaks' GenerateSampleSecrets templates ({i}: identifier, {s}: secret), as data.
SAMPLES = (
    '{i}Token="{s}"', '{i}Token = "{s}"', "{i}Token={s}", "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}', '\\{\n    \\"{i}_token\\": \\"{s}\\"\n\\}',
    "<{i}Token>{s}</{i}Token>", "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}", "{i}_token: '{s}'", '{i}_token: "{s}"', "{i}_token: |\n  {s}",
    "{i}_token: >\n  {s}", 'string {i}Token = "{s}";', 'var {i}Token string = "{s}"',
    '{i}Token := "{s}"', "{i}Token := `{s}`", 'String {i}Token = "{s}";',
    'var {i}Token = "{s}"', '${i}Token .= "{s}"', "{i}Token = '{s}'", '{i}Token = "{s}"',
    "{i}Token,{s},", '  "{i}Token" => "{s}"', '{i}_TOKEN = "{s}"', '{i}_TOKEN := "{s}"',
    '{i}_TOKEN ::= "{s}"', '{i}_TOKEN :::= "{s}"', '{i}_TOKEN ?= "{s}"', '{i}_TOKEN += "{s}"',
)


def _specs() -> list[dict]:
    data = resources.files("rlm_recursive.secretscan") / "data" / "gitleaks.toml"
    return tomllib.loads(data.read_text("utf-8"))["rules"]


def _python_pattern(pattern: str) -> str:
    """An RE2 secret pattern in Python's syntax, case folded: mid-pattern flags dropped."""
    return re.sub(r"\(\?-?i:", "(?:", pattern.replace("(?i)", ""))


_IDENTIFIERS = {"database-password": "db_password"}
"""Where a rule's first keyword is not one of its identifiers."""
TESTED = [s for s in _specs() if ("near" in s or "token" in s) and not s.get("noisy")]


_CLASSES = {"category_digit": string.digits, "category_word": string.ascii_letters +
            string.digits + "_", "category_space": " "}


def _draw(pattern: str, rng: random.Random) -> str:
    """A random string the pattern matches (what gitleaks' secrets.NewSecret does)."""
    from re import _parser as parser

    def one(items) -> str:
        out = []
        for op, arg in items:
            name = str(op).lower()
            if name == "literal":
                out.append(chr(arg))
            elif name == "in":
                chars = []
                for kind, value in arg:
                    kind = str(kind).lower()
                    if kind == "literal":
                        chars.append(chr(value))
                    elif kind == "range":
                        chars += [chr(c) for c in range(value[0], value[1] + 1)]
                    elif kind == "category":
                        chars += _CLASSES.get(str(value).lower(), "")
                out.append(rng.choice(chars or ["a"]))
            elif name in ("max_repeat", "min_repeat"):
                low, high, sub = arg
                count = rng.randint(low, min(high, low + 8))
                out += [one(sub) for _ in range(count)]
            elif name == "subpattern":
                out.append(one(arg[-1]))
            elif name == "branch":
                out.append(one(rng.choice(arg[1])))
            elif name == "category":
                out.append(rng.choice(_CLASSES.get(str(arg).lower(), "a")))
            elif name == "any":
                out.append(rng.choice(string.ascii_letters))
        return "".join(out)

    return one(parser.parse(pattern))


def test_every_rule_compiles_and_the_set_has_a_version():
    rules = load_rules()
    assert len([r for r in rules if r.source == "gitleaks"]) == len(_specs()) >= 150
    assert len([r for r in rules if r.source == "rlm"]) >= 40
    assert re.fullmatch(r"[0-9a-f]{16}", RULESET_VERSION)


@pytest.mark.parametrize("spec", TESTED, ids=lambda s: s["id"])
def test_gitleaks_rule_finds_its_samples(spec):
    rng = random.Random(spec["id"])
    pattern = _python_pattern(spec.get("secret") or spec["token"])
    candidates = [_IDENTIFIERS.get(spec["id"]), spec.get("near"), *spec.get("keywords", [])]
    identifier = next((c for c in candidates if c and re.fullmatch(r"(?i)[a-z0-9_]+", c)),
                      "token")
    for template in SAMPLES:
        secret = _draw(pattern, rng)
        while len(set(secret)) < 3:  # "X", "aaa": placeholders, not secrets (allowlisted)
            secret = _draw(pattern, rng)
        if spec.get("ci") and rng.random() < 0.5:
            secret = secret.upper()
        assert re.fullmatch(pattern, secret, re.IGNORECASE), (pattern, secret)
        text = template.replace("{i}", identifier).replace("{s}", secret)
        at = len(template[:template.index("{s}")].replace("{i}", identifier))
        hits = default_detector().find(text)
        covered = {p for h in hits for p in range(h.start, h.end)}
        core = secret.rstrip(".,;:")  # sentence punctuation after a value is not taken
        assert set(range(at, at + len(core))) <= covered, (text, hits)

"""Options given on command lines: `install -m 0640 conf/app.conf /etc/app/app.conf` gives
the file `app.conf` the mode 0640; `serve --port 8080 site/` gives `serve` the port 8080.

A command line, wherever it is written (a make recipe, a Dockerfile's `RUN`, a shell
script, a runbook's `$ ` prompt), is read into its options (`-m 0640`, `--port 8080`,
`--port=8080`), each with the command's name and the file names of its operands: what a
question names to say which line it means ("the mode of app.conf"). A short flag followed
by a path or a variable is taken for a switch (its value would be an operand), and a line
with no option that takes a value gives nothing.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = ["Option", "command_options"]

_PROMPT = re.compile(r"^\s*(?:\$|#|>|RUN|CMD|ENTRYPOINT|ExecStart=|ExecStartPre=)\s*")
_SHORT = re.compile(r"^-([A-Za-z])$")
_LONG = re.compile(r"^--([A-Za-z][\w-]+)(?:=(.+))?$")
_VARIABLE = re.compile(r"\$[({]?\w+[)}]?")
_FILE_NAME = re.compile(r"^[\w.-]*[A-Za-z][\w-]*\.[A-Za-z][\w.-]*$")
_MAX_VALUE = 80


@dataclass(frozen=True)
class Option:
    """One option of a command line: the flag (without dashes), its value, the command,
    the file names its operands end in, and the line (start, end)."""

    flag: str
    value: str
    command: str
    targets: tuple[str, ...]
    start: int
    end: int


def _tokens(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:  # an unbalanced quote: words as written
        return line.split()


def _file_name(token: str) -> str | None:
    """The file name a path operand ends in (`$(DESTDIR)$(CONFDIR)/app.conf` → app.conf)."""
    name = _VARIABLE.sub("", token).rstrip("/").rsplit("/", 1)[-1]
    return name if _FILE_NAME.match(name) else None


def _options(tokens: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The (flag, value) pairs of one command's tokens and its operands."""
    options, operands = [], []
    i = 1
    while i < len(tokens):
        token = tokens[i]
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if long := _LONG.match(token):
            if long.group(2) is not None:
                options.append((long.group(1), long.group(2)))
            elif following and not following.startswith("-"):
                options.append((long.group(1), following))
                i += 1
        elif short := _SHORT.match(token):
            # `-b conf/x.example`: a switch before an operand, not a value.
            if following and not following.startswith("-") and not re.search(
                    r"[/$]|^[\w-]+\.[A-Za-z]", following):
                options.append((short.group(1), following))
                i += 1
        elif not token.startswith("-"):
            operands.append(token)
        i += 1
    return options, operands


def command_options(text: str) -> list[Option]:
    """Every option with a value of every command line of the text (commands joined by
    `&&`, `;` or `|` read one by one)."""
    found: list[Option] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        start, line = pos, raw.rstrip("\r\n")
        pos += len(raw)
        if " -" not in line:
            continue
        body = _PROMPT.sub("", line.strip()).lstrip("@-")
        for part in re.split(r"\s(?:&&|\|\||;|\|)\s", body):
            tokens = _tokens(part)
            if not tokens or not re.match(r"^[\w./-]+$", tokens[0]):
                continue
            options, operands = _options(tokens)
            targets = tuple(name for token in operands if (name := _file_name(token)))
            command = tokens[0].rsplit("/", 1)[-1]
            found += [Option(flag, value, command, targets, start, start + len(line))
                      for flag, value in options if 0 < len(value) <= _MAX_VALUE]
    return found

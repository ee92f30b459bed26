"""Settings written in code and configuration: one named value a line, whatever the syntax.

A build file, an environment file, a container recipe or a service's configuration states a
fact as an assignment: `DEFAULT_POLL_SECONDS := 360` (make), `export CACHE_TTL=90` (shell,
`.env`), `ENV WORKER_COUNT 4` (Dockerfile), `maxRetries: 5` (YAML), `timeout = 30` (INI,
TOML, a systemd unit). Each is a `Setting`: its name, the section or parent keys it sits
under, its value (quotes and a trailing comment dropped; `$(VERSION_MAJOR)` and `${HOME}`
replaced by the value the same file gives the name, once; a value still naming an unknown
variable is no fact), and the line it is on.

`name_words` cuts a name into the words it is written with (`DEFAULT_POLL_SECONDS` →
default, poll, seconds; `maxRetries` → max, retries) for a question to be matched against
(`code_facts`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

__all__ = ["Setting", "is_reference", "name_words", "settings"]

_MAKE_LIKE = re.compile(
    r"^(?:export\s+)?(?P<name>[A-Za-z_][\w.-]*)\s*(?P<op>::?=|\?=|!=|\+=|=)(?P<value>.*)$")
"""`NAME := value`, `NAME ?= value`, `NAME=value`, `export NAME=value`, `key = value`."""
_DOCKER = re.compile(r"^(?:ENV|ARG|LABEL)\s+(?P<rest>.+)$")
_DOCKER_PAIR = re.compile(r"(?P<name>[A-Za-z_][\w.-]*)=(?P<value>\"[^\"]*\"|'[^']*'|\S+)")
_YAML = re.compile(r"^(?P<indent>\s*)(?P<dash>-\s+)?(?P<name>[\"']?[A-Za-z_][\w.-]*[\"']?)"
                   r":(?:\s+(?P<value>.*))?$")
"""`key: value` under the keys above it; a key of one word (a prose label has spaces)."""
_SECTION = re.compile(r"^\s*\[+\s*(?P<name>[^\]\n]+?)\s*\]+\s*$")
_COMMENT_LINE = re.compile(r"^\s*(?:#|;|//|--|<!--)")
_TRAILING_COMMENT = re.compile(r"\s+(?:#|;|//).*$")
_VARIABLE = re.compile(r"\$(?:\((?P<paren>[A-Za-z_]\w*)\)|\{(?P<brace>[A-Za-z_]\w*)\}"
                       r"|(?P<bare>[A-Za-z_]\w*))")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_MAX_VALUE = 120
_MIN_SETTINGS = 2
_SETTINGS_SHARE = 0.25
"""A file states facts this way when two of its lines at least do, and a quarter of its
lines that are not blank or comments (a letter's `Subject:` line is no configuration)."""


@dataclass(frozen=True)
class Setting:
    """One named value: the name as written, the keys or section it sits under, its value
    and its line (start, end)."""

    name: str
    value: str
    start: int
    end: int
    parents: tuple[str, ...] = ()
    block: tuple[int, int] | None = None
    """The opening line of the brace block it is in (`ingress {`, `resource "a" "b" {`):
    what names the record the setting is a field of."""
    source: tuple[int, int] | None = None
    """The line its value was read from when the line itself names another setting
    (`instance_type = var.size` reads `default = "m5.large"` of `variable "size"`)."""
    commented: bool = False
    """Written commented out (`#port = 5432`): a sample configuration's default, not in
    force."""
    note: str = ""
    """The comment after it and on the indented comment lines under it (`# min 64kB`,
    `# (change requires restart)`): what the file says of the setting."""
    note_end: int | None = None
    """Where the last line of its note ends, when the note runs on below the line."""


def name_words(name: str) -> list[str]:
    """The words a name is written with, lower case: `DEFAULT_POLL_SECONDS` → default,
    poll, seconds; `maxRetries` → max, retries; `http.port` → http, port."""
    return [w.lower() for w in re.split(r"[\W_]+", _CAMEL.sub(" ", name)) if w]


def _clean(value: str) -> str:
    """The value as meant: a trailing comment, a line continuation, quotes, a closing `;`
    dropped. A value that is one field of a record written across lines (a BibTeX entry's
    `volume = {41},`) or a mapping or list of its own (`{ type: integer, default: 48 }`)
    is no setting's value: empty."""
    value = _TRAILING_COMMENT.sub("", value.strip()).rstrip(";\\ ").strip()
    if value.endswith(",") or value[:1] in "{[(":
        return ""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1].strip()
    return value


_FLOW = re.compile(r"^\{(?P<body>[^{}\[\]]*)\}\s*(?:#.*)?$")
_FLOW_PAIR = re.compile(r"^\s*(?P<key>[A-Za-z_][\w.-]*)\s*:\s*(?P<value>.+?)\s*$")


def _flow_mapping(name: str, value: str, start: int, end: int, parents: tuple[str, ...]
                  ) -> list[Setting]:
    """A one-line mapping's entries, each a setting under the key (`hold_days: { type:
    integer, default: 7 }` gives `hold_days.default` 7); none for another value."""
    match = _FLOW.match(value.strip())
    if match is None:
        return []
    pairs = [_FLOW_PAIR.match(part) for part in match.group("body").split(",")]
    if not pairs or any(pair is None for pair in pairs):
        return []
    return [Setting(f"{name}.{pair.group('key')}", cleaned, start, end, parents)
            for pair in pairs if pair is not None and (cleaned := _clean(pair.group("value")))]


_BLOCK_OPEN = re.compile(r"^\s*(?P<label>[^{}=#\n]*?)\s*\{\s*(?:(?:#|//).*)?$")
"""A labelled block's opening line: `resource "aws_instance" "web" {`, `ingress {`."""
_BLOCK_CLOSE = re.compile(r"^\s*\}[\s,;)]*(?:(?:#|//).*)?$")
_HCL_REFERENCE = re.compile(r"^(?P<kind>var|local)\.(?P<name>[A-Za-z_][\w-]*)$")
"""A reference to another setting of the same configuration: `var.size`, `local.env`."""


_REFERENCE = re.compile(r"^(?:var|local|locals|module|data|self|each)\.[A-Za-z_][\w.\[\]\"-]*$")


def is_reference(value: str) -> bool:
    """The value names another setting instead of saying one (`var.size`,
    `module.net.subnet_id`): where the value is, not what it is."""
    return bool(_REFERENCE.match(value.strip()))


def _block_label(label: str) -> str:
    """`resource "aws_instance" "web"` → `resource aws_instance web`."""
    return " ".join(part.strip('":') for part in re.findall(r'"[^"]*"|\S+', label))


def _lines(text: str) -> list[tuple[int, int, str]]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, pos + len(line.rstrip("\r\n")), line.rstrip("\r\n")))
        pos += len(line)
    return out


def _python_module(text: str) -> bool:
    """The text is Python that imports or defines something (flat YAML parses as Python
    too, as bare annotations)."""
    if not re.search(r"^(?:import|from|def|class)\s", text, re.MULTILINE):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))
               for node in tree.body)


def _raw(text: str) -> list[Setting]:
    """Every assignment of the text as written, with the section or YAML keys above it."""
    found: list[Setting] = []
    section: tuple[str, ...] = ()
    keys: list[tuple[int, str]] = []  # YAML's open keys: (indent, name)
    blocks: list[tuple[str, tuple[int, int]]] = []  # open brace blocks: (label, line)
    # A file with tab-indented lines is no YAML (make's `target: prerequisites` rules).
    # Nor is a Python module (`hourly: Decimal` annotates a field's type, no value).
    yaml_like = re.search(r"^\t", text, re.MULTILINE) is None and not _python_module(text)
    for start, end, line in _lines(text):
        if not line.strip() or _COMMENT_LINE.match(line):
            continue
        if line.startswith("\t"):  # a make recipe: commands, not settings
            continue
        if _BLOCK_CLOSE.match(line):
            if blocks:
                blocks.pop()
            continue
        if match := _BLOCK_OPEN.match(line):
            blocks.append((_block_label(match.group("label")), (start, end)))
            continue
        if (match := _SECTION.match(line)) and not line.lstrip().startswith("[["):
            section, keys = (match.group("name"),), []
            continue
        if match := _DOCKER.match(line):
            rest = match.group("rest")
            pairs = list(_DOCKER_PAIR.finditer(rest))
            if pairs:
                found += [Setting(p.group("name"), _clean(p.group("value")), start, end,
                                  section) for p in pairs]
            elif len(parts := rest.split(None, 1)) == 2:  # `ENV NAME value`
                found.append(Setting(parts[0], _clean(parts[1]), start, end, section))
            continue
        if (match := _MAKE_LIKE.match(line.strip())) and match.group("op") not in ("+=", "!="):
            value = match.group("value")
            if re.match(r"^\s*[{\[(]\s*(?:(?:#|//).*)?$", value):  # `tags = {` opens a block
                blocks.append((match.group("name"), (start, end)))
                continue
            found.append(Setting(match.group("name"), _clean(value), start, end,
                                 section + tuple(label for label, _ in blocks),
                                 blocks[-1][1] if blocks else None))
            continue
        if yaml_like and (match := _YAML.match(line)):
            indent = len(match.group("indent")) + len(match.group("dash") or "")
            while keys and keys[-1][0] >= indent:
                keys.pop()
            name = match.group("name").strip("\"' ")
            value = match.group("value")
            if value is None or not value.strip() or value.strip() in ("|", ">", "|-", ">-"):
                keys.append((indent, name))
                continue
            parents = section + tuple(k for _, k in keys)
            found += _flow_mapping(name, value, start, end, parents) or [
                Setting(name, _clean(value), start, end, parents)]
    return found


def _followed(found: list[Setting]) -> list[Setting]:
    """Each setting whose value is a reference (`var.size`) with the one value the file
    gives it (`default` of `variable "size" {}`, `size` of `locals {}`) and that line as its
    source; a reference the file does not resolve to exactly one value is kept as written
    (no value: `code_facts` refuses it)."""
    def targets(kind: str, name: str) -> list[Setting]:
        if kind == "var":
            return [s for s in found if s.name == "default" and s.parents[-1:] == (
                f"variable {name}",)]
        return [s for s in found if s.name == name and s.parents[-1:] == ("locals",)]

    out = []
    for setting in found:
        match = _HCL_REFERENCE.match(setting.value)
        hits = targets(match.group("kind"), match.group("name")) if match else []
        if len({hit.value for hit in hits}) == 1 and not is_reference(hits[0].value):
            setting = replace(setting, value=hits[0].value,
                              source=(hits[0].start, hits[0].end))
        out.append(setting)
    return out


def _expanded(found: list[Setting]) -> list[Setting]:
    """Each value with the variables it names replaced by the one value the file gives
    them; a value still naming one the file does not give (or gives twice) is dropped."""
    given: dict[str, set[str]] = {}
    for setting in found:
        given.setdefault(setting.name, set()).add(setting.value)

    def expand(value: str, depth: int = 0) -> str | None:
        if "$" not in value:
            return value
        if depth > 3:
            return None
        missing = False

        def sub(match: re.Match[str]) -> str:
            nonlocal missing
            name = match.group("paren") or match.group("brace") or match.group("bare")
            values = given.get(name, set())
            if len(values) != 1:
                missing = True
                return match.group(0)
            return next(iter(values))

        out = _VARIABLE.sub(sub, value)
        return None if missing else expand(out, depth + 1)

    out = []
    for setting in found:
        value = expand(setting.value)
        if value and len(value) <= _MAX_VALUE and value not in ("{", "[", "(", "{}", "[]"):
            out.append(replace(setting, value=value))
    return out


_COMMENTED = re.compile(r"^[#;] ?(?P<body>[A-Za-z_][\w.-]*[ \t]*=[ \t]*[^\s=#].*)$")
"""A setting commented out, as a sample configuration documents its default (`#port = 5432
# (change requires restart)`): the marker at the line's start, then an assignment."""
_COMMENTED_KEYWORD = re.compile(
    r"^#(?P<name>[A-Z][a-z]+(?:[A-Z][A-Za-z]*)+)[ \t]+(?P<value>[^\s#][^#\n]*?)[ \t]*$")
"""`#PermitRootLogin prohibit-password`: a keyword configuration's default (sshd's), the
keyword written in CamelCase right after the marker (prose comments leave a space)."""
_NOTE = re.compile(r"[ \t]+(?:#|;)[ \t]*(?P<note>.*)$")
_CONTINUED_NOTE = re.compile(r"^[ \t]+[#;][ \t]*(?P<note>.*)$")
"""An indented comment line under a setting: its note, carried on."""


def _noted(setting: Setting, lines: list[tuple[int, int, str]], index: int) -> Setting:
    """The setting on line `index` with the comment after it and on the indented comment
    lines right under it as its note."""
    line = lines[index][2]
    match = _NOTE.search(line.split("=", 1)[-1]) if "=" in line else None
    parts = [match.group("note")] if match else []
    end = None
    for _, below_end, below in lines[index + 1:]:
        carried = _CONTINUED_NOTE.match(below)
        if carried is None:
            break
        parts.append(carried.group("note"))
        end = below_end
    return replace(setting, note=" ".join(part.strip() for part in parts if part.strip()),
                   note_end=end)


def _commented(text: str) -> list[Setting]:
    """The settings a file writes commented out, each with its note."""
    lines = _lines(text)
    found = []
    for index, (start, end, line) in enumerate(lines):
        if match := _COMMENTED.match(line):
            body = _MAKE_LIKE.match(match.group("body").strip())
            if body is None or body.group("op") != "=":
                continue
            name, value = body.group("name"), _clean(body.group("value"))
        elif match := _COMMENTED_KEYWORD.match(line):
            name, value = match.group("name"), _clean(match.group("value"))
        else:
            continue
        if value:
            found.append(_noted(Setting(name, value, start, end, commented=True), lines, index))
    return found


def settings(text: str) -> list[Setting]:
    """The settings a code or configuration file states (none for a text with fewer than
    two assignment lines), with those it writes commented out that it sets nowhere else."""
    lines = _lines(text)
    index = {start: i for i, (start, _, _) in enumerate(lines)}
    found = [_noted(s, lines, index[s.start]) for s in _raw(text)]
    active = {s.name for s in found}
    found += [s for s in _commented(text) if s.name not in active]
    written = sum(1 for _, _, line in lines
                  if line.strip() and not _COMMENT_LINE.match(line)) + sum(
        1 for s in found if s.commented)
    if len({s.start for s in found}) < max(_MIN_SETTINGS, _SETTINGS_SHARE * written):
        return []
    return _followed(_expanded(found))

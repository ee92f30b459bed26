"""Program text is not a secret: the assignment rules skip Python expressions outside string
literals (they flagged 22 places of this project's own code), and nothing else is lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlm_recursive.secretscan import default_detector
from rlm_recursive.secretscan.codeshape import PythonText

MODULE = '''"""A client for the ward's paging system."""
import secrets

from .http import session


class Pager:
    def __init__(self, token: str, auth: Auth | None = None) -> None:
        self.token = token
        self._auth = auth
        salt = secrets.token_bytes(32)
        scheme, _, token = header.partition(" ")
        password = self._vault.lookup(token)
        api_key = config["pager"]["api_key"]
        self.secret_key = derive(salt, password)
        connect(auth=auth, token=token, api_key=api_key)

    def retry(self, chars_per_token: float = 3.0) -> None:
        token_count = len(self.token) / chars_per_token
'''


def _values(text: str) -> list[str]:
    return [text[h.start:h.end] for h in default_detector().find(text)]


def test_a_module_full_of_credential_names_has_no_secret() -> None:
    assert _values(MODULE) == []


@pytest.mark.parametrize("line, secret", [
    ('        DB_PASSWORD = "hunter2-Xk9q"\n', "hunter2-Xk9q"),  # a literal in code
    ("        api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'\n", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
])
def test_a_literal_in_the_same_module_is_still_found(line: str, secret: str) -> None:
    text = MODULE + line
    assert any(secret in value for value in _values(text)), _values(text)


def test_code_shapes_count_only_in_a_program() -> None:
    # The same shapes in configuration (or a module's docstring) are values: a drawn
    # password can parse as a subscript or a call.
    for text in ("[database]\npasswd : ix[vRxWMujuxTO8uh]\n",
                 "db:\n  password: secrets.token_bytes(32)\n",
                 "gocardlessToken = live_x741shea2_6upsx_=mc2fxibm2qt7tsboc1qu1xx\n",
                 '"""Example:\n    password = ix[vRxWMujuxTO8uh]\n"""\nimport os\n'):
        assert _values(text), text


def test_placeholders_are_not_secrets_but_braced_draws_are() -> None:
    assert _values('headers = {"Authorization": "Bearer {token}"}\n') == []
    assert _values("password: ${DB_PASSWORD}\n") == []
    assert _values("password: {t1Ub?VoS)]h}\n")
    assert _values("password: {aBc9xQpL}\n")


def test_this_projects_own_code_is_flagged_only_inside_its_literals() -> None:
    """Every hit left in our sources is in a string or a comment (test fixtures, examples);
    none is a line of code."""
    root = Path(__file__).resolve().parents[1] / "rlm_recursive"
    in_code = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text("utf-8")
        python = PythonText(text)
        for hit in default_detector().find(text):
            if hit.confidence == "rule" and not python.in_literal(hit.start):
                in_code.append(f"{path.name}:{text.count(chr(10), 0, hit.start) + 1}")
    assert in_code == []

"""Path policy: traversal, symlink escapes, special files, denylist, size caps, folder walks."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rlm_recursive.errors import (
    ConfigError,
    FileNotFound,
    FileTooLarge,
    PathDenied,
    RlmError,
    UnsupportedFile,
)
from rlm_recursive.policy import PathPolicy, Profile, compile_glob, load_profile
from rlm_recursive.policy.profiles import ALWAYS_DENIED


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """A root with a normal file and an outside folder holding a secret."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "notes.txt").write_text("hello")
    (root / "sub" / "inner.txt").write_text("inner")
    (outside / "secret.txt").write_text("SECRET")
    return {"root": root, "outside": outside}


def _policy(root: Path, **kw) -> PathPolicy:
    return PathPolicy(allowed_roots=[root], profile_name="restricted", **kw)


def _resolve_in_thread(policy: PathPolicy, path: str | Path, timeout: float = 5.0):
    """Run resolve() in a thread, so a blocking open() fails the test instead of hanging it."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = policy.resolve(path)
        except BaseException as exc:
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "resolve() blocked"
    return box


def test_normal_file_inside_root_resolves(tree):
    policy = _policy(tree["root"])
    assert policy.resolve("notes.txt") == tree["root"] / "notes.txt"
    assert policy.resolve("sub/../sub/inner.txt", expect="file") == tree["root"] / "sub/inner.txt"
    assert policy.resolve("sub", expect="dir") == tree["root"] / "sub"


@pytest.mark.parametrize("rel", ["../outside/secret.txt", "../../etc/passwd", "sub/../../x"])
def test_dotdot_traversal_denied(tree, rel):
    with pytest.raises(PathDenied, match="outside the allowed roots"):
        _policy(tree["root"]).resolve(rel)


def test_symlink_pointing_outside_denied(tree):
    (tree["root"] / "escape.txt").symlink_to(tree["outside"] / "secret.txt")
    with pytest.raises(PathDenied, match="allowed_roots"):
        _policy(tree["root"]).resolve("escape.txt")


def test_symlinked_parent_directory_pointing_outside_denied(tree):
    (tree["root"] / "linkdir").symlink_to(tree["outside"], target_is_directory=True)
    with pytest.raises(PathDenied):
        _policy(tree["root"]).resolve("linkdir/secret.txt")
    # `..` after a symlink means the target's parent, as the OS sees it, never a lexical shortcut.
    with pytest.raises(PathDenied):
        _policy(tree["root"]).resolve("linkdir/../outside/secret.txt")


def test_symlink_inside_root_is_allowed(tree):
    (tree["root"] / "alias.txt").symlink_to(tree["root"] / "notes.txt")
    assert _policy(tree["root"]).resolve("alias.txt") == tree["root"] / "notes.txt"


def test_missing_outside_root_is_denied_not_not_found(tree):
    # No existence oracle outside the roots.
    with pytest.raises(PathDenied):
        _policy(tree["root"]).resolve("../outside/nope.txt")


def test_missing_file_not_found(tree):
    with pytest.raises(FileNotFound):
        _policy(tree["root"]).resolve("nope.txt")


def test_oversized_file_too_large(tree):
    (tree["root"] / "big.txt").write_bytes(b"x" * 1001)
    policy = _policy(tree["root"], max_bytes=1000)
    with pytest.raises(FileTooLarge) as info:
        policy.resolve("big.txt")
    assert info.value.details["max_bytes"] == 1000
    assert policy.resolve("big.txt", max_bytes=2000) == tree["root"] / "big.txt"
    with pytest.raises(FileTooLarge):
        policy.read_bytes("big.txt")


def test_dev_zero_denied_as_absolute_in_restricted(tree):
    profile = load_profile("restricted", {"allowed_roots": [str(tree["root"])]})
    with pytest.raises(PathDenied, match="absolute paths are not allowed"):
        PathPolicy.from_profile(profile).resolve("/dev/zero")


def test_dev_zero_denied_as_device_when_absolutes_allowed(tree):
    policy = PathPolicy(allowed_roots=["/"], allow_absolute_paths=True)
    with pytest.raises(PathDenied, match="not a regular file"):
        policy.resolve("/dev/zero")
    # Outside a narrower root it is denied by containment first.
    with pytest.raises(PathDenied, match="outside"):
        _policy(tree["root"], allow_absolute_paths=True).resolve("/dev/zero")


def test_symlink_to_device_denied(tree):
    (tree["root"] / "zero").symlink_to("/dev/zero")
    policy = PathPolicy(allowed_roots=[tree["root"], "/"], allow_absolute_paths=True)
    with pytest.raises(PathDenied, match="not a regular file"):
        policy.resolve("zero")


def test_fifo_denied_without_hanging(tree):
    os.mkfifo(tree["root"] / "pipe")
    policy = _policy(tree["root"])
    box = _resolve_in_thread(policy, "pipe")
    assert isinstance(box.get("error"), PathDenied)
    with pytest.raises(PathDenied):
        policy.read_bytes(tree["root"] / "pipe")


@pytest.mark.parametrize(
    "name",
    [
        "sub/.env",
        ".env",
        "key.pem",
        "id_rsa",
        "id_rsa.pub",
        "my_credentials.txt",
        "api_token.txt",
        ".ENV",
        "Server.PEM",
        "API_TOKEN.TXT",
    ],
)
def test_denylisted_names_denied(tree, name):
    (tree["root"] / name).write_text("very secret")
    with pytest.raises(PathDenied, match="denylist") as info:
        _policy(tree["root"]).resolve(name)
    assert "very secret" not in str(info.value)


def test_denylist_applies_to_symlink_target_and_link_name(tree):
    (tree["root"] / ".env").write_text("K=V")
    (tree["root"] / "innocent.txt").symlink_to(tree["root"] / ".env")
    (tree["root"] / "token.txt").symlink_to(tree["root"] / "notes.txt")
    policy = _policy(tree["root"])
    for name in ("innocent.txt", "token.txt"):
        with pytest.raises(PathDenied, match="denylist"):
            policy.resolve(name)


def test_denylisted_folder_denies_files_below_it(tree):
    (tree["root"] / "credentials").mkdir()
    (tree["root"] / "credentials" / "db.txt").write_text("pw")
    with pytest.raises(PathDenied, match="denylist"):
        _policy(tree["root"]).resolve("credentials/db.txt")


def test_denylist_ignores_folders_above_the_root(tmp_path):
    root = tmp_path / "my-tokens-project"
    root.mkdir()
    (root / "notes.txt").write_text("ok")
    assert _policy(root).resolve("notes.txt") == root / "notes.txt"


def test_empty_and_nul_paths_denied(tree):
    policy = _policy(tree["root"])
    for bad in ("", "   ", "notes.txt\x00.pdf", "\udcff\ud800"):
        with pytest.raises(PathDenied):
            policy.resolve(bad)


def test_expect_mismatch(tree):
    policy = _policy(tree["root"])
    with pytest.raises(UnsupportedFile):
        policy.resolve("sub", expect="file")
    with pytest.raises(UnsupportedFile):
        policy.resolve("notes.txt", expect="dir")


def test_absolute_inside_root_rejected_in_restricted_but_recheck_accepts(tree):
    policy = _policy(tree["root"])
    resolved = policy.resolve("notes.txt")
    with pytest.raises(PathDenied, match="absolute"):
        policy.resolve(str(resolved))
    assert policy.recheck(resolved) == resolved
    assert policy.read_bytes(resolved) == b"hello"
    with pytest.raises(PathDenied):
        policy.recheck(tree["outside"] / "secret.txt")


def test_read_bytes_refuses_a_file_swapped_for_a_symlink(tree):
    policy = _policy(tree["root"])
    target = policy.resolve("notes.txt")
    target.unlink()
    target.symlink_to(tree["outside"] / "secret.txt")
    with pytest.raises(PathDenied):
        policy.read_bytes(target)


def test_unrestricted_profile_reads_anywhere_but_keeps_denylist_and_devices(tree, tmp_path):
    profile = load_profile("unrestricted", None, cwd=tree["root"], env={})
    policy = PathPolicy.from_profile(profile)
    assert policy.resolve("../outside/secret.txt") == tree["outside"] / "secret.txt"
    assert policy.resolve(str(tree["outside"] / "secret.txt")) == tree["outside"] / "secret.txt"
    (tree["outside"] / "id_rsa").write_text("key")
    with pytest.raises(PathDenied, match="denylist"):
        policy.resolve(str(tree["outside"] / "id_rsa"))
    with pytest.raises(PathDenied):
        policy.resolve("/dev/zero")


def test_load_profile_errors_name_the_key(tree):
    with pytest.raises(ConfigError, match="hospital"):
        load_profile("hospital", env={})
    with pytest.raises(ConfigError, match="RLM_PROFILE"):
        load_profile(None, env={"RLM_PROFILE": "nope"})
    with pytest.raises(ConfigError, match=r"profiles\.restricted\.allowed_root\b"):
        load_profile("restricted", {"allowed_root": ["."]}, env={})
    with pytest.raises(ConfigError, match=r"profiles\.restricted\.max_bytes_query"):
        load_profile("restricted", {"max_bytes_query": "lots"}, env={})
    with pytest.raises(ConfigError, match="not an existing folder"):
        load_profile("restricted", {"allowed_roots": [str(tree["root"] / "nope")]}, env={})


def test_load_profile_name_precedence_and_overrides(tree):
    # The default is local-only egress (seed 001); cloud is an explicit opt-in.
    assert load_profile(None, env={}).name == "local"
    assert load_profile(None, env={"RLM_PROFILE": "restricted"}).name == "restricted"
    assert load_profile("unrestricted", env={"RLM_PROFILE": "restricted"}).name == "unrestricted"
    p = load_profile(
        "restricted",
        {"allowed_roots": ["root"], "denylist": ["*.key"]},
        cwd=tree["root"].parent,
        env={},
    )
    assert p.allowed_roots == [tree["root"]]
    # The hospital minimum survives a denylist override; extra patterns are added.
    assert "**/.env" in p.denylist and "*.key" in p.denylist
    u = load_profile("unrestricted", {"denylist": []}, env={})
    # Emptying the list drops the SDD patterns (e.g. for tokenizer.py), never the secrets.
    assert u.denylist == list(ALWAYS_DENIED)
    assert Profile(name="x").query_max_bytes(10**9) == 262144
    assert Profile(name="x").query_max_bytes(100) == 100


# -- iter_files --------------------------------------------------------------------------------


def test_iter_files_yields_allowed_and_reports_denied(tree):
    root = tree["root"]
    (root / ".env").write_text("K=V")
    (root / "sub" / "deep").mkdir()
    (root / "sub" / "deep" / "d.md").write_text("d")
    (root / "escape").symlink_to(tree["outside"], target_is_directory=True)
    (root / "escape.txt").symlink_to(tree["outside"] / "secret.txt")
    (root / "loop").symlink_to(root, target_is_directory=True)
    os.mkfifo(root / "pipe")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.js").write_text("x")
    policy = _policy(root)
    top = policy.resolve(".", expect="dir")
    results = list(policy.iter_files(top, recursive=True, exclude=["node_modules"]))
    ok = [p for p, err in results if err is None]
    denied = {p.name: err for p, err in results if err is not None}
    assert ok == [root / "notes.txt", root / "sub" / "inner.txt", root / "sub/deep/d.md"]
    assert set(denied) == {".env", "escape", "escape.txt", "pipe"}
    assert all(isinstance(e, PathDenied) for e in denied.values())


def test_iter_files_include_and_non_recursive(tree):
    root = tree["root"]
    (root / "a.py").write_text("a")
    (root / "sub" / "b.py").write_text("b")
    policy = _policy(root)
    got = [p for p, err in policy.iter_files(root, recursive=True, include=["*.py"]) if not err]
    assert got == [root / "a.py", root / "sub" / "b.py"]
    flat = [p for p, _ in policy.iter_files(root, recursive=False)]
    assert flat == [root / "a.py", root / "notes.txt"]


def test_iter_files_oversized_reported_not_raised(tree):
    (tree["root"] / "big.txt").write_bytes(b"x" * 50)
    results = dict(_policy(tree["root"], max_bytes=10).iter_files(tree["root"], recursive=False))
    assert isinstance(results[tree["root"] / "big.txt"], FileTooLarge)


def test_iter_files_bad_root_raises(tree):
    with pytest.raises(PathDenied):
        list(_policy(tree["root"]).iter_files(tree["outside"], recursive=True))


def test_compile_glob_semantics():
    assert compile_glob("*.pem").fullmatch("a/b/key.pem")
    assert compile_glob("**/.env").fullmatch(".env")
    assert not compile_glob("src/*.py").fullmatch("src/a/b.py")
    assert compile_glob("src/**/*.py").fullmatch("src/a/b.py")
    assert compile_glob("id_rsa[!x]").fullmatch("id_rsa.")


# -- property test: zero escapes -----------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_tree(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("hostile")
    root, outside = base / "root", base / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET")
    (root / "ok.txt").write_text("ok")
    (root / "d" / "ok2.txt").write_text("ok")
    (root / "out").symlink_to(outside, target_is_directory=True)
    (root / "outfile").symlink_to(outside / "secret.txt")
    (root / "d" / "up").symlink_to("../..", target_is_directory=True)
    (root / "loop").symlink_to(root / "loop")
    (root / "etc").symlink_to("/etc", target_is_directory=True)
    os.mkfifo(root / "fifo")
    return {"root": root, "outside": outside}


_SEGMENTS = st.sampled_from(
    [
        "..",
        ".",
        "",
        "...",
        "....",
        "out",
        "outfile",
        "up",
        "loop",
        "etc",
        "fifo",
        "d",
        "ok.txt",
        "secret.txt",
        "passwd",
        "ok2.txt",
        "d/up/root",
        "%2e%2e",
        "%2f",
        "..%2f..%2f",
        "..\\..\\",
        "%00",
        "\x00",
        "~",
        "．．",
        "..\u2215..",
        "a" * 300,
        "x" * 5000,
        " ",
        "\udcff",
        "\n",
        "root",
        "outside",
    ]
)
_ROOT = "{ROOT}"  # replaced by the real root, so some absolute paths start inside it
_PREFIXES = st.one_of(
    st.just(""),
    st.just(""),
    st.sampled_from(["/", "//", "/etc/", "/dev/", "/proc/self/", "~/", "./", _ROOT + "/"]),
)


@st.composite
def _hostile_paths(draw) -> str:
    # Mostly names that exist in the tree (so many paths resolve), some arbitrary text.
    segs = draw(
        st.lists(
            st.one_of(_SEGMENTS, _SEGMENTS, _SEGMENTS, st.text(max_size=12)), min_size=1, max_size=6
        )
    )
    sep = draw(st.sampled_from(["/", "//", "/./"]))
    return draw(_PREFIXES) + sep.join(segs) + draw(st.sampled_from(["", "/", "/."]))


@st.composite
def _tree_walks(draw) -> str:
    # Walks through real folders and links ending at a real name: these often resolve, so the
    # containment assertion is exercised on successes, not only on errors.
    # Most hops come back to the root by a detour (a link out and back, `..` and back).
    loops = ["d/up/root", "../root", "out/../root", "d/..", ".", "d/up/root/d/..", "loop/.."]
    hops = draw(
        st.lists(st.sampled_from([*loops, *loops, "..", "up", "out", "etc", "d"]), max_size=5)
    )
    leaf = draw(
        st.sampled_from(
            [
                "ok.txt",
                "d/ok2.txt",
                "secret.txt",
                "passwd",
                "fifo",
                "",
                "outfile",
                "out/secret.txt",
                "d/up/outside/secret.txt",
            ]
        )
    )
    return draw(_PREFIXES) + "/".join([*hops, leaf])


def _assert_contained(policy: PathPolicy, root: Path, raw: str) -> None:
    raw = raw.replace(_ROOT, str(root))
    try:
        result = policy.resolve(raw)
    except RlmError:
        return
    real = Path(os.path.realpath(result))
    assert real == result, f"not canonical: {raw!r} -> {result}"
    assert real.is_relative_to(root), f"escape: {raw!r} -> {result}"
    assert real.is_file() or real.is_dir()


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(_hostile_paths(), _tree_walks()))
# Found by this test: a symlink loop made a single realpath() stop early and return a path that
# looked inside the root but still went through the escaping `up` link.
@example(raw="loop/../d/up/outside/secret.txt")
@example(raw="missing/../loop/../d/up/outside/secret.txt")
def test_hostile_paths_never_escape(hostile_tree, raw):
    root = hostile_tree["root"]
    _assert_contained(_policy(root), root, raw)


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(_hostile_paths(), _tree_walks()))
def test_hostile_paths_never_escape_with_absolutes_allowed(hostile_tree, raw):
    root = hostile_tree["root"]
    _assert_contained(_policy(root, allow_absolute_paths=True), root, raw)


_SECRET_FILES = ("sub/.ssh/config", ".ssh/config", "a/b/.ssh/known_hosts", "secrets.env.local",
                 ".env", ".env.production", ".envrc", "deep/er/app.env.staging")


@pytest.mark.parametrize("profile", ["local", "restricted", "unrestricted"])
@pytest.mark.parametrize("confined", [False, True])
def test_ssh_folders_and_dotenv_files_are_denied_at_any_depth_in_every_profile(
        tmp_path, profile, confined):
    root = tmp_path / "root"
    for name in (*_SECRET_FILES, "notes/env.md", "ssh-guide.txt", "environment.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    loaded = load_profile(profile, {"allowed_roots": [str(root)]}, env={})
    policy = PathPolicy.from_profile(loaded, confined=confined)
    for name in _SECRET_FILES:
        with pytest.raises(PathDenied, match="denylist"):
            policy.resolve(name, expect="file")
    # Names that only look alike are read.
    for name in ("notes/env.md", "ssh-guide.txt", "environment.txt"):
        assert policy.resolve(name, expect="file") == root / name
    # An operator's own denylist cannot drop them.
    custom = load_profile(profile, {"allowed_roots": [str(root)], "denylist": ["*.bak"]},
                          env={})
    with pytest.raises(PathDenied):
        PathPolicy.from_profile(custom).resolve("sub/.ssh/config", expect="file")

"""A deterministic synthetic corpus for the benchmarks, written one file at a time.

English-ish text: a Zipf-distributed vocabulary (real function words at the top, pronounceable
pseudo-words below) in sentences and paragraphs, with headings, bullet lists and log-like line
blocks, plus planted unique sentences "The special magic number for <key> is <value>." whose
keys (a word and digits, one token) occur nowhere else.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

__all__ = ["PLANT_RE", "Plant", "generate", "iter_files", "scan_plants"]

VOCAB_SIZE = 4000
_FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at"
    " which but have an they you were her she there had one all we their been has more if will"
    " would who so no when can said what out up them into some could time only new other than"
    " then its also two after first way many these may about over such"
)
_ONSETS = "b c d f g h j k l m n p r s t v w br cl dr fl gr pl pr sh st th tr"
_VOWELS = "a e i o u a e i o ai ea ou"
_CODAS = ["", "", "", "n", "r", "s", "l", "t", "nd", "st", "m"]
PLANT_RE = re.compile(r"The special magic number for (\w+) is (\d+)\.")


@dataclass(frozen=True)
class Plant:
    key: str
    value: int
    path: str  # relative to the corpus folder, "/"-separated

    @property
    def sentence(self) -> str:
        return f"The special magic number for {self.key} is {self.value}."


def _vocabulary(rng: random.Random) -> list[str]:
    words = list(dict.fromkeys(_FUNCTION_WORDS.split()))
    seen = set(words)
    onsets, vowels = _ONSETS.split(), _VOWELS.split()
    while len(words) < VOCAB_SIZE:
        n = rng.choice((1, 2, 2, 2, 3, 3, 4))
        word = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(n))
        word += rng.choice(_CODAS)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _file_name(i: int) -> str:
    return f"vol{i // 25:02d}/chapter-{i:03d}.txt"


class _Writer:
    """Produces one file's text block by block from a shared Zipf vocabulary."""

    def __init__(self, rng: random.Random, vocab: list[str], cum: list[float]) -> None:
        self.rng, self.vocab, self.cum = rng, vocab, cum

    def words(self, k: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=k)

    def sentence(self) -> str:
        rng = self.rng
        words = self.words(rng.randint(5, 22))
        if len(words) > 8 and rng.random() < 0.3:
            words[rng.randrange(3, len(words) - 2)] += ","
        end = "?" if rng.random() < 0.05 else "!" if rng.random() < 0.02 else "."
        return " ".join(words).capitalize() + end

    def block(self, plants: list[str]) -> str:
        """A paragraph (most often), a heading, a bullet list or a block of log lines."""
        rng = self.rng
        roll = rng.random() if not plants else 1.0
        if roll < 0.06:
            return "## " + " ".join(self.words(rng.randint(2, 6))).title()
        if roll < 0.12:
            return "\n".join(
                "- " + " ".join(self.words(rng.randint(3, 9))) for _ in range(rng.randint(3, 8))
            )
        if roll < 0.16:
            lines = []
            for _ in range(rng.randint(3, 12)):
                day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                hms = (rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
                stamp = f"{day} {hms[0]:02d}:{hms[1]:02d}:{hms[2]:02d}"
                level = rng.choice(("INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"))
                lines.append(f"{stamp} {level} {' '.join(self.words(rng.randint(4, 12)))}")
            return "\n".join(lines)
        sentences = [self.sentence() for _ in range(rng.randint(2, 9))]
        for planted in plants:
            sentences.insert(rng.randint(0, len(sentences)), planted)
        return " ".join(sentences)


def generate(
    folder: Path, chars: int = 20_000_000, files: int = 100, seed: int = 7, plants: int = 200
) -> list[Plant]:
    """Write `files` UTF-8 files totalling about `chars` characters; return the plants.

    Deterministic for a given (chars, files, seed, plants). Only one file's text is held in
    memory at a time.
    """
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    cum = list(accumulate(1.0 / (rank + 1) ** 1.05 for rank in range(len(vocab))))
    keys: set[str] = set()
    planted: list[Plant] = []
    while len(planted) < plants:
        key = f"{rng.choice(vocab[200:])}{rng.randrange(1000, 10000)}"
        if key not in keys:
            keys.add(key)
            value = rng.randrange(10**5, 10**7)
            planted.append(Plant(key, value, _file_name(rng.randrange(files))))
    per_file = max(chars // files, 1)
    for i in range(files):
        name = _file_name(i)
        frng = random.Random(f"{seed}:{i}")
        # Each plant goes into the block that crosses a uniformly random offset of its file.
        todo = sorted((frng.randrange(per_file), p.sentence) for p in planted if p.path == name)
        writer = _Writer(frng, vocab, cum)
        parts: list[str] = []
        size = 0
        while size < per_file or todo:
            here = []
            while todo and todo[0][0] <= size:
                here.append(todo.pop(0)[1])
            text = writer.block(here) + "\n\n"
            parts.append(text)
            size += len(text)
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(parts), encoding="utf-8")
    return planted


def iter_files(folder: Path) -> Iterator[Path]:
    """Every regular file under folder, sorted."""
    return (p for p in sorted(folder.rglob("*")) if p.is_file())


def scan_plants(folder: Path) -> list[Plant]:
    """The planted sentences of an existing corpus, read one file at a time."""
    found = []
    for path in iter_files(folder):
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(folder).as_posix()
        found.extend(Plant(m[1], int(m[2]), rel) for m in PLANT_RE.finditer(text))
    return found

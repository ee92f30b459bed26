"""A document's title names what every line of it is about (fake provider; real SQLite and
tantivy): a question naming what only the title says ("the Hollybank rota") finds a line
under a later heading; a line that picks out another name of the title ("Ashby site only")
is not about the one asked."""

from __future__ import annotations

from strategy_support import ask, load

from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.evidence import names, split_units
from rlm_recursive.corpus.sections import title
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Memo {i}: the lift inspection is booked for the spring once again.\n\n"
                 for i in range(40))
ROTA = ("Staff rota, Hollybank & Ashby surgeries (build 5521)\n"
        "Updated every Friday by the practice manager.\n\n"
        "Front desk\n"
        "Reception opens at 0745 on weekdays and the phones go live at 0800.\n"
        "Late clinics (Ashby site only) run until 1930 on Wednesdays.\n")


def _first_line(request):
    prompt = request.messages[-1].content
    if "[Excerpt 1]" not in prompt:
        return reply("NOT FOUND")
    return reply(prompt.split("[Excerpt 1]\n", 1)[1].split("\n", 1)[0])


def test_the_title_names_its_lines_unless_a_line_names_another_of_its_names():
    assert title(ROTA).startswith("Staff rota, Hollybank")
    assert title(FILLER + ROTA) == ""
    units = {u.text.strip(): u for u in split_units([ROTA], [[(-1, "Front desk", "")]],
                                                     [title(ROTA)])}
    opens = units["Reception opens at 0745 on weekdays and the phones go live at 0800."]
    late = units["Late clinics (Ashby site only) run until 1930 on Wednesdays."]
    assert names(opens, "hollybank") and names(opens, "build 5521")
    assert names(late, "ashby") and not names(late, "hollybank")


async def test_a_name_only_the_title_says_finds_the_line_under_a_later_heading(small_rt):
    sid = load(small_rt, FILLER, ROTA)
    result, _ = await ask(small_rt, sid, "When does reception open at Hollybank?", "search",
                          _first_line)
    assert "0745" in result.answer and result.grounded
    result, _ = await ask(small_rt, sid, "Until when do the late clinics run at Hollybank?",
                          "search", _first_line)
    assert result.answer == NOT_FOUND and result.grounded is False

"""The text checks behind grounding, and the loop trimmer every provider's reply goes through."""

from __future__ import annotations

import unicodedata

import pytest

from rlm_recursive.agent.model_call import call_model
from rlm_recursive.corpus.evidence import (
    best_units,
    check_support,
    entities,
    is_echo,
    split_units,
    values,
)
from rlm_recursive.providers.base import Message
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.providers.loops import LoopGuard, find_loop, trim_loop

CITED = ["Invoice 7 from Dufresne Ltd totals EUR 12,480.50, due 3 May 2024.\n"
         "Invoice 8 from Ångström AB totals EUR 990.00.\n",
         "Account holder: Meyer & Söhne\nAccount number: DE44-5001-0517\nBranch: Köln\n"]


def test_values_are_numbers_codes_and_names_not_sentence_openers():
    assert values("The total is 12,480.50 for Dufresne, code DE44-5001-0517 (ICU).") == [
        "12480.50", "dufresne", "de44-5001-0517", "icu"]


def test_entities_are_names_codes_quotes_and_numbered_nouns():
    assert entities('What is the total of invoice 7 from "Dufresne Ltd"?') == [
        "dufresne ltd", "invoice 7"]
    assert entities("Which ward is patient Olsen in?") == ["olsen"]
    # Apostrophes inside words quote nothing: "s Imogen Fairleigh" is no phrase.
    assert entities("What's Imogen Fairleigh's bleep?") == ["imogen", "fairleigh"]
    assert entities("Which room is 'Blue Lagoon' in?") == ["blue lagoon"]


def test_unicode_forms_and_separators_are_normalised():
    nfd = unicodedata.normalize("NFD", "Ångström AB totals EUR 990.00")
    assert check_support(nfd, "Who sent invoice 8?", CITED).supported
    assert check_support("EUR 12480.50", "What is the total of invoice 7?", CITED).supported
    assert check_support("EUR 12\u202f480.50", "What is the total of invoice 7?",
                         CITED).supported


def test_the_value_must_sit_with_the_entity_the_question_names():
    # 990.00 is invoice 8's total: beside another entity, so not an answer for invoice 7.
    support = check_support("EUR 990.00", "What is the total of invoice 7?", CITED)
    assert not support.supported and support.missing_entities == ["invoice 7"]


def test_a_record_block_holds_its_name_and_its_values_together():
    question = "What is the account number of Meyer & Söhne?"
    assert check_support("DE44-5001-0517", question, CITED).supported
    (best,) = [u for _, u in best_units(question, split_units(CITED), 1)]
    assert "DE44-5001-0517" in best.text and "Meyer" in best.text


def test_invented_words_fail_even_when_the_numbers_are_there():
    support = check_support("EUR 12,480.50, a treasure trove of ancient knowledge",
                            "What is the total of invoice 7?", CITED)
    assert not support.supported
    assert {"treasur", "trove", "ancient"} <= set(support.missing_words)


@pytest.mark.parametrize(("answer", "echo"), [
    ("Question: What is the total of invoice 7? The answer is:", True),
    ("The total of invoice 7 is", True),
    ("The total of invoice 7 is EUR 12,480.50.", False),
    ("Dufresne", False),
])
def test_an_echo_of_the_question_is_told_from_an_answer(answer, echo):
    assert is_echo(answer, "What is the total of invoice 7?") is echo


def test_extraction_needs_the_entity_and_half_the_question_words():
    units = split_units(CITED)
    assert best_units("What is the total of invoice 9?", units) == []
    assert best_units("What is the colour of the sky?", units) == []
    ((_, unit),) = best_units("What does invoice 8 total?", units, 1)
    assert unit.text.startswith("Invoice 8")


LOOP = "Drum screen 2 spray bar nozzles cleared; "


def test_a_loop_is_cut_after_its_first_copy():
    text, cut = trim_loop("Status: " + LOOP * 80)
    assert cut and text == "Status: Drum screen 2 spray bar nozzles cleared"
    assert find_loop("yes, yes, yes: the pumps were checked on 1, 2 and 3 May.") is None
    assert trim_loop("a b c d a b c d a b c d") == ("a b c d a b c d a b c d", False)


def test_a_streamed_loop_is_seen_within_a_few_copies():
    guard = LoopGuard()
    fed = 0
    for _ in range(80):
        fed += 1
        if guard.feed(LOOP):
            break
    assert guard.looped and fed < 10


async def test_every_provider_reply_is_trimmed_and_marked(tmp_path, monkeypatch):
    from strategy_support import small_runtime

    from rlm_recursive.agent.pool import ProviderPool
    from rlm_recursive.agent.query import QueryOptions, build_run, resolve_plan

    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        options = QueryOptions(provider="fake", model="small")
        plan, _ = await resolve_plan(runtime.catalog, runtime.profile, options)
        fake = FakeProvider([reply("Done. " + LOOP * 50)])
        rc = build_run(runtime, "", plan, options, ProviderPool({"fake": fake}))
        result = await call_model(rc, plan.at(0), [Message(role="user", content="go")], [],
                                  max_tokens=64)
        assert result.text == "Done. Drum screen 2 spray bar nozzles cleared"
        assert result.done_reason == "loop"
        (request,) = fake.requests
        # Free text gets a repeat penalty and the short reply budget asked for.
        assert request.options.repeat_penalty == 1.1 and request.options.max_tokens == 64
    finally:
        runtime.close()


def test_part_of_a_code_is_not_the_code():
    cited = ["Access: the plant room door uses the code pelican-3308; dose 3.5 mg."]
    question = "What is the door code of the plant room?"
    assert check_support("pelican-3308", question, cited).supported
    assert check_support("3308", question, cited).missing_values == ["3308"]
    assert check_support("3 mg", "What is the dose?", cited).missing_values == ["3"]


def test_hard_wrapped_prose_keeps_its_sentence_whole():
    cited = ["The Belmont archive keeps its door\ncode at 9310-57, and the Harwick\n"
             "archive at 4471-22.\n2024-01-01 ERROR [mailer] bounced\n"
             "2024-01-01 INFO [mailer] sent"]
    units = [u.text for u in split_units(cited)]
    assert units[0] == ("The Belmont archive keeps its door\ncode at 9310-57, and the "
                        "Harwick\narchive at 4471-22.")
    assert units[1:] == ["2024-01-01 ERROR [mailer] bounced", "2024-01-01 INFO [mailer] sent"]
    assert check_support("9310-57", "What is the Belmont archive's door code?", cited).supported


def test_a_summary_is_checked_word_by_word_not_against_one_sentence():
    summary = "Dufresne Ltd billed EUR 12,480.50; Meyer & Söhne bank in Köln."
    question = "Summarise the invoices and accounts."
    assert check_support(summary, question, CITED, long_form=True).supported
    invented = "Dufresne Ltd billed EUR 99,000 to a treasure trove."
    assert not check_support(invented, question, CITED, long_form=True).supported


def test_the_embedded_stream_stops_generating_once_it_loops():
    """The streamed path of the embedded provider, over a stand-in for llama.cpp's stream:
    generation stops within a few copies, and the stream is closed (its state released)."""
    import threading

    from rlm_recursive.providers import embedded

    class Stream:
        def __init__(self) -> None:
            self.sent, self.closed = 0, False

        def create_chat_completion(self, **kwargs):
            assert kwargs["stream"] is True and kwargs["repeat_penalty"] == 1.1

            def chunks():
                try:
                    yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
                    for _ in range(500):
                        self.sent += 1
                        yield {"choices": [{"delta": {"content": LOOP}, "finish_reason": None}]}
                    yield {"choices": [{"delta": {}, "finish_reason": "length"}]}
                finally:
                    self.closed = True
            return chunks()

        def tokenize(self, data: bytes, add_bos: bool = False) -> list[bytes]:
            return data.split()

    llm = Stream()
    out = embedded._stream(embedded._Loaded(llm=llm, formatter=None),
                           {"messages": [], "max_tokens": 512, "repeat_penalty": 1.1},
                           threading.Event())
    assert out["choices"][0]["finish_reason"] == "loop"
    assert llm.sent < 12 and llm.closed
    assert out["usage"]["completion_tokens"] == len(out["choices"][0]["message"]["content"]
                                                    .split())


WARD = ["Patient: Olsen\nWard: 7\nConsultant: Dr Achebe\n\n"
        "Patient: Varga\nWard: 4\nConsultant: Dr Lindqvist\n",
        "The chillers were serviced on Tuesday by the contractor."]


def test_a_value_in_a_record_belongs_to_the_key_on_its_line():
    assert check_support("Ward 7", "Which ward is Olsen in?", WARD).supported
    # Olsen's record holds "Dr Achebe", but on the consultant's line, not the ward's.
    assert not check_support("Dr Achebe", "Which ward is Olsen in?", WARD).supported


def test_every_new_name_must_sit_in_the_same_unit():
    # "Dr" is in Varga's record; "Achebe" is not: a consultant borrowed from Olsen.
    support = check_support("Patient Varga is seen by Dr Achebe.",
                            "Which consultant looks after patient Varga?", WARD)
    assert not support.supported and support.missing_entities == ["varga"]


def test_the_answers_sentence_must_be_about_the_question():
    # Serviced, yes, but the question was about lifts: the chillers' sentence does not do.
    support = check_support("The contractor, on Tuesday.", "Who serviced the lifts?", WARD)
    assert not support.supported and "off_topic" in support.failures()


def test_a_title_does_not_end_the_sentence_or_hide_the_name():
    answer = "The consultant who looks after patient Varga is Dr. Achebe."
    assert "achebe" in values(answer)
    assert not check_support(answer, "Which consultant looks after patient Varga?",
                             WARD).supported


def test_free_text_requests_carry_a_repeat_penalty_on_every_wire():
    from rlm_recursive.providers.base import ChatOptions, ChatRequest
    from rlm_recursive.providers.ollama import OllamaProvider
    from rlm_recursive.providers.openai_wire import FREQUENCY_PENALTY, chat_body

    asked = ChatRequest(model="m", messages=[Message(role="user", content="hi")],
                        options=ChatOptions(max_tokens=256, repeat_penalty=1.1))
    plain = asked.model_copy(update={"options": ChatOptions(max_tokens=256)})
    ollama = OllamaProvider("http://127.0.0.1:9")
    assert ollama._body(asked, 4096, False)["options"]["repeat_penalty"] == 1.1
    assert ollama._body(asked, 4096, False)["options"]["num_predict"] == 256
    assert "repeat_penalty" not in ollama._body(plain, 4096, False)["options"]
    assert chat_body(asked, constrained=None, stream=False)["frequency_penalty"] == \
        FREQUENCY_PENALTY
    assert "frequency_penalty" not in chat_body(plain, constrained=None, stream=False)


def test_a_number_inside_one_the_question_says_is_still_new():
    assert not is_echo("0", "How many requests took over 500 ms?")


def test_a_temperature_answers_temperature_whether_or_not_the_line_says_so():
    from rlm_recursive.corpus.units import Unit, stems

    def words(text: str) -> frozenset[str]:
        return Unit(0, 0, len(text), text).own_stems

    temperature = stems("temperature")[0]
    assert temperature in words("Cover and bake at 160°C (gas 3) for two hours.")
    assert temperature in words("Prove the dough at 30 degrees C overnight.")
    assert temperature in words("Roast at gas mark 6 until golden.")
    assert temperature not in words("Bake for 160 minutes in a 23 cm tin.")


def test_a_host_name_in_lower_case_is_an_entity_the_answer_must_sit_with():
    assert "api.staging.example.com" in entities("what is the DocumentRoot for "
                                                 "api.staging.example.com")
    assert entities("e.g. what port is it") == []
    # Another virtual host's DocumentRoot is no answer about this one.
    config = ("ServerName status.example.com\n\nDocumentRoot /srv/www/status\n\n"
              "ServerName api.staging.example.com\n\nProxyPass / http://192.0.2.7:8080/\n")
    question = "what is the DocumentRoot for api.staging.example.com"
    assert not check_support("DocumentRoot /srv/www/status", question, [config]).supported


def test_an_answer_circling_on_the_question_is_an_echo() -> None:
    # A small model's loop on the question's own words says nothing, however little of the
    # question it repeats; a value it gives is no echo.
    question = ("The hedge that the warden has to inspect for nesting wrens before cutting - "
                "what condition grade did the inspector give it?")
    assert is_echo("The hedge that the warden has to inspect is a hedge that is a hedge that "
                   "is a hedge.", question)
    assert not is_echo("The inspector gave the hedge grade C2.", question)
    assert not is_echo("The hedge that the warden inspects.", question)

"""Shared by the fact and chain tests: filler, an email written by the standard library's
email package, and a small model that knows nothing (so only the runtime's copy can be
right)."""

from __future__ import annotations

from email.message import EmailMessage

from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Paragraph {i} is about the weather over the hills and nothing more.\n\n"
                 for i in range(60))


def email(subject: str, body: str) -> str:
    """An email from Rosalind Achterberg to Year 8 parents, as the email package writes it."""
    message = EmailMessage()
    message["From"] = "Rosalind Achterberg <r.achterberg@school.invalid>"
    message["To"] = "Year 8 parents <parents@school.invalid>"
    message["Subject"] = subject
    message.set_content(body)
    return message.as_string()


def knows_nothing(request: ChatRequest) -> ChatResult:
    if request.tools:  # a hop's JSON step: nothing found, nothing to look up
        return reply('{"fact": "", "can_answer": false, "answer": "", "next_lookup": "NONE"}')
    return reply("I do not know.")

"""Citation verification (seed 003 §9.4, §16.5)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...agent.citations import Citation, verify_citation
from ...errors import InvalidArgs
from ..deps import Principal, api_state, require

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["citations"])


class RefIn(BaseModel):
    """A SpanRef as an execution returned it; doc_id or doc_index names the document."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    tenant_id: str | None = Field(None, description="Ignored: the key decides the tenant")
    session_id: str
    doc_id: str | None = None
    doc_index: int | None = Field(None, ge=0)
    start_char: int = Field(ge=0)
    end_char: int = Field(ge=0)
    checksum: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    source_name: str | None = Field(None, description="Ignored")
    source: str | None = Field(None, description="Ignored")
    page: int | None = Field(None, description="Ignored: recomputed from the document")
    line: int | None = Field(None, description="Ignored: recomputed from the document")

    @model_validator(mode="after")
    def _doc(self) -> RefIn:
        if self.doc_id is None and self.doc_index is None:
            raise ValueError("give doc_id or doc_index")
        return self


class VerifyIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    ref: RefIn


@router.post("/citations/verify")
async def verify(body: VerifyIn, request: Request,
                 who: Annotated[Principal, Depends(require("read"))]) -> dict[str, Any]:
    """Reload the span, recompute its checksum: `{valid, text, source_name, char_range}`."""
    state = api_state(request)
    store, ref = state.runtime.store, body.ref

    def check() -> dict[str, Any]:
        state.tenants.owned_session(who.tenant_id, ref.session_id)
        docs = store.documents(ref.session_id)
        if ref.doc_id is not None:
            doc = store.document(ref.session_id, ref.doc_id)
        elif ref.doc_index is not None and ref.doc_index < len(docs):
            doc = docs[ref.doc_index]
        else:
            raise InvalidArgs(f"doc_index {ref.doc_index} is out of range")
        if ref.doc_id is not None and ref.doc_index is not None and (
                ref.doc_index >= len(docs) or docs[ref.doc_index].id != doc.id):
            raise InvalidArgs("doc_id and doc_index name different documents")
        out = verify_citation(store, ref.session_id, Citation(
            doc_id=doc.id, start=ref.start_char, end=ref.end_char, checksum=ref.checksum))
        return {**out, "source_name": doc.source, **store.locate(doc, ref.start_char),
                "char_range": {"start_char": ref.start_char, "end_char": ref.end_char}}

    return await state.db(check)

"""/vram keeps only the questions that change memory: the parser's question fields decide, not wording."""

from __future__ import annotations


def test_vram_drops_data_questions_but_keeps_the_model_question(real_advisor) -> None:
    full = real_advisor.respond(real_advisor.new_conversation(), "70B qlora")
    assert any(f in ("dataset_gb", "dataset_tokens") for f in full.question_fields)  # a normal answer asks
    vram = real_advisor.vram("70B qlora")
    assert vram.advice is not None and vram.questions == [] and vram.question_fields == []
    bare = real_advisor.vram("qlora")
    assert bare.question_fields and set(bare.question_fields) <= {"model", "params_b", "mode"}
    assert len(bare.questions) == len(bare.question_fields)

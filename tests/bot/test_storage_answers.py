"""Checkpoint-size, storage and transfer questions answered end to end: the headline first with the figure asked
for, what it is made of, the assumptions to change in the thread, Slack's limits, `ask --details` and `ask --json`.

Figures are the hand arithmetic of tests/engine/test_checkpoints.py on the shipped catalog's rates (S3 Standard
$0.023/GB-month, Cloud Storage Standard $0.020, AWS egress first 100 GB free then $0.09/GB)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from bot.cli import main
from bot.limits import violations
from bot.render import render_response
from bot.terminal import render_terminal


def answer(advisor: Any, text: str, *, details: bool = False) -> tuple[Any, str]:
    response = advisor.respond(advisor.new_conversation(), text)
    [message] = render_response(response, advisor.display_names())
    assert violations(message.blocks, text=message.text) == []
    return response, render_terminal(response, advisor.display_names(), details=details)


def test_storing_ten_checkpoints_of_a_70b_full_fine_tune_on_s3(real_advisor: Any) -> None:
    response, text = answer(real_advisor, "how much to store 10 checkpoints of a 70B full fine-tune on S3?")
    lines = text.strip().splitlines()
    assert response.intent == "storage" and response.advice is None
    assert lines[0] == "10 checkpoints of a 70B full fine-tune on S3 Standard: 9.8 TB, $225 a month."
    assert lines[1].startswith("Each: 980 GB resumable (70B params × 14 bytes: BF16 weights 140 GB + FP32 master copy "
                               "280 GB + Adam m and v (FP32) 560 GB)")
    assert "= 9,800 GB × $0.023/GB-month = $225" in lines[2]
    assert "last 3 resumable and weights alone for the other 7" in lines[3] and "3.92 TB, $90.16 a month" in lines[3]
    assert lines[-1].startswith("Assumes mixed-precision Adam") and "“keep 3 checkpoints”" in lines[-1]
    assert 3 <= len(lines) <= 6
    assert "Fits" not in text and "training data" not in text


def test_the_size_of_a_llama_70b_checkpoint(real_advisor: Any) -> None:
    _, text = answer(real_advisor, "how big is a Llama 3.1 70B checkpoint?")
    assert text.startswith("Llama 3.1 70B checkpoint: 141 GB of BF16 weights (70.55B params × 2 bytes).\n")
    assert "To resume training it is 988 GB" in text


def test_a_full_fine_tune_checkpoint_with_adam(real_advisor: Any) -> None:
    _, text = answer(real_advisor, "checkpoint size for full fine-tuning Llama 3.1 8B with Adam")
    assert text.startswith("Checkpoint of a Llama 3.1 8B full fine-tune, resumable with Adam: 112 GB.\n")
    assert "Weights alone (to evaluate, release or serve): 16.1 GB." in text


def test_a_lora_adapter(real_advisor: Any) -> None:
    _, text = answer(real_advisor, "LoRA adapter size for rank 16 on Llama 3.1 70B")
    assert text.startswith("LoRA adapter for Llama 3.1 70B at rank 16: 828 MB (207M params in FP32); 2.49 GB with its "
                           "optimizer state, to resume.")
    assert "the frozen 141 GB base is not saved again" in text


def test_keeping_5_tb_in_gcs_for_6_months(real_advisor: Any) -> None:
    _, text = answer(real_advisor, "how much does it cost to keep 5 TB of checkpoints in GCS for 6 months?")
    assert text.startswith("5 TB on Cloud Storage Standard for 6 months: $600 ($100 a month).")


@pytest.mark.parametrize(("question", "headline"), [
    ("egress cost to move 2TB from S3 to Lambda", "Moving 2 TB from S3 to Lambda: $171 of AWS internet egress."),
    ("what does it cost to download our 500GB dataset out of S3?",
     "Moving 500 GB from S3 to the internet: $36.00 of AWS internet egress."),
    ("move 2TB from S3 to SageMaker, how much?", "Moving 2 TB from S3 to AWS SageMaker: $0, both are in AWS"),
])
def test_transfers(real_advisor: Any, question: str, headline: str) -> None:
    _, text = answer(real_advisor, question)
    assert text.startswith(headline)


def test_details_give_each_figure_its_formula_and_source(real_advisor: Any) -> None:
    _, text = answer(real_advisor, "how much to store 10 checkpoints of a 70B full fine-tune on S3?", details=True)
    assert "Formulas:" in text
    assert "usd_per_month = size_gb x count x months x usd_per_gb_month (size_gb 980, count 10, months 1, " \
           "usd_per_gb_month 0.023) = 225.4 USD" in text
    assert "aws.amazon.com/s3/pricing" in text


def test_the_thread_refines_the_storage_question(real_advisor: Any) -> None:
    conversation = real_advisor.new_conversation()
    real_advisor.respond(conversation, "how much to store 10 checkpoints of a 70B full fine-tune on S3?")
    texts = [render_terminal(real_advisor.respond(conversation, t)) for t in ("keep 3 checkpoints", "on GCS", "for 6 months")]
    assert texts[0].startswith("3 checkpoints of a 70B full fine-tune on S3 Standard: 2.94 TB, $67.62 a month.")
    assert texts[1].startswith("3 checkpoints of a 70B full fine-tune on Cloud Storage Standard: 2.94 TB, $58.80 a month.")
    assert texts[2].startswith("3 checkpoints of a 70B full fine-tune on Cloud Storage Standard for 6 months: 2.94 TB, "
                               "$353 ($58.80 a month).")


def test_ask_json_keeps_every_key_and_adds_storage() -> None:
    out = io.StringIO()
    assert main(["ask", "--json", "how much to store 10 checkpoints of a 70B full fine-tune on S3?"], stdout=out) == 0
    data = json.loads(out.getvalue())
    assert {"workload", "missing", "questions", "assumptions", "report", "notes", "capacity", "compared_gpus"} <= set(data)
    assert data["report"] == {"memory": None, "cluster": None, "throughput": None, "tco": None}
    storage = data["storage"]
    assert storage["question"] == "storage" and storage["count"] == 10 and storage["provider"] == "aws"
    assert storage["checkpoint"]["kind"] == "training" and storage["checkpoint"]["gb"] == pytest.approx(980.0)
    assert storage["usd_per_month"] == pytest.approx(225.4)
    assert data["notes"][0].startswith("10 checkpoints of a 70B full fine-tune")
    plan = io.StringIO()
    assert main(["ask", "--json", "QLoRA 70B, 500GB corpus in S3, 20 runs"], stdout=plan) == 0
    assert json.loads(plan.getvalue())["storage"] is None

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
    ("egress to move 2TB from S3 to Lambda", "Moving 2 TB from S3 to Lambda: $171 of AWS internet egress."),
    ("how much to move the Llama 3.1 70B checkpoint from S3 to GCP?",
     "Moving the Llama 3.1 70B checkpoint (141 GB) from S3 to GCS: $3.70 of AWS internet egress."),
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


def test_deepseek_v3_on_disk_is_its_published_fp8(real_advisor: Any) -> None:
    """It was "1.34 TB of BF16 weights … BF16 as published"; the release is FP8 (about 690 GB with its MTP module),
    which the serving plans already size."""
    _, text = answer(real_advisor, "how big is DeepSeek V3 on disk?")
    lines = text.strip().splitlines()
    assert lines[0].startswith("DeepSeek-V3 (671B MoE) checkpoint: 673 GB of FP8 weights, as published (")
    assert lines[1] == "Cast to BF16 (as fine-tuning loads it): 1.34 TB."
    assert "FP8 as published" in lines[-1] and "“in BF16”" in lines[-1] and "BF16 as published" not in text
    _, bf16 = answer(real_advisor, "how big is DeepSeek V3 on disk in bf16?")
    assert bf16.startswith("DeepSeek-V3 (671B MoE) checkpoint: 1.34 TB of BF16 weights (671B params × 2 bytes).")


def _gb_figures(line: str) -> list[float]:
    import re

    return [float(n) * (1000 if unit == "TB" else 1) for n, unit in re.findall(r"([\d.]+) (GB|TB)", line)]


def test_the_resume_size_in_fp8_adds_up(real_advisor: Any) -> None:
    """t3a: "in FP8" kept the BF16 resume total (988 GB) beside 70.6 GB of FP8 weights + 282 + 564 = 917."""
    conversation = real_advisor.new_conversation()
    real_advisor.respond(conversation, "how big is a Llama 3.1 70B checkpoint?")
    text = render_terminal(real_advisor.respond(conversation, "in FP8"))
    resume = next(line for line in text.splitlines() if line.startswith("To resume training"))
    total, *parts = _gb_figures(resume)
    assert resume.startswith("To resume training it is 919 GB: the FP8 weights (72.7 GB) plus an FP32 master copy")
    assert total == pytest.approx(sum(parts), abs=1.5)


def test_how_long_to_download_llama_405b_at_1_gbps(real_advisor: Any) -> None:
    """It was a serving plan (4x MI300X, $6,979 a month); 812 GB x 8 / 1 Gbps = 6,494 s."""
    response, text = answer(real_advisor, "how long to download Llama 3.1 405B weights at 1 Gbps?")
    lines = text.strip().splitlines()
    assert response.intent == "storage" and response.advice is None
    assert lines[0] == "The Llama 3.1 405B checkpoint (812 GB) over 1 Gbps: 1.8 hours at the full line rate."
    assert lines[1] == "= 811.7 GB × 8 bits / 1 Gbps = 6,494 s."
    assert "at 70% of it, 2.6 hours" in lines[2]
    assert lines[-1].startswith("Assumes the full line rate (a floor), BF16 weights as published")
    _, unsaid = answer(real_advisor, "how long to download DeepSeek V3?")
    assert unsaid.startswith("The DeepSeek-V3 (671B MoE) checkpoint (673 GB): 90 min at 1 Gbps, 9 min at 10 Gbps, 54 s at "
                             "100 Gbps, at the full line rate.")


def test_a_byte_rate_and_a_named_source(real_advisor: Any) -> None:
    _, text = answer(real_advisor, "how long to copy 5 TB from S3 at 1 GB/s?")
    assert text.startswith("5 TB over 1 GB/s (8 Gbps): 83 min at the full line rate.")
    assert "Moving it out of S3 costs $441 of AWS egress." in text


def test_disk_and_adapters_are_storage_answers_not_plans(real_advisor: Any) -> None:
    _, disk = answer(real_advisor, "how much disk do I need to full fine-tune Llama 3.1 8B?")
    assert disk.startswith("Checkpoint of a Llama 3.1 8B full fine-tune, resumable with Adam: 112 GB.")
    _, adapters = answer(real_advisor, "cost to store Llama 3.1 70B LoRA adapters for 50 customers on S3")
    assert adapters.startswith("50 × LoRA adapter for Llama 3.1 70B at rank 16 on S3 Standard: 124 GB, $2.86 a month.")
    assert "Adapter weights alone (what vLLM loads; no optimizer state to resume): 41.4 GB, $0.95 a month." in adapters
    assert "Fits" not in disk + adapters


@pytest.mark.parametrize(("thread", "headlines"), [
    (("how big is a Llama 3.1 70B checkpoint?", "how long to copy it at 10 Gbps?", "store it on S3 for a year"),
     ["Llama 3.1 70B checkpoint: 141 GB of BF16 weights",
      "The Llama 3.1 70B checkpoint (141 GB) over 10 Gbps: 2 min at the full line rate.",
      "Llama 3.1 70B checkpoint on S3 Standard for a year: 141 GB, $38.95 ($3.25 a month)."]),
    (("egress to move 2TB from S3 to Lambda", "what about 20 TB?", "how long at 10 Gbps?"),
     ["Moving 2 TB from S3 to Lambda: $171", "Moving 20 TB from S3 to Lambda: $1,742",
      "20 TB over 10 Gbps: 4.4 hours at the full line rate."]),
    (("how big is a Llama 3.1 70B checkpoint?", "in FP8", "store 10 of them on S3 for 6 months"),
     ["Llama 3.1 70B checkpoint: 141 GB", "Llama 3.1 70B checkpoint: 72.7 GB of FP8 weights",
      "10 × Llama 3.1 70B checkpoint on S3 Standard for 6 months: 727 GB, $100 ($16.71 a month)."]),
])
def test_storage_threads(real_advisor: Any, thread: tuple[str, ...], headlines: list[str]) -> None:
    """Review 26b, threads t3a-t3c: the follow-ups gave "Moving 0 MB … $0", the help text, or 10 GPUs."""
    conversation = real_advisor.new_conversation()
    texts = [render_terminal(real_advisor.respond(conversation, t)) for t in thread]
    for text, headline in zip(texts, headlines, strict=True):
        assert text.startswith(headline), text
        assert "0 MB" not in text and "I size GPU jobs" not in text and "GPUs" not in text

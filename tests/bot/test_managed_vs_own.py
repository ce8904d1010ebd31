"""A cloud's managed service asked about against its own VMs or in its own name (review 29b, item 14), through the real
parser, engine and catalog: "sagemaker vs ec2" had been answered with SageMaker alone (and "ec2" as an unknown model),
"vertex ai vs gce" with RunPod, and "bedrock custom model import for our fine-tuned llama 3.1 8b, 2M tokens/day" as a
LoRA run."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from parser.managed import BEDROCK_CMI_NOTE, VERTEX_NOTE, take_managed
from tests.bot.answers import answered

SAGEMAKER_Q = "serve gemma 3 27b on sagemaker vs ec2"


def test_sagemaker_vs_ec2_is_the_same_plan_priced_on_both(real_advisor) -> None:
    response, view, text = answered(real_advisor, SAGEMAKER_Q)
    assert "ec2" not in " ".join(response.notes).lower()  # not an unknown model any more
    assert response.workload.providers == ("sagemaker", "aws")
    answer = response.managed
    assert answer is not None and answer.same_plan
    assert (answer.managed.provider, answer.own.provider) == ("sagemaker", "aws")
    assert answer.managed.gpus == answer.own.gpus
    assert answer.premium_usd == pytest.approx(answer.managed_usd - answer.own_usd)
    assert answer.premium_usd > 0
    headline = text.splitlines()[0]
    assert headline == view.headline
    # today's catalog: 1x L40S, ml.g6e.xlarge at 1.40x the EC2 g6e.xlarge
    assert headline.startswith("⚖️ SageMaker costs $543 a month more than EC2 (+40%) for serving Gemma 3 27B on the "
                               "same 1× L40S 48GB: $1,902 vs $1,359 a month"), headline
    [buys] = [n for n in view.notes if n.startswith("SageMaker's premium buys")]
    assert "autoscaling" in buys and "patching" in buys and "container" in buys
    # both sides are in the table the headline compares
    rows = {row.name for row in view.comparison}
    assert answer.managed.option in rows and answer.own.option in rows


def test_sagemaker_or_plain_ec2_with_a_load_is_compared_too(real_advisor) -> None:
    response, view, text = answered(real_advisor, "sagemaker or plain ec2 for llama 3.1 8b, 20 users")
    assert "I don't know" not in text
    answer = response.managed
    assert answer is not None and answer.same_plan
    assert {answer.managed.provider, answer.own.provider} == {"sagemaker", "aws"}
    assert view.headline.startswith("⚖️ SageMaker costs $") and " more than EC2 (+" in view.headline
    assert "RunPod" not in view.headline


def test_ec2_said_first_is_the_same_comparison(real_advisor) -> None:
    response, _, _ = answered(real_advisor, "serve llama 3.1 8b on ec2 vs sagemaker, 20 users")
    assert response.managed is not None and response.managed.managed.provider == "sagemaker"


def test_ask_json_adds_the_premium(real_advisor) -> None:
    from bot.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["ask", "--json", SAGEMAKER_Q])
    said = json.loads(out.getvalue())["managed_vs_self_managed"]
    assert said["managed"]["provider"] == "sagemaker" and said["self_managed"]["provider"] == "aws"
    assert said["per"] == "month" and said["same_plan"] is True
    assert said["premium_usd"] == pytest.approx(said["managed"]["usd_per_month"] - said["self_managed"]["usd_per_month"],
                                                abs=0.02)
    assert said["premium_fraction"] == pytest.approx(0.40, abs=0.005)


def test_vertex_ai_is_planned_on_compute_engine_and_said_to_be_missing(real_advisor) -> None:
    response, view, text = answered(real_advisor, "vertex ai vs gce for serving gemma 3 27b, 10 users")
    assert response.workload.provider == "gcp"
    assert "RunPod" not in text
    assert "Compute Engine" in text.split("Compared")[0]  # the Cost line's provider
    assert VERTEX_NOTE in view.notes
    assert response.managed is None  # nothing priced to compare with


def test_bedrock_custom_model_import_is_a_serving_load_not_a_training_run(real_advisor) -> None:
    response, view, text = answered(
        real_advisor, "bedrock custom model import for our fine-tuned llama 3.1 8b, what would it cost per month at "
                      "2M tokens/day")
    assert response.advice.effective.mode == "inference"
    assert response.workload.load_tokens_per_s == pytest.approx(2e6 / 86400, rel=1e-3)
    assert view.headline.startswith("✅ Fits: serving Llama 3.1 8B"), view.headline
    assert "LoRA" not in text and "per run" not in text
    assert BEDROCK_CMI_NOTE in view.notes
    assert "Custom Model Unit per minute" in BEDROCK_CMI_NOTE and "aws.amazon.com/bedrock/pricing" in BEDROCK_CMI_NOTE


class _Resolver:
    """Provider aliases as the catalog has them (catalog/data/aliases.csv)."""

    IDS = {"ec2": "aws", "aws": "aws", "sagemaker": "sagemaker", "aws sagemaker": "sagemaker", "gce": "gcp",
           "coreweave": "coreweave",
           "lambda": "lambda"}

    def __call__(self, text: str) -> object | None:
        found = self.IDS.get(text)
        return type("R", (), {"id": found})() if found else None


@pytest.mark.parametrize("text", ["serve llama 3.1 8b on coreweave vs lambda, 20 users",
                                  "what does an h100 cost on aws", "fine-tune llama 3.1 8b on ec2"])
def test_other_providers_and_single_clouds_are_left_to_the_grammar(text: str) -> None:
    assert take_managed(text, _Resolver()) == (text, None)


def test_the_pair_is_read_in_any_wording() -> None:
    for text in ("sagemaker vs , ec2 for llama", "ec2 versus sagemaker for llama", "sagemaker or plain ec2 for llama",
                 "aws sagemaker compared to raw ec2 instances for llama"):
        rest, ask = take_managed(text, _Resolver())
        assert ask is not None and set(ask.versus or ()) == {"sagemaker", "aws"}, text
        assert rest == "for llama", rest


def test_a_training_run_compares_the_plan_the_answer_shows(real_advisor) -> None:
    # SageMaker's own best LoRA plan is an H100, but the answer's pick is EC2's L40S: the premium is read on the L40S
    response, view, _ = answered(real_advisor, "lora llama 3.1 8b on sagemaker vs ec2, 100M tokens")
    answer = response.managed
    assert answer is not None and answer.per == "run" and answer.same_plan
    assert answer.gpu == response.advice.cluster.gpu
    assert view.headline.startswith("⚖️ SageMaker costs $") and " a run more than EC2 (+" in view.headline

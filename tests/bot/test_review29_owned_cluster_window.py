"""A team's own cluster and a fixed window on a fixed fleet (review 29), each as the user asked it, on the real catalog:

- "how many gpus do i need on our slurm cluster to train 7B …" answered "40x B200" priced as a Nebius rental: the GPU
  type is asked first and the answer is the job per common type (A100 80GB, H100, H200, B200), costed at their power;
- "train 7b model on 500 A100s for 2 hours" planned a LoRA and asked for a token count, and "we have 500 A100s for 2
  hours, pretrain a 7B" asked for the data: the answer is the tokens the fleet trains in the window, what the window
  costs, and its share of a compute-optimal run; "train a 7B" on hundreds of GPUs reads as pre-training."""

from __future__ import annotations

from bot.cli import main
from parser.fleet import own_cluster_said, window_hours
from tests.bot.answers import answered

SLURM_Q = "how many gpus do i need on our slurm cluster to train 7B from scratch on 2T tokens in 30 days"
WINDOW_Q = "train 7b model on 500 A100s for 2 hours"
OWNED_WINDOW_Q = "we have 500 A100s for 2 hours, pretrain a 7B"


def test_our_slurm_cluster_asks_the_gpu_and_gives_the_count_per_type_owned(real_advisor) -> None:
    response, view, text = answered(real_advisor, SLURM_Q)
    rows = {r.gpu: r for r in response.owned_types}
    assert set(rows) == {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"}
    # the spread follows the dense BF16 peaks: ~288 A100s, ~96 H100s, ~40 B200s for 2T tokens in 30 days
    assert 250 <= rows["a100-sxm-80gb"].gpus <= 320 and 80 <= rows["h100-sxm"].gpus <= 112 and 32 <= rows["b200"].gpus <= 48
    assert all(r.hours_per_run is not None and r.hours_per_run <= 720 for r in rows.values())
    # costed at power: cents per GPU-hour, not a rental
    assert all(0.05 < r.usd_per_gpu_hour < 0.5 and abs(r.usd_power - r.gpu_hours * r.usd_per_gpu_hour) < 1
               for r in rows.values())
    assert response.questions[0].startswith("Which GPU does your cluster have")
    assert text.splitlines()[0].startswith("⚠️ Which GPU does your cluster have? Pre-training 7B on 2T tokens in 30 days")
    assert "Nebius" not in text and "$154" not in text and "power" in text
    assert response.advice.recommendation.primary.startswith("your own")
    assert len(view.comparison) == 4 and not view.plan


def test_the_type_answered_in_the_thread_is_theirs_too(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, SLURM_Q)
    second = real_advisor.respond(conversation, "H100", first.advice)
    h100 = next(r for r in first.owned_types if r.gpu == "h100-sxm")
    assert second.owned_types is None and second.advice.cluster.gpus == h100.gpus
    assert second.advice.recommendation.primary.startswith("your own")


def test_owned_cluster_json_adds_the_rows(capsys) -> None:
    assert main(["ask", "--json", SLURM_Q]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["workload"]["data_location"] == "onprem" and out["window"] is None
    assert [r["gpu"] for r in out["owned_by_gpu"]] == ["a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"]
    assert out["report"]["tco"]["options"][0]["name"].startswith("your own")


def test_a_fixed_fleet_for_a_fixed_time_answers_the_tokens_it_trains(real_advisor) -> None:
    response, view, text = answered(real_advisor, WINDOW_Q)
    w = response.window
    assert response.workload.mode == "pretrain" and response.workload.deadline_hours == 2
    # 1.4M tokens/s x (2 h less start-up): ~9B tokens; a 7B's compute-optimal run is ~140B tokens
    assert 7e9 < w.tokens < 11e9 and w.optimal_tokens == 140e9 and 0.04 < w.share < 0.08
    assert 990 <= w.gpu_hours <= 1010 and w.usd is not None and 1_500 < w.usd < 3_500 and not w.owned
    assert not any("How much training data" in q for q in response.questions)
    assert text.splitlines()[0].startswith("⏱️ In 2 hours, 500× A100 SXM4 80GB pre-train ~")
    assert "compute-optimal 140B-token run" in text.splitlines()[0]
    assert "read as pre-training" in text and "LoRA 7B" not in text
    assert response.advice.effective.dataset_tokens == w.tokens


def test_owned_fleet_window_is_costed_at_power(real_advisor) -> None:
    response, _, text = answered(real_advisor, OWNED_WINDOW_Q)
    w = response.window
    assert w is not None and w.owned and w.usd is not None and w.usd < 300
    assert response.questions == [] and "How much training data" not in text


def test_window_json_adds_the_window(capsys) -> None:
    assert main(["ask", "--json", WINDOW_Q]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    window = out["window"]
    assert window["hours"] == 2 and window["gpus"] == 500 and window["compute_optimal_tokens"] == 140e9
    assert out["owned_by_gpu"] is None and out["workload"]["mode"] == "pretrain"


def test_phrases() -> None:
    assert own_cluster_said("on our k8s cluster") and own_cluster_said("train it on-prem")
    assert own_cluster_said("on our own gpus") and own_cluster_said("how many on our slurm cluster")
    assert own_cluster_said("qlora 70b, the data is stored on-prem") is None
    assert window_hours("500 a100s for 2 hours") == (2.0, "for 2 hours")
    assert window_hours("for 3 days") == (72.0, "for 3 days")
    assert window_hours("serve it for 2 hours a day") is None


def test_small_fleets_and_fine_tunes_are_not_read_as_pretraining(real_advisor) -> None:
    response, _, _ = answered(real_advisor, "train a 7b model on 8 H100s on 1B tokens")
    assert response.workload.mode is None
    response, _, _ = answered(real_advisor, "fine-tune a 7b model on 500 A100s for 2 hours")
    assert response.workload.mode != "pretrain"

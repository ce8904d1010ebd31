"""Published pre-training runs beside the engine's estimate (engine.published_runs): every figure pinned with its source,
the runs matched to a model or its size class, and the answer's line saying why theirs and ours differ."""

import pytest

from engine.published_runs import RUNS, published_runs


def _run(name: str):
    return next(r for r in RUNS if r.name == name)


@pytest.mark.parametrize(("name", "hours", "tokens", "gpu", "source"), [
    # github.com/meta-llama/llama3 MODEL_CARD.md, "Carbon Footprint": 1.3M and 6.4M H100-80GB hours, "over 15T tokens"
    ("Llama 3 8B", 1.3e6, 15e12, "H100", "meta-llama/llama3 MODEL_CARD.md"),
    ("Llama 3 70B", 6.4e6, 15e12, "H100", "meta-llama/llama3 MODEL_CARD.md"),
    # github.com/meta-llama/llama-models models/llama3_1/MODEL_CARD.md, "Training Energy Use": 1.46M, 7.0M, 30.84M
    # (39.3M in all), "~15 trillion tokens"; the 405B's 15.6T is The Llama 3 Herd of Models (arXiv 2407.21783)
    ("Llama 3.1 8B", 1.46e6, 15e12, "H100", "models/llama3_1/MODEL_CARD.md"),
    ("Llama 3.1 70B", 7.0e6, 15e12, "H100", "models/llama3_1/MODEL_CARD.md"),
    ("Llama 3.1 405B", 30.84e6, 15.6e12, "H100", "arXiv 2407.21783"),
    # github.com/deepseek-ai/DeepSeek-V3 README.md: "2.664M H800 GPU hours ... pre-training ... on 14.8T tokens",
    # 2.788M for the full training (arXiv 2412.19437, Table 1)
    ("DeepSeek-V3", 2.664e6, 14.8e12, "H800", "deepseek-ai/DeepSeek-V3 README.md"),
])
def test_published_figures_and_their_sources(name: str, hours: float, tokens: float, gpu: str, source: str) -> None:
    run = _run(name)
    assert (run.gpu_hours, run.tokens, run.gpu) == (hours, tokens, gpu) and source in run.source
    assert float(run.hours_said.rstrip("M")) * 1e6 == pytest.approx(hours)


def test_meta_totals_add_up() -> None:
    """The cards' totals: 7.7M for Llama 3, 39.3M for Llama 3.1."""
    assert _run("Llama 3 8B").gpu_hours + _run("Llama 3 70B").gpu_hours == pytest.approx(7.7e6)
    assert sum(_run(f"Llama 3.1 {s}").gpu_hours for s in ("8B", "70B", "405B")) == pytest.approx(39.3e6)


@pytest.mark.parametrize(("name", "mfu"), [
    # model FLOPs counted as the engine counts them (6N + attention at 8k) over the whole run's GPU time at 989 TFLOPS
    ("Llama 3 8B", 0.198), ("Llama 3.1 8B", 0.176), ("Llama 3 70B", 0.321), ("Llama 3.1 70B", 0.293),
    ("Llama 3.1 405B", 0.375),
])
def test_whole_run_utilisation_the_cards_imply(name: str, mfu: float) -> None:
    assert _run(name).implied_mfu == pytest.approx(mfu, abs=0.003)


@pytest.mark.parametrize(("model", "params_b", "moe", "names"), [
    ("llama-3-8b", 8.03, False, ["Llama 3 8B", "Llama 3.1 8B"]),
    ("llama-3.1-8b", 8.03, False, ["Llama 3.1 8B", "Llama 3 8B"]),
    (None, 70.0, False, ["Llama 3.1 70B", "Llama 3 70B"]),  # "a 70B model": the size class
    ("qwen2.5-72b", 72.71, False, ["Llama 3.1 70B", "Llama 3 70B"]),  # Qwen2.5 publishes no GPU-hours
    ("deepseek-v3", 671.0, True, ["DeepSeek-V3"]),
    ("deepseek-v3.1", 671.0, True, []),  # an MoE only by name: V3.1 is V3 trained further, not its run
    (None, 13.0, False, []), (None, 671.0, False, []),
])
def test_runs_matched_by_name_then_size(model: str | None, params_b: float, moe: bool, names: list[str]) -> None:
    assert [r.name for r in published_runs(model, params_b, 37.0 if moe else params_b, moe)] == names


"""Review 26, item 2: a global batch said the way practitioners say it was read as the per-GPU micro-batch ("global
batch size 512" planned an 8B full fine-tune at tensor parallel x8 on B300s, $244 a run against $127 on 8 H100s without
the clause), steps x batch x sequence length went unpriced behind "How much training data?", and "a global batch of
4M tokens" was asked back as a second dataset."""

from __future__ import annotations

from tests.bot.answers import answered

EIGHT_B = "full fine-tune Llama 3.1 8B on 2B tokens"


def _plan(response) -> tuple[str, int, int, int]:
    cluster = response.advice.cluster
    return cluster.gpu, cluster.gpus, cluster.tensor_parallel, cluster.data_parallel


def test_a_global_batch_plans_what_the_job_without_it_plans(real_advisor) -> None:
    plain, _, plain_text = answered(real_advisor, EIGHT_B)
    for clause in ("with global batch size 512", "with a global batch of 4M tokens", "at an effective batch size of 1024"):
        said, view, text = answered(real_advisor, f"{EIGHT_B} {clause}")
        assert _plan(said) == _plan(plain), (clause, _plan(said))
        assert said.advice.cluster.tensor_parallel == 1
        assert said.advice.memory.per_gpu_gb == plain.advice.memory.per_gpu_gb
        assert said.advice.effective.batch_size == 1
        assert not said.questions, said.questions  # no "You said both 2b tokens and 4m tokens"
        assert text.split("\n")[0] == plain_text.split("\n")[0]


def test_steps_and_a_global_batch_are_the_data_priced(real_advisor) -> None:
    response, view, text = answered(
        real_advisor, "fine-tune Llama 3.1 8B for 5000 steps at global batch size 256 with 4096 seq len")
    assert not any("training data" in q for q in response.questions), response.questions
    assert response.advice.effective.dataset_tokens == 5000 * 256 * 4096
    assert "5,000 steps × 256 sequences × 4,096 tokens = 5.24B tokens trained" in text, text
    assert "per run" in text and response.advice.cluster.tensor_parallel == 1


def test_a_bare_batch_beside_steps_is_the_global_batch_and_says_so(real_advisor) -> None:
    response, view, text = answered(real_advisor, "full fine-tune Llama 3.1 8B for 10k steps, batch size 64, seq len 8192")
    assert not response.questions, response.questions
    assert response.advice.effective.dataset_tokens == 10_000 * 64 * 8192
    assert response.advice.cluster.tensor_parallel == 1 and response.advice.effective.batch_size == 1
    assert "read “batch size 64” as the global batch across all GPUs" in text and "“micro-batch 64”" in text, text


def test_steps_without_a_batch_ask_for_the_batch(real_advisor) -> None:
    response, _, _ = answered(real_advisor, "full fine-tune Llama 3.1 8B for 5000 steps")
    assert any(q.startswith("5,000 steps at what global batch size") for q in response.questions), response.questions


def test_the_explicit_micro_batch_and_accumulation_stay(real_advisor) -> None:
    response, _, text = answered(real_advisor, "full fine-tune Llama 3.1 8B on 50,000 examples of 2,000 tokens, micro "
                                               "batch 4, gradient accumulation 8, on 8 A100s")
    assert response.advice.effective.batch_size == 4 and response.advice.effective.gradient_accumulation == 8
    assert response.advice.cluster.gpus == 8 and response.advice.cluster.data_parallel == 8
    assert "50,000 examples × 2,000 tokens = 100,000,000 tokens per epoch" in text

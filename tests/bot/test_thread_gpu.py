"""A GPU count changed in a thread with no GPU named is a count of the GPUs the thread picked: "how long on 32 of
them?" after a plan on 8 H100s planned 32 B200s (the catalog's best at 32), and later follow-ups keep the type. The
real catalog, parser and engine answer."""

from __future__ import annotations


def _thread(real_advisor, *texts: str):
    conversation = real_advisor.new_conversation()
    previous = None
    responses = []
    for text in texts:
        response = real_advisor.respond(conversation, text, previous)
        previous = response.advice
        responses.append(response)
    return responses


def test_a_count_of_them_keeps_the_thread_gpu(real_advisor) -> None:
    first, more, spot = _thread(real_advisor, "full fine-tune Llama 3.1 8B on 20B tokens", "how long on 32 of them?",
                                "use spot pricing")
    picked = first.advice.options[0].gpu
    assert more.advice.options[0].gpu == picked and more.advice.options[0].cluster.gpus == 32
    assert spot.advice.options[0].gpu == picked and spot.advice.options[0].cluster.gpus == 32


def test_a_gpu_named_is_not_overridden(real_advisor) -> None:
    _first, named = _thread(real_advisor, "full fine-tune Llama 3.1 8B on 20B tokens", "try 16 A100s")
    assert named.advice.options[0].gpu.startswith("a100")

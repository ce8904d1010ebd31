"""A cluster-sized GPU count with nothing saying rent or own is asked: priced as a rental it can be ten times
what the team's own cluster costs in power."""

from __future__ import annotations

from fake_resolver import FakeResolver

from parser import Conversation

RESOLVER = FakeResolver()


def _questions(*texts: str) -> tuple[Conversation, list[str]]:
    conversation = Conversation(resolver=RESOLVER)
    reading = None
    for text in texts:
        reading = conversation.turn(text)
    assert reading is not None
    return conversation, [q.text for q in reading.questions]


def test_two_thousand_gpus_with_nothing_said_are_asked_whether_they_are_owned() -> None:
    _, asked = _questions("pretrain a 70b model on 15T tokens with 2048 H100s")
    assert any(q.startswith("Are the 2,048 GPUs yours or to rent?") and "“on prem”" in q for q in asked), asked


def test_no_ownership_question_when_rent_or_own_was_said_or_the_count_is_small() -> None:
    for text in ("pretrain a 70b model on 15T tokens with 2048 H100s on AWS",
                 "pretrain a 70b model on 15T tokens with 2048 H100s at $2/hr",
                 "pretrain a 70b model on 15T tokens with 2048 H100s on spot",
                 "we have 2048 H100s on prem, pretrain a 70b model on 15T tokens",
                 "full fine-tune llama 3 8b on 2B tokens on 8 H100s"):
        _, asked = _questions(text)
        assert not any("yours or to rent" in q for q in asked), (text, asked)


def test_on_prem_answers_it() -> None:
    conversation, asked = _questions("pretrain a 70b model on 15T tokens with 2048 H100s", "on prem")
    assert conversation.workload.data_location == "onprem"
    assert not any("yours or to rent" in q for q in asked)


def test_a_cluster_given_in_nodes_is_asked_about_in_nodes() -> None:
    from engine.models import Workload
    from parser import questions_for

    asked = [q.text for q in questions_for(Workload(mode="pretrain", params_b=70, gpu="h100-sxm", nodes=40,
                                                    dataset_tokens=10**12))]
    assert any(q.startswith("Are the 40 nodes yours or to rent?") for q in asked), asked


def test_my_card_is_owned_and_a_desktop_card_named_alone_is_asked() -> None:
    """"on my 4090", "our own RTX 4090", "we have 2 3090s" were priced as RunPod rentals: they are the user's GPUs
    (costed at power). "on a 4090" could be either, and owned costs a tenth: asked, and "my own" answers it."""
    for text, count in (("serve gpt-oss-20b on my 4090", 1), ("serve gpt-oss-20b on our own RTX 4090", 1),
                        ("we have 2 3090s, qlora llama 8b on 20M tokens", 2)):
        conversation, asked = _questions(text)
        w = conversation.workload
        assert (w.data_location, w.gpu_count) == ("onprem", count), (text, w)
        assert not any("yours or to rent" in q for q in asked), asked
    conversation, asked = _questions("serve gpt-oss-20b on a 4090")
    assert conversation.workload.data_location is None
    assert any(q.startswith("Is the RTX 4090 yours or to rent? Priced as a rental until you say “my own”") for q in asked)
    conversation, asked = _questions("serve gpt-oss-20b on a 4090", "my own")
    assert conversation.workload.data_location == "onprem" and not any("yours or to rent" in q for q in asked)
    _, asked = _questions("serve gpt-oss-20b on a 4090 on runpod")
    assert not any("yours or to rent" in q for q in asked)
    _, asked = _questions("serve gpt-oss-20b on an H100")  # a datacenter card named alone is a rental question
    assert not any("yours or to rent" in q for q in asked)


def test_renting_after_my_own_goes_back_to_a_rental() -> None:
    """After "on my 4090", "what if we rent a cloud GPU?" was not understood and "ok, rent instead" changed nothing."""
    for follow_up in ("what if we rent a cloud GPU?", "ok, rent instead"):
        conversation = Conversation(resolver=RESOLVER)
        conversation.turn("QLoRA Qwen3 8B on 20M tokens on my 4090")
        assert conversation.workload.data_location == "onprem"
        turn = conversation.turn(follow_up)
        assert conversation.workload.data_location is None and turn.intent not in ("help", "gibberish"), (follow_up, turn)
    conversation = Conversation(resolver=RESOLVER)  # data said to live in S3 is not touched by "rent"
    conversation.turn("QLoRA llama 3.1 8b on 20M tokens, data in S3")
    conversation.turn("rent H100s")
    assert conversation.workload.data_location == "aws"

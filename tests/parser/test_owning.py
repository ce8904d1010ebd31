"""Local and buy-or-rent questions (parser.owning): which phrasings ask what to run a model on at home, which ask to
buy or rent GPUs, and the break-even's assumptions said in a thread."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from parser import Conversation
from parser.owning import BUY_RENT_CUE, LOCAL_CUE, owning_settings, owning_settings_said, read_owning

CATALOG = open_catalog()


@pytest.mark.parametrize("text", [
    "what GPU do I need to run Llama 3.1 8B locally?",
    "can I run Qwen2.5 32B on my 3090?",
    "what's the cheapest GPU to run Llama 3.1 70B at home?",
    "which GPU should I buy to run mixtral locally",
    "run deepseek r1 distill 14b on my laptop 4070 8GB",
    "serve phi-3-mini on my laptop",
    # "can I run X on a/two <card>", "I have two 4090s, can I run": asked "fine-tune or serve?" before (review item 19)
    "can I run Qwen2.5 32B AWQ on a 4090?",
    "can I run Llama 3.1 70B on two 3090s at 4-bit?",
    "I have two 4090s, can I run Llama 3.1 70B?",
    "can I run DeepSeek V3 on a Mac Studio with 512GB?",
    # a Mac said as where it runs: the user's own machine, not a rental to plan (review: a 1x L4 at $516 a month)
    "llama 3.1 8b inference on my macbook m3 max 64gb",
    "serve llama 3.1 8b on my 64gb macbook pro",
    "run qwen2.5 32b on my m2 ultra",
])
def test_local_questions(text: str) -> None:
    assert read_owning(text).local


@pytest.mark.parametrize("text", [
    "serve Llama 3.1 8B for 50 users",
    "deploy Llama 3.1 70B on our own cluster of 16 A100",
    "fine-tune Llama 3.1 8B on data stored locally, 1B tokens",
    "LoRA Llama 3.1 8B locally on my 4090",
    "serve gpt-oss-20b on a 4090",
    "should I buy or rent 8 H100s for continuous fine-tuning of 70B models?",
    "can I run Llama 3.1 70B on 8 H100s?",
    "I have two 4090s, can I fine-tune Llama 3.1 8B and run it?",
])
def test_not_local(text: str) -> None:
    assert not read_owning(text).local


def test_buy_or_rent_phrasings() -> None:
    assert read_owning("should we buy or rent 8 H100s?").buy_or_rent
    assert read_owning("is it cheaper to buy a DGX H100 or rent one?").buy_or_rent
    assert read_owning("is it cheaper to buy a DGX H100 or rent one?").eight_gpu_server
    assert not read_owning("serve Llama 3.1 8B for 50 users").buy_or_rent


def test_settings_said() -> None:
    assert owning_settings_said("at 50% utilisation") == {"utilisation": 0.5}
    assert owning_settings_said("power is $0.08/kWh") == {"usd_per_kwh": 0.08}
    assert owning_settings_said("8 cents per kwh over 5 years") == {"usd_per_kwh": 0.08, "years": 5.0}


@pytest.mark.parametrize("text, card", [
    ("llama 3.1 8b inference on my macbook m3 max 64 gb", ("Apple M3 Max", 64.0)),
    ("can i run deepseek v3 on a mac studio with 512 gb", ("Apple silicon", 512.0)),
    ("run llama 8b on a mac mini m4 pro with 48 gb", ("Apple M4 Pro", 48.0)),
    ("serve llama 8b on my 64 gb macbook pro", ("Apple silicon", 64.0)),
    ("run qwen2.5 32b on my m2 ultra", None),
])
def test_a_mac_and_its_memory(text: str, card: tuple[str, float] | None) -> None:
    assert read_owning(text).card == card


def test_a_laptop_card_and_its_memory() -> None:
    assert read_owning("run deepseek r1 distill 14b on my laptop 4070 8gb").card == ("RTX 4070 Laptop GPU", 8.0)


def test_a_local_question_is_inference_for_one_user() -> None:
    conversation = Conversation(resolver=CATALOG)
    turn = conversation.turn("what GPU do I need to run Llama 3.1 8B locally?")
    assert turn.workload.mode == "inference" and turn.workload.model == "llama-3.1-8b"
    assert LOCAL_CUE in conversation.cues
    assert not any(q.field in ("mode", "concurrency") for q in turn.questions), turn.questions
    laptop = Conversation(resolver=CATALOG).turn("run deepseek r1 distill 14b on my laptop 4070 8GB")
    assert laptop.workload.dataset_gb is None  # the card's memory, not training data
    mixtral = Conversation(resolver=CATALOG).turn("which GPU should I buy to run mixtral locally")
    assert mixtral.workload.model == "mixtral-8x7b" and mixtral.intent == "describe"


def test_not_local_keeps_its_reading() -> None:
    served = Conversation(resolver=CATALOG)
    served.turn("serve Llama 3.1 8B for 50 users")
    assert LOCAL_CUE not in served.cues and served.workload.concurrency == 50
    cluster = Conversation(resolver=CATALOG)
    turn = cluster.turn("deploy Llama 3.1 70B on our own cluster of 16 A100")
    assert turn.workload.gpu_count == 16 and LOCAL_CUE not in cluster.cues


def test_a_buy_or_rent_thread_takes_its_assumptions() -> None:
    conversation = Conversation(resolver=CATALOG)
    first = conversation.turn("should we buy or rent 8 H100s?")
    assert first.workload.gpu == "h100-sxm" and first.workload.gpu_count == 8 and BUY_RENT_CUE in conversation.cues
    half = conversation.turn("at 50% utilisation")
    assert half.intent == "refine" and half.workload.mfu is None  # the servers' use, not model FLOPs utilisation
    power = conversation.turn("$0.08/kWh")
    assert power.intent == "refine" and not any("electricity price" in n for n in power.notes)
    conversation.turn("over 5 years")
    assert owning_settings(conversation.cues) == {"utilisation": 0.5, "usd_per_kwh": 0.08, "years": 5.0}
    dgx = Conversation(resolver=CATALOG).turn("is it cheaper to buy a DGX H100 or rent one?")
    assert dgx.workload.gpu_count == 8


@pytest.mark.parametrize("text", [
    "I have two 4090s, can I run Llama 3.1 70B?",
    "can I run Llama 3.1 70B on two 3090s at 4-bit?",
    "can I run DeepSeek V3 on a Mac Studio with 512GB?",
])
def test_can_i_run_is_inference_without_asking(text: str) -> None:
    """"Run" on a card at home is inference: the thread never asks "fine-tune, pretrain, or serve?"."""
    turn = Conversation(resolver=CATALOG).turn(text)
    assert turn.workload.mode == "inference", turn.workload
    assert not any(q.field in ("mode", "intent") for q in turn.questions), turn.questions


def test_an_awq_checkpoint_is_sized_as_vllm_loads_it() -> None:
    from parser.owning import runtime_said

    asked = Conversation(resolver=CATALOG)
    asked.turn("can I run Qwen2.5 32B AWQ on a 4090?")
    assert runtime_said(asked.cues) == "vllm"
    assert owning_settings(asked.cues) == {}  # not read as a break-even assumption
    plain = Conversation(resolver=CATALOG)
    plain.turn("can I run Qwen2.5 32B on my 3090?")
    assert runtime_said(plain.cues) == "gguf"


@pytest.mark.parametrize(("text", "said"), [
    ("no resale", {"resale": 0.0}),
    ("ignore resale value", {"resale": 0.0}),
    ("zero residual", {"resale": 0.0}),
    ("resale 30%", {"resale": 0.3}),
    ("what if resale is 40%?", {"resale": 0.4}),
    ("with a resale value of 25%", {"resale": 0.25}),
    ("30% residual value", {"resale": 0.3}),
    ("sell them for 30% at the end", {"resale": 0.3}),
    ("resale $8k per GPU", {"resale_usd": 8000.0}),
    ("resale value $8,000 a gpu", {"resale_usd": 8000.0}),
    ("we sell 30% of the time", {"utilisation": 0.3}),  # a share of the time, not of the price
])
def test_resale_said(text: str, said: dict[str, float]) -> None:
    assert owning_settings_said(text) == said


def test_a_resale_replaces_the_resale_said_before() -> None:
    conversation = Conversation(resolver=CATALOG)
    conversation.turn("should we buy or rent 8 H100s?")
    conversation.turn("resale $10k per GPU")
    assert owning_settings(conversation.cues) == {"resale_usd": 10_000.0}
    turn = conversation.turn("no resale")
    assert owning_settings(conversation.cues) == {"resale": 0.0}
    assert turn.intent == "refine" and turn.workload.gpu_count == 8 and turn.workload.mfu is None

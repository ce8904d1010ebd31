"""Owning one GPU type does not make another owned: "we own 256 H100s" then "what if we use B200s instead?" was costed
at power only ($3,956 a run) where renting 256 B200s costs about $77k; "we own them" makes them owned again."""

from __future__ import annotations

from catalog import open_catalog
from parser import Conversation

CATALOG = open_catalog()


def test_another_gpu_in_an_owned_thread_is_rented() -> None:
    conversation = Conversation(resolver=CATALOG)
    first = conversation.turn("we own 256 H100s, pretrain a 7B model on 1T tokens")
    assert first.workload.data_location == "onprem" and first.workload.gpu == "h100-sxm"
    switched = conversation.turn("what if we use B200s instead?")
    assert switched.workload.data_location is None
    assert switched.workload.gpu == "b200" and switched.workload.gpu_count == 256
    assert any(n.startswith("priced as a rental: the GPUs you own are H100 SXM") for n in switched.notes), switched.notes
    owned = conversation.turn("we own them")
    assert owned.workload.data_location == "onprem"
    assert not any(n.startswith("own hardware: give the GPU") for n in owned.notes), owned.notes


def test_the_same_gpu_or_an_ownership_said_keeps_it_owned() -> None:
    conversation = Conversation(resolver=CATALOG)
    conversation.turn("we own 16 A100s, full fine-tune a 13B model on 2B tokens")
    more = conversation.turn("what about 3 epochs?")
    assert more.workload.data_location == "onprem"

"""A model the user named that the catalog lacks: the first message names it instead of "No model named", which was
false ("Qwen3-Next-80B-A3B" said "No model named: sized as a Qwen2.5 72B-like architecture"), and an MoE name is
sized as the MoE it states. The real catalog, parser and engine answer."""

from __future__ import annotations

from bot.summary import build_answer_view


def _view(real_advisor, text: str):
    response = real_advisor.respond(real_advisor.new_conversation(), text)
    return response, build_answer_view(response, real_advisor.display_names())


def test_a_named_unknown_dense_model_is_named_in_the_caveat(real_advisor) -> None:
    _response, view = _view(real_advisor, "serve Mycorp3-80B for 20 users")
    line = next((n for n in view.notes if "not in the catalog" in n), None)
    assert line == ("mycorp3-80b is not in the catalog: sized as a Qwen2.5 72B-like architecture; name a catalog "
                    "model for exact figures"), view.notes
    assert not [n for n in view.notes if n.startswith("No model named") or "size it as a generic" in n], view.notes


def test_an_unnamed_size_still_says_no_model_named(real_advisor) -> None:
    _response, view = _view(real_advisor, "serve a 70B model for 20 concurrent requests")
    assert any(n.startswith("No model named: sized as a Llama 3 70B-like architecture") for n in view.notes), view.notes


def test_an_unknown_moe_name_is_served_as_that_moe(real_advisor) -> None:
    response, view = _view(real_advisor, "serve mycorp-llm-480b-a35b for 20 users")
    assert response.advice.workload.model == "mycorp-llm-480b-a35b"
    assert response.advice.cluster.nodes == 1 and response.advice.cluster.gpus <= 8
    assert any(n.startswith("mycorp-llm-480b-a35b is not in the catalog: sized as an MoE of 480B total / 35B active "
                            "on Qwen3-Coder 480B-A35B Instruct (MoE)'s layer shape") for n in view.notes), view.notes


def test_a_name_then_its_sizes_keeps_the_active_suffix(real_advisor) -> None:
    """"Foo-480B-A35B" and "ERNIE-4.5-300B-A47B" were read as "foo-480b" plus a stray "a35b": a dense 480B on 10 GPUs
    over two nodes. The grammar keeps the active-parameter suffix, so they are the MoEs they name."""
    response, view = _view(real_advisor, "serve Foo-480B-A35B for 20 users")
    assert response.advice.workload.model == "foo-480b-a35b"
    assert response.advice.cluster.nodes == 1 and response.advice.cluster.gpus <= 8
    response, view = _view(real_advisor, "serve ERNIE-4.5-300B-A47B for 20 users")
    assert response.advice.workload.model == "ernie-4.5-300b-a47b"
    assert any(n.startswith("ernie-4.5-300b-a47b is not in the catalog: sized as an MoE of 300B total / 47B active")
               for n in view.notes), view.notes

"""Every message is repaired to fit Slack's limits, never rejected (tables + Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot import limits
from bot.limits import fit_message, split_text, violations


def section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def test_long_section_is_split_at_lines_with_fences_balanced() -> None:
    text = "```\n" + "\n".join(f"line {i} " + "x" * 80 for i in range(200)) + "\n```"
    chunks = split_text(text)
    assert len(chunks) > 1
    assert all(len(c) <= limits.SECTION_TEXT for c in chunks)
    assert all(c.count("```") % 2 == 0 for c in chunks)


def test_oversized_elements_are_shortened_or_split() -> None:
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": "h" * 400}},
        {"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * 2500} for _ in range(23)]},
        {"type": "actions", "elements": [{"type": "button", "action_id": f"b{i}", "value": "v",
                                          "text": {"type": "plain_text", "text": "b" * 100}} for i in range(3)]},
    ]
    [message] = fit_message(blocks, "fallback")
    assert violations(message.blocks, text=message.text) == []
    assert message.blocks[0]["text"]["text"].endswith("…")


def test_more_than_50_blocks_become_several_messages_with_buttons_last() -> None:
    blocks = [section(f"s{i}") for i in range(120)]
    blocks.append({"type": "actions", "elements": [{"type": "button", "action_id": "a", "value": "v",
                                                    "text": {"type": "plain_text", "text": "Go"}}]})
    messages = fit_message(blocks, "text")
    assert len(messages) == 3
    assert all(violations(m.blocks, text=m.text) == [] for m in messages)
    assert messages[-1].blocks[-1]["type"] == "actions"
    assert sum(len(m.blocks) for m in messages) == 121


text_st = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=7000)
block_st = st.one_of(
    st.builds(lambda t: {"type": "header", "text": {"type": "plain_text", "text": t}}, text_st),
    st.builds(section, text_st),
    st.builds(lambda fs: {"type": "section", "fields": [{"type": "mrkdwn", "text": f} for f in fs]},
              st.lists(text_st, min_size=1, max_size=25)),
    st.builds(lambda t: {"type": "context", "elements": [{"type": "mrkdwn", "text": t}]}, text_st),
    st.just({"type": "divider"}),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(block_st, min_size=1, max_size=80), text_st)
def test_fit_message_always_yields_valid_messages(blocks: list[dict], text: str) -> None:
    for message in fit_message(blocks, text):
        assert violations(message.blocks, text=message.text) == []

"""Every message is repaired to fit Slack's limits, never rejected (tables + Hypothesis)."""

from __future__ import annotations

import pytest
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



@settings(max_examples=40, deadline=None)
@given(st.lists(block_st, min_size=1, max_size=60), text_st)
def test_blocks_handed_over_are_repaired_as_a_copy_would_be(blocks: list[dict], text: str) -> None:
    """`owned=True` (blocks just parsed from a template) repairs them in place instead of on a copy: the
    same messages; without it the caller's blocks are left as they were."""
    import json

    as_json = json.dumps(blocks)
    copied = fit_message(blocks, text)
    assert json.dumps(blocks) == as_json  # not repaired in place
    owned = fit_message(json.loads(as_json), text, owned=True)
    assert [(m.blocks, m.text) for m in owned] == [(m.blocks, m.text) for m in copied]


def test_buttons_handed_over_are_repaired_as_a_copy_would_be() -> None:
    import json

    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}, "accessory": {
        "type": "static_select", "action_id": "s", "options": [
            {"text": {"type": "plain_text", "text": "o" * 90}, "value": str(i)} for i in range(120)]}},
        {"type": "actions", "elements": [{"type": "button", "action_id": f"b{i}", "value": "v",
                                          "text": {"type": "plain_text", "text": "b" * 100}} for i in range(30)]}]
    as_json = json.dumps(blocks)
    copied = fit_message(blocks, "t")
    assert json.dumps(blocks) == as_json
    assert [m.blocks for m in fit_message(json.loads(as_json), "t", owned=True)] == [m.blocks for m in copied]

# --- the checker checked: each invalid message is rejected, for the reason Slack gives -------------

def button(label: str, **extra: object) -> dict:
    return {"type": "button", "action_id": "a", "value": "v", "text": {"type": "plain_text", "text": label}, **extra}


def actions(*elements: dict) -> dict:
    return {"type": "actions", "elements": list(elements)}


def fields(n: int, length: int = 5) -> dict:
    return {"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * length} for _ in range(n)]}


def cell(text: str) -> dict:
    return {"type": "raw_text", "text": text}


def table(rows: object) -> dict:
    return {"type": "table", "rows": rows}


def select(*labels: str) -> dict:
    return {"type": "static_select", "action_id": "s", "placeholder": {"type": "plain_text", "text": "Pick"},
            "options": [{"text": {"type": "plain_text", "text": label}, "value": str(i)} for i, label in enumerate(labels)]}


INVALID = [  # (case, blocks, fallback text, what the violation must say)
    ("section text over 3000", [section("x" * 3001)], "t", "3000"),
    ("empty section text", [section("")], "t", "empty"),
    ("section without text or fields", [{"type": "section"}], "t", "text or fields"),
    ("11 fields", [fields(11)], "t", "10"),
    ("field text over 2000", [fields(1, 2001)], "t", "2000"),
    ("51 blocks", [section(str(i)) for i in range(51)], "t", "51 blocks > 50"),
    ("header over 150", [{"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}], "t", "150"),
    ("mrkdwn header", [{"type": "header", "text": {"type": "mrkdwn", "text": "*h*"}}], "t", "plain_text"),
    ("button text over 75", [actions(button("b" * 76))], "t", "75"),
    ("empty button text", [actions(button(""))], "t", "button text is empty"),
    ("button value over 2000", [actions(button("ok", value="v" * 2001))], "t", "2000"),
    ("action_id over 255", [actions(button("ok", action_id="a" * 256))], "t", "255"),
    ("26 action elements", [actions(*[button(f"b{i}", action_id=f"a{i}") for i in range(26)])], "t", "25"),
    ("empty actions", [actions()], "t", "1 element"),
    ("option text over 75", [actions(select("o" * 76))], "t", "option text"),
    ("select without options", [actions(select())], "t", "option"),
    ("11 context elements", [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11}], "t", "10"),
    ("empty context", [{"type": "context", "elements": []}], "t", "1 element"),
    ("context text over 3000", [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c" * 3001}]}], "t", "3000"),
    ("block_id over 255", [dict(section("x"), block_id="b" * 256)], "t", "255"),
    ("unknown block type", [{"type": "sektion", "text": {"type": "mrkdwn", "text": "x"}}], "t", "unknown block type"),
    ("not a block", ["just a string"], "t", "unknown block type"),
    ("text object of unknown type", [{"type": "section", "text": {"type": "markdown", "text": "x"}}], "t", "type"),
    ("image without alt_text", [{"type": "image", "image_url": "https://example.com/a.png"}], "t", "alt_text"),
    ("table without rows", [table([])], "t", "rows"),
    ("table row not a list", [table([cell("a")])], "t", "row 0"),
    ("table cell of the wrong type", [table([[{"type": "mrkdwn", "text": "a"}]])], "t", "raw_text or rich_text"),
    ("table cell without text", [table([[{"type": "raw_text"}]])], "t", "text string"),
    ("table row of 21 cells", [table([[cell("c")] * 21])], "t", "21 cells > 20"),
    ("table of 101 rows", [table([[cell("c")]] * 101)], "t", "101 table rows > 100"),
    ("empty fallback text", [section("x")], "", "empty fallback text"),
    ("blank fallback text", [section("x")], "   \n", "empty fallback text"),
    ("fallback text over 40000", [section("x")], "t" * 40_001, "40000"),
]


@pytest.mark.parametrize(("blocks", "text", "reason"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_blocks_are_rejected(blocks: list, text: str, reason: str) -> None:
    found = violations(blocks, text=text)
    assert found, "Slack rejects this message: the checker must too"
    assert any(reason in v for v in found), found


def test_blocks_that_are_not_a_list_are_rejected() -> None:
    assert violations({"type": "section"}, text="t")  # type: ignore[arg-type]


VALID = [
    ("section at exactly 3000", [section("x" * 3000)]),
    ("10 fields of 2000", [fields(10, 2000)]),
    ("50 blocks", [section(str(i)) for i in range(50)]),
    ("header at 150", [{"type": "header", "text": {"type": "plain_text", "text": "h" * 150, "emoji": True}}]),
    ("button at 75 and a select", [actions(button("b" * 75), select("10 runs/month", "o" * 75))]),
    ("25 buttons", [actions(*[button(f"b{i}", action_id=f"a{i}") for i in range(25)])]),
    ("10 context elements", [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 10}]),
    ("divider and image", [{"type": "divider"}, {"type": "image", "image_url": "https://example.com/a.png", "alt_text": "chart"}]),
    ("table 100 x 20", [table([[cell("c")] * 20] * 100)]),
    ("section with text, fields and a button", [dict(section("t"), fields=fields(2)["fields"], accessory=button("Go"))]),
]


@pytest.mark.parametrize("blocks", [c[1] for c in VALID], ids=[c[0] for c in VALID])
def test_valid_blocks_are_accepted(blocks: list) -> None:
    assert violations(blocks, text="fallback") == []


def test_view_allows_100_blocks_not_101() -> None:
    assert violations([section(str(i)) for i in range(100)], max_blocks=limits.MAX_BLOCKS_VIEW) == []
    assert violations([section(str(i)) for i in range(101)], max_blocks=limits.MAX_BLOCKS_VIEW)


def test_limits_come_from_slack_sdk_models() -> None:
    """The figures fit_blocks repairs to are slack_sdk's, so a change in Slack's models shows up here."""
    from slack_sdk.models.blocks import (
        ActionsBlock,
        Block,
        ButtonElement,
        ContextBlock,
        HeaderBlock,
        Option,
        SectionBlock,
        StaticSelectElement,
    )
    from slack_sdk.models.blocks.block_elements import InteractiveElement

    assert (limits.SECTION_TEXT, limits.FIELDS_PER_SECTION) == (SectionBlock.text_max_length, SectionBlock.fields_max_length) == (3000, 10)
    assert limits.HEADER_TEXT == HeaderBlock.text_max_length == 150
    assert limits.BUTTON_TEXT == ButtonElement.text_max_length == 75
    written_out = (limits.BUTTON_VALUE, limits.ACTION_ID, limits.BLOCK_ID, limits.ACTIONS_ELEMENTS,
                   limits.CONTEXT_ELEMENTS, limits.OPTION_TEXT, limits.OPTIONS_PER_SELECT)
    assert written_out == (ButtonElement.value_max_length, InteractiveElement.action_id_max_length,
                           Block.block_id_max_length, ActionsBlock.elements_max_length,
                           ContextBlock.elements_max_length, Option.label_max_length,
                           StaticSelectElement.options_max_length)

"""Price questions end to end: the parser's reading, the table (order, suspect spot prices, "N more"),
Slack's limits, the terminal text and `ask --json`."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.limits import violations
from bot.prices import MAX_ROWS_SHOWN, build_price_table, render_prices, render_prices_text
from bot.service import Advisor
from tests.catalog.test_price_offers import offer

NAMES = {"aws": "AWS (EC2)", "lambda": "Lambda", "h100-sxm": "H100 SXM5 80GB", "h100-pcie": "H100 PCIe 80GB"}
CONTRACT_KEYS = {"workload", "missing", "questions", "assumptions", "report"}


def test_lines_on_demand_first_then_reserved_then_spot_cheapest_first_within_each() -> None:
    offers = [offer("aws", "p5.48xlarge", "h100-sxm", 8, 55.04, spot_usd_per_hour=8.0, reserved_usd_per_hour=40.0),
              offer("lambda", "gpu_1x_h100_pcie", "h100-pcie", 1, 3.29)]
    table = build_price_table(offers, [], {"gpu": "h100-sxm"}, ("h100-sxm", "h100-pcie", "h100-nvl"), NAMES)
    kinds = [(line.provider, line.pricing, line.suspect) for line in table.lines]
    assert kinds == [("lambda", "on_demand", False), ("aws", "on_demand", False), ("aws", "reserved", False),
                     ("aws", "spot", True)]  # $8 spot < a fifth of $55.04: flagged, after the credible lines
    assert table.lines[1].usd_per_gpu_hour == pytest.approx(6.88) and table.lines[1].usd_per_instance_hour == 55.04
    assert table.title == "H100 (SXM5 80GB, PCIe 80GB) prices"  # the NVL nobody here sells is not in the title
    assert any("suspect" in note for note in table.notes)
    text = render_prices_text(table)
    assert "$/GPU-h" in text and "spot (suspect)" in text and "2026-11-01" in text


def test_a_long_table_shows_ten_rows_and_says_how_many_more_within_slacks_limits() -> None:
    offers = [offer("aws", f"inst{i:02d}", "h100-sxm", 1, 2.0 + i) for i in range(25)]
    table = build_price_table(offers, [], {"gpu": "h100-sxm", "provider": "aws"}, ("h100-sxm",), NAMES)
    assert table.shown == MAX_ROWS_SHOWN and table.more == 15
    assert "15 more, up to $26.00 per GPU-hour" in table.more_line
    messages = render_prices(table)
    for message in messages:
        assert violations(message.blocks, text=message.text) == []
    blocks = json.dumps([m.blocks for m in messages])
    assert "inst09" in blocks and "inst10" not in blocks and "15 more" in blocks


def test_a_spot_question_lists_spot_prices_only() -> None:
    offers = [offer("aws", "p5.48xlarge", "h100-sxm", 8, 55.04, spot_usd_per_hour=20.0)]
    table = build_price_table(offers, [], {"gpu": "h100-sxm", "pricing": "spot"}, ("h100-sxm",), NAMES)
    assert [line.pricing for line in table.lines] == ["spot"] and table.title.endswith("(spot)")
    assert table.answer == "H100 SXM5 80GB: $2.50 per GPU-hour on spot (interruptible), $20.00/hour for a p5.48xlarge (8 GPUs) on AWS (EC2)."
    assert "spot (interruptible)" in render_prices_text(table)


def test_the_first_line_answers_with_the_on_demand_price_per_gpu_and_per_instance() -> None:
    offers = [offer("aws", "p5.48xlarge", "h100-sxm", 8, 55.04, spot_usd_per_hour=12.69),
              offer("aws", "p5.4xlarge", "h100-sxm", 1, 6.88)]
    table = build_price_table(offers, [], {"gpu": "h100-sxm", "provider": "aws"}, ("h100-sxm",), NAMES)
    assert table.answer == ("H100 SXM5 80GB at AWS (EC2): $6.88 per GPU-hour on demand, $55.04/hour for a p5.48xlarge "
                            "(8 GPUs); p5.4xlarge (1 GPU) $6.88/hour.")  # not the $1.59 spot price
    text = render_prices_text(table).splitlines()
    assert text[0] == table.answer
    spot = next(line for line in text if "12.69" in line)
    assert "spot (interruptible)" in spot and text.index(spot) > max(i for i, t in enumerate(text) if "on-demand" in t
                                                                       and "$" in t)
    [message] = render_prices(table)
    assert violations(message.blocks, text=message.text) == []
    assert table.answer.replace("$", "") in json.dumps(message.blocks[1]).replace("$", "")


def test_nothing_to_rent_is_said_plainly() -> None:
    table = build_price_table([], [], {"gpu": "rtx-4090", "provider": "runpod"}, ("rtx-4090",),
                              {"rtx-4090": "GeForce RTX 4090 24GB", "runpod": "RunPod"})
    assert table.lines == [] and "no offer for GeForce RTX 4090 24GB at RunPod" in table.notes[0]
    for message in render_prices(table):
        assert violations(message.blocks, text=message.text) == []


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor.open()


def test_a_price_question_is_answered_from_the_catalog(advisor: Advisor) -> None:
    response = advisor.respond(advisor.new_conversation(), "how much does an H100 cost on AWS?")
    assert response.intent == "prices" and response.prices is not None and response.advice is None
    lines = response.prices.lines
    assert lines and {line.provider for line in lines} == {"aws"}
    assert {line.gpu for line in lines} <= {"h100-sxm", "h100-pcie", "h100-nvl"}
    on_demand = [line for line in lines if line.pricing == "on_demand"]
    assert lines[:len(on_demand)] == on_demand  # on-demand first, cheapest first
    assert [line.usd_per_gpu_hour for line in on_demand] == sorted(line.usd_per_gpu_hour for line in on_demand)
    assert response.prices.answer.startswith("H100 SXM5 80GB at AWS (EC2): $")
    assert "per GPU-hour on demand" in response.prices.answer and "/hour for a p5.48xlarge (8 GPUs)" in response.prices.answer
    assert "PCIe" not in response.prices.title and "NVL" not in response.prices.title  # AWS sells the SXM5 only
    for message in render_prices(response.prices):
        assert violations(message.blocks, text=message.text) == []


def test_a_price_question_in_a_thread_keeps_the_scenario(advisor: Advisor) -> None:
    conversation = advisor.new_conversation()
    first = advisor.respond(conversation, "QLoRA 70B on 1B tokens")
    asked = advisor.respond(conversation, "B200 prices", first.advice)
    assert asked.intent == "prices" and asked.advice is first.advice
    assert conversation.workload == first.workload  # type: ignore[attr-defined]
    again = advisor.respond(conversation, "what about 40 runs?", asked.advice)
    assert again.workload is not None and again.workload.runs_per_month == 40 and again.workload.mode == "qlora"


def test_ask_json_has_the_contract_keys_and_the_prices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "price of 8x H100 on AWS"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= CONTRACT_KEYS | {"prices"}
    assert data["report"] == {"memory": None, "cluster": None, "throughput": None, "tco": None}
    assert data["workload"]["gpu"] == "h100-sxm" and data["workload"]["gpu_count"] == 8
    assert data["workload"]["mode"] is None and data["workload"]["provider"] == "aws"
    assert data["workload"]["requests_per_s"] is None and "deadline_hours" in data["workload"]
    assert data["prices"] and all(p["gpus"] == 8 and p["provider"] == "aws" for p in data["prices"])
    first = data["prices"][0]
    assert set(first) >= {"provider", "instance_type", "gpu", "gpus", "pricing", "usd_per_gpu_hour",
                          "usd_per_instance_hour", "region", "observed_on", "suspect"}


def test_ask_prints_the_table_in_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "cheapest H200 per hour?"]) == 0
    out = capsys.readouterr().out
    first, second = out.splitlines()[:2]
    assert "per GPU-hour on demand" in first and "/hour for a" in first  # the answer, in one sentence
    assert "prices" in second and "$/GPU-h" in out and "$/instance-h" in out


def test_the_reading_names_the_family_so_every_variant_is_priced(advisor: Advisor) -> None:
    turn = advisor.new_conversation().turn("H100 prices")
    assert turn.intent == "prices" and turn.reading.gpu_family[0] == "h100-sxm" and len(turn.reading.gpu_family) > 1


def test_slack_thread_price_question_gets_the_table_and_no_chart(client, fake_slack) -> None:
    from tests.bot.conftest import blocks_of
    from tests.bot.test_e2e_http import SCENARIO, mention, thread_reply

    thread = "1700000001.000100"
    client.post(mention(SCENARIO))
    fake_slack.wait_for("chat.postMessage")
    client.post(thread_reply("how much is an H100 on AWS?", thread_ts=thread, ts="1700000002.000100", event_id="Ev2"))
    posts = fake_slack.wait_for("chat.postMessage", 2)
    blocks = blocks_of(posts[1])
    assert violations(blocks, text=posts[1].params["text"]) == []
    assert blocks[0]["type"] == "header" and "H100" in blocks[0]["text"]["text"] and "AWS" in blocks[0]["text"]["text"]
    assert "$/GPU-h" in json.dumps(blocks)
    client.post(thread_reply("what about 40 runs?", thread_ts=thread, ts="1700000003.000100", event_id="Ev3"))
    posts = fake_slack.wait_for("chat.postMessage", 3)
    assert "40" in json.dumps(blocks_of(posts[2]))  # the scenario survived the price question
    # charts are offered (a button), never pushed: no upload for the price table or the answers
    assert not [c for c in fake_slack.calls if c.method == "files.getUploadURLExternal"]


def test_offers_without_the_kind_asked_for_are_counted_not_called_unpriced() -> None:
    offers = [offer("aws", "p5.48xlarge", "h100-sxm", 8, 55.04, spot_usd_per_hour=20.0),
              offer("lambda", "gpu_8x_h100_sxm5", "h100-sxm", 8, 31.92),
              offer("sagemaker", "ml.p5.48xlarge", "h100-sxm", 8, None)]
    table = build_price_table(offers, [], {"gpu": "h100-sxm", "pricing": "spot"}, ("h100-sxm",), NAMES)
    assert [line.instance_type for line in table.lines] == ["p5.48xlarge"]
    assert table.unpriced == ["sagemaker ml.p5.48xlarge"]
    assert any("1 more offer(s) have no spot price" in note for note in table.notes)


@pytest.mark.parametrize(("text", "expected"), [
    ("what is the monthly cost of 4 a3-ultragpu-8g nodes?",
     "32 GPUs are 4 × a3-ultragpu-8g: $347.04/hour, about $253,339 a month around the clock (730 h)."),
    ("how much are 4 p5.48xlarge instances a month?",
     "32 GPUs are 4 × p5.48xlarge: $220.16/hour, about $160,717 a month around the clock (730 h)."),
])
def test_several_instances_are_priced_together(advisor: Advisor, text: str, expected: str) -> None:
    """"4 a3-ultragpu-8g nodes" gave one node's hourly price and "No 32-GPU instance in the catalog": the count
    asked for went unanswered."""
    response = advisor.respond(advisor.new_conversation(), text)
    assert response.prices is not None
    assert response.prices.answer.endswith(expected), response.prices.answer
    assert not any(n.startswith("No 32-GPU instance") for n in response.prices.notes)


def test_the_article_follows_how_an_instance_name_is_read(advisor: Advisor) -> None:
    response = advisor.respond(advisor.new_conversation(), "how much is an a3-ultragpu-8g on GCP?")
    assert response.prices is not None and "/hour for an a3-ultragpu-8g (8 GPUs)" in response.prices.answer


def test_a_reserved_question_with_no_reserved_price_gives_the_plans_estimate() -> None:
    """'monthly cost of 2 p5en.48xlarge on AWS, reserved 1 year' said the catalog had no H200 offer at AWS: the
    p5en is listed on demand, only no reserved rate is published. It is priced reserved as every plan prices it
    (on-demand -30%, said to be an estimate), beside its on-demand figure."""
    offers = [offer("aws", "p5en.48xlarge", "h200-sxm", 8, 63.30, spot_usd_per_hour=16.56)]
    names = {"aws": "AWS (EC2)", "h200-sxm": "H200 SXM 141GB"}
    query = {"gpu": "h200-sxm", "provider": "aws", "pricing": "reserved", "gpu_count": 16, "instance_type": "p5en.48xlarge"}
    table = build_price_table(offers, ["gpus_per_node"], query, ("h200-sxm",), names)
    assert ("reserved (estimated as the plans price it: on-demand $7.91 -30%, no published commitment price)"
            in table.answer), table.answer
    assert "about $64,693 a month" in table.answer  # 2 x $63.30 x 0.7 x 730 h
    assert "on demand from $7.91 at AWS (EC2), about $92,418 a month for 16 GPUs" in table.answer
    assert [(line.pricing, line.estimated) for line in table.lines] == [("reserved", True)]
    assert "reserved (est.)" in render_prices_text(table)
    assert not any("no offer" in n for n in table.notes), table.notes


def test_a_provider_without_the_gpu_is_never_the_title_or_the_answer() -> None:
    """'H200 price on Lambda' with no Lambda H200 in the catalog led with 'H200 SXM 141GB at Vast.ai' under the title
    'H200 SXM 141GB prices at Lambda': it now says first that Lambda has none, and titles the table as the others'."""
    offers = [offer("vast", "8x-H200", "h200-sxm", 8, 20.71), offer("nebius", "gpu-h200-8", "h200-sxm", 8, 28.0)]
    names = {"vast": "Vast.ai (marketplace)", "nebius": "Nebius AI Cloud", "lambda": "Lambda", "h200-sxm": "H200 SXM 141GB"}
    table = build_price_table(offers, ["provider"], {"gpu": "h200-sxm", "provider": "lambda"}, ("h200-sxm",), names)
    assert table.answer.startswith("The catalog has no Lambda offer for H200 SXM 141GB; elsewhere: from $2.59 per "
                                   "GPU-hour on demand"), table.answer
    assert "on Vast.ai (marketplace)" in table.answer
    assert table.title == "H200 SXM 141GB prices (no Lambda offer in the catalog)", table.title
    assert "at Lambda" not in table.title and not any(n.startswith("The catalog has no Lambda") for n in table.notes)

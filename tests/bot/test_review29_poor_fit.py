"""Answers a senior ML infra engineer would not forward (review 29), asked through the real parser and engine:
"pretrain 1B on 100B tokens on 8 A10G" answered $23,347 and 59.7 days with no word that 8 H100s do it in about two
days for under $1k, or that AWS itself rents a node that does it for several times less: the poor-fit note was
checked from two nodes up only."""

from __future__ import annotations

import re

from tests.bot.answers import answered

A10G_Q = "pretrain 1B on 100B tokens on 8 A10G"


def test_a_node_of_a_poor_fit_gpu_is_called_one_with_the_same_cloud_s_option(real_advisor) -> None:
    response, view, text = answered(real_advisor, A10G_Q)
    advice = response.advice
    assert advice.cluster.gpu == "a10g" and advice.cluster.gpus == 8 and advice.cluster.nodes == 1
    assert text.splitlines()[0].startswith("⚠️ Fits, but a poor fit for this GPU: pre-training 1B on 8× A10G"), text
    [note] = [n for n in view.notes if n.startswith("Poor fit: ")]
    assert "A10G 24GB (AWS) takes 1,432 h (59.7 days) a run on 8 GPUs here" in note, note
    # the catalog's pick on 8 GPUs, its time and cost, and how many times cheaper
    cheapest = re.search(r"here; (.+?) does it in ([\d.]+) h for (\d+)x less \(\$23,347 against \$([\d,]+) a run\)", note)
    assert cheapest is not None, note
    assert " 8x " in cheapest.group(1) and float(cheapest.group(2)) < 72 and int(cheapest.group(3)) >= 10
    assert int(cheapest.group(4).replace(",", "")) < 2_000
    # the A10G is rented on AWS alone: the cheaper AWS node is named too, with its figures
    aws = re.search(r"; on AWS, AWS \(EC2\) 8x (.+?) does it in ([\d.]+) h for (\d+)x less \(\$([\d,]+) a run\)", note)
    assert aws is not None and float(aws.group(2)) < 72 and int(aws.group(4).replace(",", "")) < 5_000, note
    assert re.search(r"reply “try \w+ on AWS” or “try \w+” to plan on it$", note), note


def test_a_node_of_a_sound_gpu_is_not_called_a_poor_fit(real_advisor) -> None:
    response, view, text = answered(real_advisor, "pretrain 1B on 100B tokens on 8 H100")
    assert not any(n.startswith("poor fit: ") for n in response.advice.notes)
    assert text.startswith("✅ Fits")

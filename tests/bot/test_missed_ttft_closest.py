"""A time to first token no plan meets: "serve Llama 3.3 70B, 128k context RAG, 10 users, TTFT < 5 s" picked 40 MI300X
at 28 s for $69,788, "closest to the targets, which no option meets", because options that miss were ranked by cost.
Now the closest in the measure asked (got/wanted: 5.7 s against 5 s on TP8 B200s) leads, cost breaking near-ties; each
group is sized so its queue adds no more than 10% to the prefill where the prefill alone misses (a TP8 replica with
2 users each was 15.9 s at p95); and the answer says what would meet the target (shorter prompts, prefix caching).
Since tensor parallel goes across the trays of a GB200 NVL72's NVLink domain, TP8 on GB200 (2.5 PF dense BF16 a GPU,
against HGX B200's 2.25) is the closest: 5.16 s, further than the near-tie band from B200's 5.73 s."""

from __future__ import annotations

import re

from engine.serving import MISS_TIE, miss_factor
from tests.bot.answers import answered

RAG = "serve Llama 3.3 70B, 128k context RAG, 10 users, TTFT < 5 s"


def test_the_pick_is_the_closest_to_the_ttft_asked(real_advisor) -> None:
    response, _view, text = answered(real_advisor, RAG)
    advice = response.advice
    [ttft] = [t for t in advice.throughput.targets if t.name == "target_ttft_s"]
    assert not ttft.met and ttft.got < 5.5  # 5.2 s, was 28.2 s on 40 MI300X (5.7 s on B200 while GB200 stopped at TP4)
    picked = advice.options[0]
    assert picked.gpu == "gb200" and picked.cluster.tensor_parallel == 8
    assert "across 2 trays of one 72-GPU NVLink domain" in picked.cluster.parallelism
    # no listed option is closer than the pick by more than the near-tie band
    offs = [miss_factor([(t.name, t.wanted, t.got) for t in o.throughput.targets if not t.met]) for o in advice.options]
    assert offs[0] <= min(offs) * (1 + MISS_TIE)
    why = " ".join(advice.recommendation.why)
    assert "time to first token 5.16 s against 5 s" in why and "the cheapest, " in why and "is further off" in why
    assert "first token in 5.2 s" in text


def test_the_answer_says_what_would_meet_the_ttft(real_advisor) -> None:
    _response, _view, text = answered(real_advisor, RAG)
    line = next(line for line in text.splitlines() if line.startswith("Note: Time to first token:"))
    found = re.search(r"prompts under about ([\d,]+) tokens there, or (\d+)% of each prompt served from the prefix cache",
                      line)
    assert found is not None, line
    assert 100_000 <= int(found.group(1).replace(",", "")) < 130_816
    assert 10 <= int(found.group(2)) <= 60


def test_the_prefix_cache_share_said_meets_the_target(real_advisor) -> None:
    _response, _view, text = answered(real_advisor, RAG)
    share = re.search(r"say “(\d+)% prefix cache hits”", text)
    assert share is not None
    again, _view, _text = answered(real_advisor, f"{RAG}, {share.group(1)}% prefix cache hits")
    [ttft] = [t for t in again.advice.throughput.targets if t.name == "target_ttft_s"]
    assert ttft.met, ttft


def test_on_gpus_fixed_the_prompt_length_is_said_for_their_widest_group(real_advisor) -> None:
    """8 B200s fixed are planned as 8 one-GPU replicas (less queueing), where each prompt takes 46 s: the length that
    meets the target is said for them as one TP8 group (5.7 s), not for one GPU (35k tokens)."""
    _response, _view, text = answered(real_advisor, f"{RAG}, on 8x B200")
    line = next(line for line in text.splitlines() if line.startswith("Note: Time to first token:"))
    assert "on 8 B200 180GB (HGX) (TP 8) it takes 5.7 s" in line and "121,000 tokens" in line

"""In-process costs of the pure core, reusing the parser and engine owners' benchmark functions:
parse time per message (benchmarks/bench_parser.py), engine time per workload and ranking of the
real and of a 5,000-offer synthetic catalog (benchmarks/bench_engine.py), and one whole turn as
the bot runs it (`Advisor.respond` + rendering), which is what the end-to-end latency is made of.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks import bench_engine, bench_parser
from benchmarks.bench_e2e import MESSAGES


@dataclass
class Timing:
    what: str
    detail: str
    median_ms: float
    best_ms: float
    n: int


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    fn()  # warm-up: first calls fill caches (lark, pydantic) that a running server has already filled
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1e3)
    return statistics.median(samples), min(samples)


def parse_timings(repeat: int) -> list[Timing]:
    """`parse` per typical message, with the parser's fake resolver (bench_parser's own setup) and
    with the real catalog answering name look-ups (what the bot does)."""
    from catalog import open_catalog
    from parser import parse

    fake = bench_parser.FakeResolver()
    real = open_catalog()
    out = []
    for text in bench_parser.TYPICAL:
        med = bench_parser.median_ms(text, fake, repeat=repeat)
        out.append(Timing("parse (fake resolver)", text[:60], med, med, repeat))
    for text in bench_parser.TYPICAL:
        med, best = _time(lambda: parse(text, real), repeat)  # noqa: B023
        out.append(Timing("parse (real catalog)", text[:60], med, best, repeat))
    return out


def engine_timings(repeat: int, synthetic_repeat: int) -> list[Timing]:
    """`advise` per workload (the typical messages, parsed) and `rank` over the real catalog and
    over bench_engine's 5,000-offer synthetic catalog."""
    from catalog import open_catalog
    from engine.advise import advise
    from engine.architecture import architecture_for
    from engine.recommend import rank
    from parser import Conversation

    catalog = open_catalog()
    real = catalog.data()
    out = []
    workloads: dict[str, Any] = dict(bench_engine.WORKLOADS)
    for text in MESSAGES:
        workloads.setdefault(text[:60], Conversation(resolver=catalog).turn(text).workload)
    # a new question each time: the planner's per-workload caches are cleared before every sample and the
    # figure is CPU time (bench_engine.timeit), as the target is stated; a follow-up in a thread is faster
    for name, w in workloads.items():
        med, best = bench_engine.timeit(lambda: advise(w, real), repeat)  # noqa: B023
        out.append(Timing("advise (real catalog, CPU, caches cold)", name, med, best, repeat))
    synthetic = bench_engine.synthetic_catalog(5_000)
    for label, data, n in (("real", real, repeat), ("synthetic", synthetic, synthetic_repeat)):
        for name, w in bench_engine.WORKLOADS.items():
            effective = advise(w, data).effective
            arch = architecture_for(data.model(w.model or ""), effective.params_b)
            med, best = bench_engine.timeit(lambda: rank(effective, arch, data), n)  # noqa: B023
            out.append(Timing(f"rank, {label} catalog ({len(data.offers)} offers, CPU, caches cold)", name, med, best, n))
    return out


def turn_timings(repeat: int) -> list[Timing]:
    """One Slack turn in process: parse in the thread's context, engine, diff, render Block Kit."""
    from bot.render import render_response
    from bot.service import Advisor

    advisor = Advisor.open()
    names = advisor.display_names()
    out = []

    def first_turn(text: str) -> None:
        render_response(advisor.respond(advisor.new_conversation(), text), names)

    for text in MESSAGES:
        med, best = _time(lambda: first_turn(text), repeat)  # noqa: B023
        out.append(Timing("Advisor.respond + render", text[:60], med, best, repeat))
    conversation = advisor.new_conversation()
    first = advisor.respond(conversation, MESSAGES[0])
    state = conversation.to_dict()

    def follow_up() -> None:
        again = advisor.load_conversation(state)
        render_response(advisor.respond(again, "what about 40 runs?", first.advice), names)

    med, best = _time(follow_up, repeat)
    out.append(Timing("Advisor.respond + render", "follow-up 'what about 40 runs?' (diff)", med, best, repeat))
    return out

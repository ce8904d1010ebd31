"""Think time: the pause between a chat user's turns, from the end of one reply to the next prompt.

Why: "N users" was read as N sessions each sending its next prompt the moment the last reply ended (a closed loop
with no pause, as NVIDIA NIM's "25 in flight" benchmark that calibrates `engine.throughput.loaded_step` runs). People
in a chat or RAG app read the reply and type the next question, so each user's prompts arrive every
prefill + reply + pause seconds, not every prefill + reply: with 130k-token RAG prompts on Llama 3.3 70B a user's
5 s prefill came back every ~7 s and took most of a TP8 group each. The pause only thins the prefill arrivals
(`loaded_step`, `engine.queueing.prefill_share`): the decode batch is still sized for all N users generating at once
(the peak a plan must hold), so a pause never needs more GPUs than no pause.

The default, DEFAULT_THINK_TIME_S = 20 s, is conservative: a 256-token reply is ~190 words, ~45 s to read at 250
words a minute, plus the time to type the next question. Load-testing tools model a user the same way, as a wait
between one user's requests (Locust's `wait_time` on a User class, k6's `sleep()` in a virtual user's iteration).

No pause where nobody reads between turns: an agent or coding assistant's loop (`agentic`: each call follows the
last tool result), a request rate ("20 requests/s": open arrivals, already the load), an offline or batch job, and
wordings that say requests are kept in flight ("32 concurrent requests", "no pause", "back to back", "closed loop",
"in flight", the serving benchmark convention), which the parser reads as `think_time_s` 0.
"""

from __future__ import annotations

from engine.models import Workload

# a 256-token reply (~190 words) takes ~45 s to read at 250 words a minute, then the next question is typed: 20 s
# between a reply's last token and the next prompt errs towards more load (more GPUs), never less
DEFAULT_THINK_TIME_S = 20.0


def users_pause(w: Workload) -> bool:
    """Whether `w`'s load is chat users who pause between turns: several users at once (`concurrency` >= 2) on a
    service that is neither sized by a request rate (open arrivals) nor run offline."""
    return bool(w.concurrency and w.concurrency > 1 and not w.requests_per_s and not w.load_tokens_per_s
                and not w.batch_items and not w.offline and w.mode in (None, "inference"))


def think_time_s(w: Workload) -> float:
    """Seconds between one user's reply and their next prompt: the pause said (`think_time_s`, 0 for "no pause" and
    "N concurrent requests"), else DEFAULT_THINK_TIME_S for chat users, 0 for an agent's loop, a request rate, an
    offline job or a single stream (module docstring)."""
    if not users_pause(w):
        return 0.0
    if w.think_time_s is not None:
        return max(0.0, float(w.think_time_s))
    return 0.0 if w.agentic else DEFAULT_THINK_TIME_S


def think_time_assumed(w: Workload) -> bool:
    """The default pause applies and was not said: an assumption the answer states ("users pause ~20 s between
    turns")."""
    return w.think_time_s is None and think_time_s(w) > 0


# why the default pause is assumed, as the assumptions list it (`{pause}` seconds, `{users}` users)
THINK_TIME_WHY = ("chat users read each reply and type the next question: each user's prompts are sized to arrive "
                  "every turn + {pause:g} s (its prefill, its reply, then the pause), not back to back; the plan still "
                  "holds all {users:,} generating at once (the peak). Say e.g. “users pause 60 s between questions”, "
                  "or “no pause” for requests kept in flight as a benchmark runs them")

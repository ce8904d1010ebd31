"""What a fixed set of GPUs serves, asked the other way round ("how many requests per second can one H100
handle?"): the request rate the users held at the speed floor sustain.

Why a formula of its own: a served load is usually given and the GPUs sized for it; a capacity question gives
the GPUs and asks for the load. The users the GPUs hold at the speed floor come from the serving plan; each of
them is busy for one request at a time (its prefill, then its reply at the per-user speed), so the rate is
Little's law: concurrency / time per request.
"""

from __future__ import annotations

from engine.models import Figure, Workload
from engine.throughput import request_shape


def requests_per_s_held(w: Workload, users: int, tokens_per_s_per_user: float, first_token_s: float) -> Figure | None:
    """Requests per second that `users` concurrent streams complete, each reply of the workload's (or the default)
    length generated at `tokens_per_s_per_user` after `first_token_s`; None when the speed is unknown."""
    if users <= 0 or tokens_per_s_per_user <= 0:
        return None
    _, reply = request_shape(w)
    seconds = max(0.0, first_token_s) + reply / tokens_per_s_per_user
    said = w.output_tokens is not None
    return Figure(
        value=users / seconds, unit="requests/s",
        formula="users held / (first-token time + reply tokens / tokens per second per user) (Little's law)",
        inputs={"users": users, "reply_tokens": reply, "tokens_per_s_per_user": round(tokens_per_s_per_user, 2),
                "first_token_s": round(first_token_s, 3)},
        notes=() if said else (f"replies of {reply:,} tokens assumed; say the reply length to change it",),
    )

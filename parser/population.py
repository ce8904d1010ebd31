"""A headcount a service is for, read as people rather than as streams generating at once.

"300 employees", "a team of 40 engineers", "500 seats", "our 2,000 users", "2,000 users signed up" say who may use
the service, not how many wait on a reply at the same moment. Sized as all of them at once, "2,000 users signed up"
bought 52 MI300X ($90.7k a month) where a busy hour keeps ~100 generating. So a headcount sets `population`, and
`concurrency` is the share of it generating at once at the busy hour (engine.models.STAFF_ACTIVE_SHARE for staff and
an organisation's users, SIGNUP_ACTIVE_SHARE for sign-ups), said in a note and changeable ("60 at once"); the answer
shows all of them at once as the upper bound. "N concurrent", "N at once", "N users at the same time", "N
simultaneous users" stay concurrency, and so does a bare "for 100 users" (the panel's and most users' shorthand for
users at once, said as such in a note). A rate or a daily-users count said beside the headcount sizes the service
instead: the people are its audience (parser.amounts._users_behind_a_rate), as users counted by the day are traffic
(parser.asides).

Sign-ups and an organisation's "users" are read on the text (the grammar drops "registered", "signed up"), staff
nouns on the grammar's phrases (parser.amounts._people_as_users); both share the wording here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from engine.models import SIGNUP_ACTIVE_SHARE, STAFF_ACTIVE_SHARE

from .quantities import _qty

POPULATION_CUE = "population"
# below this a headcount is sized all at once: a few streams cost little, and 10% of 5 people is no one
POPULATION_FROM = 10

_COUNT = r"\d+(?:\.\d+)?[kmb]?"
_WHO = r"(?:users?|accounts?|customers?|members?)"
_SIGNED = r"(?:signed[- ]?up|registered|subscribed)"
# "2000 users signed up", "2k signed-up users", "2,000 registered users", "5k sign-ups", "a user base of 2000"
_SIGNUPS = re.compile(
    r"(?<![\w.])(" + _COUNT + r") (?:" + _SIGNED + r" " + _WHO + r"|" + _WHO + r" (?:have |who (?:have )?)?" + _SIGNED
    + r"(?: up)?|sign[- ]?ups?|registrations?)\b"
    r"|\b(?:a |our )?(?:user|customer) ?base of (?:about |around |~ ?)?(" + _COUNT + r")\b")
_NOT_AT_ONCE = r"(?! (?:at once|at a time|at the same time|concurren\w*|simultaneously))"
_ORG = r"(?:company|org|organi[sz]ation|firm|business|startup|team|group|department|dept|lab|agency|practice|office)"
# an organisation's users: "our 500 users", "500 internal users", "500 users in our company", "we have 500 users";
# its size: "our 1200-person company", "a 300-person org", "100 people in the company", "a company of 300 people"
_ORG_USERS = re.compile(
    r"\bour (" + _COUNT + r") (?:internal )?users\b" + _NOT_AT_ONCE
    + r"|(?<![\w.])(" + _COUNT + r") internal users\b"
    r"|(?<![\w.])(" + _COUNT + r") (?:users|people|persons|employees|staff|folks) (?:in|across|at|of) (?:our|the|my) "
    + _ORG + r"\b" + _NOT_AT_ONCE
    + r"|\bwe have (" + _COUNT + r") users\b" + _NOT_AT_ONCE
    + r"|(?<![\w.])(" + _COUNT + r") ?-? ?(?:person|people|employee|staff|seat|user)s? " + _ORG + r"\b" + _NOT_AT_ONCE
    + r"|\b" + _ORG + r" of (?:about |around |roughly |~ ?)?(" + _COUNT + r")(?: (?:people|persons|employees|staff))?\b"
    + _NOT_AT_ONCE + r"(?! (?:users|gpus?|nodes?|servers?|machines?|cards?|replicas|tokens?|k?b\b))"
    r"|\bheadcount (?:of |is )?(?:about |around |roughly |~ ?)?(" + _COUNT + r")\b")


def active_at_once(people: int, share: float) -> int:
    """The people of a headcount generating at once at the busy hour: the share, rounded up, at least one."""
    return max(1, math.ceil(people * share - 1e-9))


def population_note(said: str, people: int, share: float) -> str:
    """How a headcount was read: the share at once, how to change it, where the all-at-once figure is."""
    at_once = active_at_once(people, share)
    return (f"read “{said}” as {people:,} people, not {people:,} at once: sized for {share:.0%} of them generating at "
            f"once at the busy hour, {at_once:,} (say e.g. “{active_at_once(people, 2 * share):,} at once” to change it; "
            f"all {people:,} at once is the upper bound)")


def population_values(people: int, share: float) -> dict[str, Any]:
    """The workload fields a headcount sets."""
    return {"population": people, "concurrency": active_at_once(people, share)}


def take_population(text: str, defaults: dict[str, Any]) -> tuple[str, tuple[str, str] | None]:
    """Sign-ups and an organisation's users in the normalized text: taken out, with the population and the share at
    once set in `defaults` (fields nothing else in the message says); the text left, and the phrase with how it was
    read."""
    for pattern, share in ((_SIGNUPS, SIGNUP_ACTIVE_SHARE), (_ORG_USERS, STAFF_ACTIVE_SHARE)):
        found = pattern.search(text)
        if found is None:
            continue
        people = _qty(next(g for g in found.groups() if g))
        if people != int(people) or people < POPULATION_FROM:
            continue
        said = found.group(0).strip()
        defaults.update(population_values(int(people), share))
        return f"{text[:found.start()]} , {text[found.end():]}", (said, population_note(said, int(people), share))
    return text, None


def audience_note(said: str, people: int) -> str:
    """A headcount beside a rate: the rate sizes the service, the people are who send it."""
    return (f"read “{said}” as the audience behind the rate, not {people:,} generating at once (a rate and replies of a "
            f"few seconds keep far fewer in flight); say “{people:,} concurrent users” to hold that many at once")

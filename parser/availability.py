"""Availability asked of a service: "99.9% uptime", "across 2 regions", "HA", "N+1". Each means at least two
replicas (one per region or zone when those are counted), so one can fail or be updated while the rest serve; a
single replica sized for the load has no failover, whatever its cost."""

from __future__ import annotations

import math
import re
from typing import Any

_COUNTS = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6}
_SITES = r"(?:regions|zones|availability zones|azs|data ?cent(?:er|re)s|sites|clouds)"
_SPREAD = re.compile(rf"\b(?:across|in|over|between|spread over)\s+(two|three|four|[2-6])\s+{_SITES}\b"
                     rf"|\b(two|three|four|[2-6])[- ](?:region|zone|az)\b", re.IGNORECASE)
_MULTI = re.compile(r"\bmulti[- ]?(?:region|az|zone|datacenter|data center)\b", re.IGNORECASE)
_AVAILABLE = re.compile(r"\b99\.9\d* ?%(?= ?(?:uptime|availability|available|sla|slo)\b)|\b(?:uptime|availability|sla|slo)"
                        r"(?: of| target of)? 99\.9\d* ?%|\bhigh[- ]availability\b|\bhighly available\b|\bredundan(?:t|cy)\b"
                        r"|\bfail-?over\b|\bn ?\+ ?1\b|\bno single point of failure\b|\bzero[- ]downtime\b", re.IGNORECASE)
_DATA = re.compile(r"\b(?:data|dataset|corpus|bucket|buckets|s3|gcs|blob|storage|checkpoints?)\b", re.IGNORECASE)
# "HA" in capitals, for text read as written (a message reaches the reader normalised: parser.normalize spells a
# capital "HA" out as "high availability" before lowercasing), or after a word that makes it a requirement
_HA = re.compile(r"(?<![\w-])HA(?![\w-])")
_SITE = r"(?:az|availability zone|zone|region|datacenter|data center|data centre|node|machine|host|server|gpu|replica)"
_HA_SAID = re.compile(r"\b(?:with|need|needs|want|wants|require|requires|must be|be|for|in an?|an?|full|proper) ha\b"
                      r"|\bha (?:setup|deployment|pair|cluster|mode|config|configuration|requirement)\b"
                      r"|\bsurviv\w* (?:a |one |any )?(?:node|gpu|machine|server|host|instance|zone|az|region|datacenter|"
                      r"data center)s? (?:failure|failing|outage|loss|going down)\b|\b(?:node|machine|host|zone) failures?\b"
                      # "need to survive losing an AZ", "tolerate the loss of a zone", "if an AZ goes down"
                      rf"|\b(?:surviv\w*|tolerat\w*|withstand\w*|handl\w*|ride out|ok with|fine with) (?:the )?(?:losing|"
                      rf"loss of|lose|failure of|outage of) (?:a |an |one |any |a single )?{_SITE}\b"
                      rf"|\b(?:if|when|in case) (?:a |an |one )?{_SITE} (?:goes down|go down|fails|dies|is lost|outage)\b"
                      rf"|\b(?:az|availability zone|zone) (?:failures?|outages?|loss|redundancy|failover)\b",
                      re.IGNORECASE)
# what a zonal failover is asked to keep: "at full capacity", "without losing capacity", "with no degradation"
_FULL_CAPACITY = re.compile(r"\b(?:at|with|keep(?:ing)?|on|retain(?:ing)?) (?:the )?full (?:capacity|load|throughput|"
                            r"speed)\b|\bwithout (?:losing|any loss of|a drop in|degrad\w*)(?: (?:capacity|throughput|"
                            r"speed|performance))?\b|\bno (?:loss of capacity|degradation|capacity loss)\b", re.IGNORECASE)


_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10}
# "with 3 replicas", "3 pods", "at least 4 copies of the model": a replica count said outright (k8s Deployments are
# sized so), with or without "HA"; "instances" is left out (a cloud instance is a machine, not a model copy)
_REPLICAS = re.compile(r"\b(?:at least |min(?:imum)?(?: of)? )?(two|three|four|five|six|eight|ten|[2-9]|[1-9]\d)"
                       r"\s+(?:replicas|pods|(?:model )?copies(?: of the model)?)\b", re.IGNORECASE)


def availability(text: str) -> tuple[int, str] | None:
    """(replicas at least, the note that says how it was read), or None when no availability was asked.
    A replica count said outright ("3 replicas for HA") is kept as said: HA alone means two."""
    counted = _REPLICAS.search(text or "")
    if counted:
        word = counted.group(1).lower()
        count = _WORDS.get(word) or int(word)
        said = counted.group(0)
        return count, (f"read “{said}” as at least {count} replicas, each on its own machine, the users spread over "
                       f"them: with one down the other {count - 1} serve {(count - 1) / count:.0%} of the load; for "
                       "failover at full capacity, ask for the users times the replicas")
    spread = _SPREAD.search(text or "")
    if spread and _DATA.search((text or "")[max(0, spread.start() - 24):spread.start()]):
        spread = None  # "data in 2 regions of S3": where the data is kept, not where the service runs
    if spread:
        count = _COUNTS[(spread.group(1) or spread.group(2)).lower()]
        said = spread.group(0)
    elif _MULTI.search(text or ""):
        count, said = 2, _MULTI.search(text or "").group(0)  # type: ignore[union-attr]
    else:
        found = _AVAILABLE.search(text or "") or _HA.search(text or "") or _HA_SAID.search(text or "")
        if not found:
            return None
        count, said = 2, found.group(0)
    said = re.sub(r"\b(ha|az)(s?)\b", lambda m: m.group(1).upper() + m.group(2), said)
    lowered = said.lower()
    where = ("one per region" if "region" in lowered or "multi" in lowered else
             "one per zone, on a provider with zones" if re.search(r"\b(?:az|zone)", lowered) else "one per zone or host")
    tail = ("" if full_capacity_said(text) else
            ", at reduced capacity; for failover at full capacity, ask for the users times the replicas (“double the users”)")
    return count, (f"read “{said}” as at least {count} replicas ({where}, each on its own machine), the users spread "
                   f"over them: one can fail or be updated while the others serve{tail}")


_NO_MARGIN = re.compile(r"\bno (?:speed )?margin\b|\bwithout (?:a |any |the )?(?:speed )?margin\b|\bno headroom\b"
                        r"|\b(?:zero|0 ?%) margin\b|\bsize (?:it )?(?:to|for) (?:the target|\d+ ?tokens/s) exactly\b",
                        re.IGNORECASE)


def no_margin(text: str) -> bool:
    """'no margin': size a service to the per-user speed asked exactly, not with the engine's margin over it."""
    return bool(_NO_MARGIN.search(text or ""))


def full_capacity_said(text: str | None) -> bool:
    """"at full capacity", "without degradation": a failover that keeps the whole load."""
    return bool(_FULL_CAPACITY.search(text or ""))


def full_capacity(text: str, replicas: int, updates: dict[str, Any]) -> str | None:
    """"survive losing an AZ at full capacity": each replica left must carry the whole load, so the load sized is the
    load said times replicas / (replicas - 1) (2 zones: twice the users), spread over the replicas. The load said is
    updated in `updates`; the note that says so, or None when no full capacity was asked (or no load is said yet)."""
    found = _FULL_CAPACITY.search(text or "")
    if found is None or replicas < 2:
        return None
    factor = replicas / (replicas - 1)
    for name, what in (("concurrency", "users at once"), ("requests_per_s", "requests/s"),
                       ("load_tokens_per_s", "tokens/s of load")):
        value = updates.get(name)
        if not value:
            continue
        sized = math.ceil(value * factor - 1e-9) if name == "concurrency" else value * factor
        updates[name] = sized
        return (f"read “{found.group(0)}” as full capacity through a failure: with one of the {replicas} replicas down "
                f"the rest carry all {value:,g} {what}, so {sized:,g} are sized across the {replicas} (x{factor:.2g})")
    return None

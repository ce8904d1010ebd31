"""The network between a training cluster's nodes as said ("100GbE between nodes", "no infiniband", "25 Gbps
networking", "ethernet only", "2x200G RoCE per node", "8x400G IB"), and "we only have / we've got / our 4 nodes of
8xH100" as the team's own GPUs.

Why its own module: read from the message's words after the grammar, as a pause between turns is. "Full finetune
llama 3.1 70b on 4 nodes of 8xH100 but we only have 100GbE between nodes, no infiniband" was planned and priced as a
Nebius rental with 8x400G InfiniBand: both facts dropped. The network sets `inter_node_gbps` (per node) and
`inter_node_link` (engine.network times the traffic between nodes on it); "no infiniband" or "ethernet only" with no
rate is Ethernet at the common 100 Gb/s, said as assumed by the engine. A GPU count with "we (only) have", "we've got",
"our" is theirs (`data_location` "onprem", costed at their power, as "we own 64 H100s" already is), unless a provider
or a price is named. Alone in a training thread ("we only have 100GbE") it refines the plan.
"""

from __future__ import annotations

import re
from typing import Any

from engine.models import TRAINING_MODES

from .reading import Reading

_NUM = r"(\d+(?:\.\d+)?)"
# "2x200g", "8 x 400g", "4 x 100 gbps": ports per node times each port's rate
_PORTS = r"(?:(\d{1,2}) ?(?:x|×|\*) ?)?"
_RATE = r" ?(?:gbe|gige|gig|g(?:b|bit)?(?:ps|/s|it/s)?|gigabit(?:s)?(?: per second)?)"
_KIND = r"(?P<kind>ethernet|roce(?: ?v2)?|infiniband|ib|rdma|networking|network|nics?|links?|interconnect|fabric|connectivity)"
# a rate with what it is, or a rate said "between nodes"
_SAID = re.compile(
    rf"\b{_PORTS}{_NUM}{_RATE}\b(?P<per> per (?:gpu|card|accelerator)\b)?(?: (?:of |per node |each |per server )?"
    rf"{_KIND}\b| (?:\w+ ){{0,2}}?between (?:the )?(?:nodes|servers|machines|boxes|hosts))?"
    rf"(?P<per2>(?: [\w ]{{0,12}}?)? per (?:gpu|card|accelerator)\b)?")
_NO_IB = re.compile(r"\b(?:no|without|not|don't have|do not have|lack|lacking)(?: any)? (?:infiniband|ib|rdma)\b"
                    r"|\b(?:ethernet|tcp) only\b|\bonly (?:have )?(?:plain |regular |standard )?(?:ethernet|tcp)\b"
                    r"|\b(?:just|plain|regular|standard|commodity) ethernet\b|\bover (?:plain )?(?:ethernet|tcp)\b")
_IB = re.compile(r"\b(?:infiniband|ib|ndr|hdr|xdr)\b")
_ROCE = re.compile(r"\broce\b")
_GENERATIONS = {"hdr": 200.0, "ndr": 400.0, "xdr": 800.0}
# the team's own GPUs: "we only have", "we've got", "our 4 nodes", said of hardware or of its network
_OURS = re.compile(
    r"\b(?:we|i)(?: only| just| already| currently| do)? (?:have|own|'ve got|have got|got)(?: access to)?\b"
    r"(?P<what>[\w ./-]{0,40}?)\b(?:nodes?|servers?|boxes|machines|gpus?|cards?|[ahlbv]\d{2,3}s?|mi\d{3}x?s?|"
    r"\d+ ?g(?:be|bit|bps|b/s)|ethernet|infiniband|roce|network(?:ing)?)\b"
    r"|\bour(?: own)? (?:\d+ )?(?:nodes|servers|boxes|machines)\b"
    r"|\b(?:nodes?|servers?|boxes|machines|gpus?|[ahlbv]\d{2,3}s?) (?:that )?(?:we|i) (?:have|own|'ve got|have got)\b")
_BUDGET = re.compile(r"\$|\bbudget\b|\bmonth\b|\bweeks?\b|\bdays?\b")
NETWORK_NOTE = "read “{said}” as the network between your nodes: {rate}"
OWN_NOTE = "“{said}”: your own GPUs, costed at their power (name a provider or a price per GPU-hour to price a rental)"


_IN_NODE = re.compile(r"nvlink|nvswitch|pcie|xgmi|infinity fabric|scale-?up")


def _inside_node(text: str, found: re.Match[str]) -> bool:
    """A rate said of the link inside a node (NVLink, PCIe, xGMI), not of the network between nodes."""
    return bool(_IN_NODE.search(text[max(0, found.start() - 24):found.end() + 24]))


def network_said(text: str) -> tuple[float | None, str | None, str] | None:
    """(Gb/s per node or None, "ethernet" / "roce" / "infiniband" or None, the words) of a network between nodes said in
    `text`; None when none is. A rate said per GPU is the node's 8 GPUs' ("400G per GPU": 3,200)."""
    low = (text or "").lower()
    gbps: float | None = None
    kind: str | None = None
    words: list[str] = []
    for found in _SAID.finditer(low):
        rate_kind = found.group("kind") or ""
        near = low[found.end():found.end() + 30]
        if not rate_kind and "between" not in found.group(0) and not re.search(r"gbe|gige", found.group(0)):
            continue  # "500 GB of data", "at 1 GB/s" from storage: no network word with it
        if _inside_node(low, found):
            continue  # "900 GB/s NVLink interconnect": the link inside a node
        ports = float(found.group(1) or 1)
        gbps = ports * float(found.group(2)) * (8.0 if found.group("per") or found.group("per2") else 1.0)
        words.append(found.group(0).strip())
        kind = ("roce" if "roce" in rate_kind or _ROCE.match(near.strip()) else
                "infiniband" if rate_kind in ("infiniband", "ib") else
                "ethernet" if re.search(r"gbe|gige|gig ", found.group(0)) or rate_kind == "ethernet" else None)
        break
    if gbps is None:  # "NDR InfiniBand", "8x HDR": the generation's rate per port
        generation = re.search(r"\b(?:(\d{1,2}) ?x ?)?(hdr|ndr|xdr)\b(?: (?:infiniband|ib))?", low)
        if generation is not None:
            gbps = float(generation.group(1) or 1) * _GENERATIONS[generation.group(2)]
            kind = "infiniband"
            words.append(generation.group(0))
    no_ib = _NO_IB.search(low)
    if no_ib is not None:
        words.append(no_ib.group(0))
        if kind in (None, "ethernet"):
            kind = "ethernet"
    elif kind is None and _ROCE.search(low) and words:
        kind = "roce"
    elif kind is None and words and _IB.search(low):
        kind = "infiniband"
    if gbps is None and kind is None:
        return None
    return gbps, kind, ", ".join(words)


def take_network(text: str) -> str:
    """`text` without the network's rate ("8x400g ib", "2x200g roce", "100gbe"), so the grammar does not read its
    "8x" as a GPU count or its "400g" as a size; `with_network` reads it from the text as said."""
    def blank(found: re.Match[str]) -> str:
        networked = found.group("kind") or "between" in found.group(0) or re.search(r"gbe|gige", found.group(0))
        return " " if networked and not _inside_node(found.string, found) else found.group(0)
    return re.sub(r"  +", " ", _SAID.sub(blank, text or "")).strip()


def _rate(gbps: float | None, kind: str | None) -> str:
    name = {"ethernet": "Ethernet", "roce": "RoCE", "infiniband": "InfiniBand"}.get(kind or "", "")
    if gbps is None:
        return f"{name or 'Ethernet'} (100 Gb/s per node assumed)"
    return f"{gbps:,.0f} Gb/s" + (f" {name}" if name else "") + " per node"


def _training(reading: Reading, current: Any) -> bool:
    mode = reading.updates.get("mode", getattr(current, "mode", None))
    return (mode in TRAINING_MODES or reading.updates.get("intent") == "train" or "train" in reading.cues
            or getattr(current, "intent", None) == "train")


def with_network(reading: Reading, text: str, current: Any = None) -> Reading:
    """`reading` with the network between nodes said (`inter_node_gbps`, `inter_node_link`) on a training message or
    as a training thread's follow-up, and a GPU count said as "we (only) have", "we've got", "our N nodes" read as the
    team's own (`data_location` "onprem"); unchanged otherwise."""
    if not _training(reading, current):
        return reading
    updates = dict(reading.updates)
    notes = list(reading.notes)
    said = network_said(text)
    if said is not None and "inter_node_gbps" not in updates:
        gbps, kind, words = said
        if gbps is not None:
            updates["inter_node_gbps"] = gbps
        if kind is not None:
            updates["inter_node_link"] = kind
        notes.append(NETWORK_NOTE.format(said=words, rate=_rate(gbps, kind)))
    low = (text or "").lower()
    ours = _OURS.search(low)
    counted = updates.get("gpu_count") or updates.get("nodes") or (
        getattr(current, "gpu_count", None) or getattr(current, "nodes", None) if said is not None else None)
    if (ours is not None and counted and (updates.get("gpu") or getattr(current, "gpu", None))
            and not _BUDGET.search(ours.group(0)) and "data_location" not in updates
            and not any(updates.get(k) or getattr(current, k, None) for k in ("provider", "hourly_rate", "providers"))):
        updates["data_location"] = "onprem"
        notes.append(OWN_NOTE.format(said=ours.group(0).strip()))
    if updates == reading.updates:
        return reading
    intent = "refine" if reading.intent in ("help", "gibberish", "answer") and not reading.updates else reading.intent
    return reading.model_copy(update={"updates": updates, "intent": intent, "notes": tuple(notes)})

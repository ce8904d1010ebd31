"""Questions about hardware the user buys or owns, read from the message's words.

"What GPU do I need to run Llama 3.1 8B locally?", "which GPU should I buy to run mixtral", "can I run Qwen2.5 32B on
my 3090?" ask what to run a model on at home or in the office: inference for one person unless a load is said, on
cards a person buys (`LOCAL_CUE`). "Should we buy or rent 8 H100s?" asks for the break-even of owning those GPUs
against renting them, which needs no model (`BUY_RENT_CUE`); its assumptions ("at 50% utilisation", "$0.08/kWh",
"over 5 years") can be said in the same message or later in the thread, and are kept as cues
(`OWNING_SETTING` + name=value) since no Workload field holds them.

Not local: a service for users ("serve Llama 3.1 8B for 50 users"), a team's cluster ("deploy on our own cluster of
16 A100"), data "stored locally" (where the data lives), or a fine-tune ("LoRA locally on my 4090" stays a training
plan on the user's card).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LOCAL_CUE = "local"  # a thread's cue (`Conversation.cues`): it asks what to run a model on locally
BUY_RENT_CUE = "buy_or_rent"  # ... whether to buy or rent the GPUs it names
OWNING_SETTING = "owning:"  # ... an assumption of the break-even said: "owning:utilisation=0.5"
RESALE_SETTINGS = ("resale", "resale_usd")  # a share of the GPUs' price, or USD per GPU: either replaces the other
CARD_CUE = "owning:card="  # ... a card the catalog lacks, as said, with its memory: "owning:card=RTX 4070 Laptop GPU|8"
RUNTIME_CUE = "owning:runtime=vllm"  # ... a vLLM-style checkpoint said ("AWQ", "GPTQ", "EXL2"): 4-bit sized as AWQ, not GGUF

# a GeForce card by its number ("3090", "rtx 4060 ti", "4090s") or an Apple machine: hardware a person owns
_HOME_CARD = (r"(?:(?:used |single |nvidia |geforce |rtx )*[2-5]0[5-9]0(?: ?ti| super)?s?\b"
              r"|mac(?:book)?(?: (?:studio|mini|pro))?\b|m[1-4] (?:max|ultra|pro)\b)")
# an Apple machine said as where it runs ("on my macbook m3 max", "on a mac studio", "on my m2 ultra") and its unified
# memory said beside it ("m3 max 64gb", "mac studio with 512 gb", "64gb macbook pro")
_MAC = (r"(?:(?:macbook(?: pro| air)?|mac (?:studio|mini|pro)|imac|macs?)(?: (m[1-5])(?: (pro|max|ultra))?)?"
        r"|(m[1-5]) (pro|max|ultra))")
_ON_A_MAC = re.compile(rf"\bon (?:my|our|an?|the) (?:own |new )?(?:\d{{1,4}} ?gb )?{_MAC}\b")
_MAC_MEMORY = re.compile(rf"\b{_MAC}(?: (?:with|of|has|and|,))*(?: (?:unified |ram ))? (\d{{1,4}}) ?gb\b"
                         rf"|\b(\d{{1,4}}) ?gb (?:(?:unified memory|ram|memory) )?{_MAC}\b")
# a Mac named with its memory as the place a model would run: "share a mac studio …", "… instead of renting", "use
# our m3 ultra for it", "running deepseek on a mac studio"
_MAC_IN_PLACE = re.compile(r"\b(?:share|sharing|use|using|buy|get|instead of (?:renting|cloud|gpus)|run|running|host|"
                           r"hosting|serve|serving|inference)\b")
_VLLM_FILE = re.compile(r"\b(?:awq|gptq|exl2|exllama\w*|vllm|marlin)\b")
_DATA_LOCALLY = re.compile(r"\b(?:data|dataset|datasets|corpus|files|stored|kept|saved|lives|sits)\b[\w ]{0,20}?"
                           r"\blocally\b")
_LOCAL = re.compile(
    r"\blocally\b|\blocal (?:machine|pc|box|setup|rig|gpu|card)\b|\bat home\b|\bhome ?lab\b|\bhome (?:pc|server|rig)\b"
    r"|\bon (?:my|our) (?:own )?(?:laptop|notebook|desktop|pc|computer|machine|workstation|rig|gaming (?:pc|rig|laptop))\b"
    r"|\b(?:which|what) (?:gpus?|cards?|graphics cards?|video cards?)\b[\w ]{0,20}?\b(?:buy|purchase)\b"
    r"|\b(?:gpus?|cards?|graphics cards?) (?:should|would|could) (?:i|we) (?:buy|get|purchase)\b"
    r"|\b(?:gpus?|cards?|graphics cards?) to (?:buy|purchase)\b|\bbuy (?:a|an|which|what) (?:gpu|card|graphics card)\b"
    r"|\b(?:can|could) (?:i|we) run\b.*\bon (?:my|our)\b"
    # "can I run Qwen2.5 32B on a 3090?", "... on two 4090s", "... on a Mac Studio": a card people buy, or a Mac
    rf"|\b(?:can|could|will|does|would) (?:i|we|it) run\b.*\bon (?:an? |one |two |three |four |[1-4]x? ?)?{_HOME_CARD}"
    # "I have two 4090s, can I run Llama 3.1 70B?", "we've got a 3090: what can we run?"
    rf"|\b(?:i|we) (?:have|own|got|'ve got|have got|bought)\b[\w ]{{0,20}}?{_HOME_CARD}.*\brun\b")
_TRAINING = re.compile(r"\b(?:fine[- ]?tun\w*|finetun\w*|train\w*|lora|qlora|pre-?train\w*|sft)\b")
_BUY_RENT = re.compile(
    r"\bbuy(?:ing)?\b.{0,40}\b(?:or|vs\.?|versus|than)\b.{0,12}\brent(?:ing)?\b|\brent(?:ing)?\b.{0,40}"
    r"\b(?:or|vs\.?|versus|than)\b.{0,12}\bbuy(?:ing)?\b|\bcheaper to (?:buy|own)\b|\b(?:own|owning) (?:or|vs\.?|versus) "
    r"rent(?:ing)?\b|\brent (?:or|vs\.?|versus) (?:own|owning)\b")
_UTILISATION = re.compile(
    r"\b(\d{1,3}(?:\.\d+)?) ?%(?: of the time)? ?(?:utili[sz]ation|utili[sz]ed|busy|use|usage|load|duty|of the time)\b"
    r"|\butili[sz](?:ation|ed)(?: of| at| is)? (\d{1,3}(?:\.\d+)?) ?%")
_KWH = re.compile(r"\$ ?(\d*\.?\d+) ?(?:/|per |an? )kwh\b|\b(\d+(?:\.\d+)?) ?(?:cents?|c|¢) ?(?:/|per |an? )kwh\b")
_YEARS = re.compile(r"\b(?:over|for|across|in|within) (\d{1,2}(?:\.\d+)?) years?\b"
                    r"|\b(\d{1,2}(?:\.\d+)?)[- ]years? (?:horizon|lifetime|life|depreciation|period)\b")
_RESALE_NONE = re.compile(r"\b(?:no|zero|without|ignore|ignoring|not counting|excluding|exclude)(?: any| the)? "
                          r"(?:resale|residual|salvage)(?: value)?\b|\b(?:resale|residual|salvage)(?: value)?(?: of| at| is)? "
                          r"(?:zero|nothing|\$?0)(?!\.?\d)")
_RESALE_SHARE = re.compile(r"\b(?:resale|residual|salvage|resell(?:ing)?(?: them| it)?|sell(?:ing)? (?:them|it|the gpus|the cards)(?: on| back)?)(?: value)?(?: of| at| for| is|:)? "
                           r"?(\d{1,3}(?:\.\d+)?) ?%|\b(\d{1,3}(?:\.\d+)?) ?% (?:resale|residual|salvage)\b")
_RESALE_USD = re.compile(r"\b(?:resale|residual|salvage|resell(?:ing)?(?: them| it)?|sell(?:ing)? (?:them|it|the gpus|the cards)(?: on| back)?)(?: value)?(?: of| at| for| is|:)? "
                         r"?\$ ?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?) ?(k)?(?: (?:per|a|each|for each)(?: gpu| card)?)?\b")
_DGX = re.compile(r"\b[dh]gx[- ]?(?:h100|h200|b200|b300|a100)\b")
# a GeForce laptop or desktop card the catalog does not list: "laptop 4070 8GB", "my rtx 3060 12gb"
_CARD = re.compile(r"\b(?:(laptop|notebook|mobile) )?(?:(?:geforce )?rtx )?([2-5]0[5-9]0)( ?ti| super)?"
                   r"( laptop| mobile| max-q)?(?: gpu)?(?:,? (?:with )?(\d{1,2}) ?gb)?\b")


@dataclass(frozen=True)
class OwningSaid:
    """What one message says about owning: a local question, a buy-or-rent question, its assumptions, a card the
    catalog may not have, and whether a DGX/HGX (8 GPUs in one server) was named."""

    local: bool = False
    buy_or_rent: bool = False
    # utilisation (0-1), usd_per_kwh, years, resale (0-1 of the GPUs' price) or resale_usd (per GPU)
    settings: dict[str, float] = field(default_factory=dict)
    card: tuple[str, float | None] | None = None  # a GeForce card by number, with the memory said beside it
    eight_gpu_server: bool = False
    vllm_file: bool = False  # an AWQ/GPTQ/EXL2 checkpoint (or vLLM) said: 4-bit sized as those, not as a GGUF file


def read_owning(text: str) -> OwningSaid:
    """What the message says about local running and buying (lower-cased text, as the parser normalises it)."""
    low = (text or "").lower()
    local = bool(_LOCAL.search(low) or _ON_A_MAC.search(low)) and not (_DATA_LOCALLY.search(low) and "run" not in low)
    if local and _TRAINING.search(low):
        local = False  # "LoRA Llama 3.1 8B locally on my 4090": a training plan on their card, not what to buy
    card = None
    found = next((m for m in _CARD.finditer(low) if m.group(1) or m.group(4) or m.group(5)), None)
    if found is not None:
        laptop = bool(found.group(1) or found.group(4))
        name = f"RTX {found.group(2)}{(found.group(3) or '').upper().replace('SUPER', ' Super').replace(' TI', ' Ti').replace('TI', ' Ti')}"
        card = (name + (" Laptop GPU" if laptop else ""), float(found.group(5)) if found.group(5) else None)
    mac = _mac_said(low)
    card = card or mac
    if mac is not None and not local and not _TRAINING.search(low) and _MAC_IN_PLACE.search(low):
        # "could our 8 devs share a mac studio m3 ultra 512gb running deepseek v3 instead of renting gpus?": a Mac
        # with its memory said as where the model would run, in any words: the local answer, as "on a mac" gets
        local = True
    return OwningSaid(local=local, buy_or_rent=bool(_BUY_RENT.search(low)), settings=owning_settings_said(low),
                      card=card, eight_gpu_server=bool(_DGX.search(low)), vllm_file=bool(_VLLM_FILE.search(low)))


def _mac_said(text: str) -> tuple[str, float | None] | None:
    """'macbook m3 max 64gb' -> ("Apple M3 Max", 64.0): a Mac named with its unified memory, which the local answer
    checks the model against (the catalog has no Apple silicon to plan on); None when no memory is said with it."""
    m = _MAC_MEMORY.search(text)
    if m is None:
        return None
    groups = m.groups()
    first, second = groups[:5], groups[5:]
    chip, variant, chip2, variant2, gb = first if first[4] is not None else (*second[1:], second[0])
    chip, variant = chip or chip2, variant or variant2
    name = f"Apple {chip.upper()}" + (f" {variant.title()}" if variant else "") if chip else "Apple silicon"
    return name, float(gb)


def owning_settings_said(text: str) -> dict[str, float]:
    """"at 50% utilisation", "$0.08/kWh" (or "8 cents/kWh"), "over 5 years", "no resale" or "resale 30%" (of the
    GPUs' price, at the end) or "resale $8k per GPU": the break-even's assumptions said."""
    out: dict[str, float] = {}
    text = text.lower()
    if (m := _UTILISATION.search(text)) is not None:
        share = float(m.group(1) or m.group(2)) / 100
        if 0 < share <= 1:
            out["utilisation"] = share
    if (m := _KWH.search(text)) is not None:
        out["usd_per_kwh"] = float(m.group(1)) if m.group(1) else float(m.group(2)) / 100
    if (m := _YEARS.search(text)) is not None:
        years = float(m.group(1) or m.group(2))
        if 0 < years <= 10:
            out["years"] = years
    if _RESALE_NONE.search(text):
        out["resale"] = 0.0
    elif (m := _RESALE_SHARE.search(text)) is not None:
        share = float(m.group(1) or m.group(2)) / 100
        if 0 <= share <= 1:
            out["resale"] = share
    elif (m := _RESALE_USD.search(text)) is not None:
        out["resale_usd"] = float(m.group(1).replace(",", "")) * (1e3 if m.group(2) else 1.0)
    return out


def cue_settings(cues: set[str] | frozenset[str], prefix: str, skip: tuple[str, ...] = ()) -> dict[str, float]:
    """The numbers a thread has said as cues "<prefix>name=value" (cues under `skip` are other kinds that share the
    prefix); a value that is not a number is left out."""
    out: dict[str, float] = {}
    for cue in cues:
        if cue.startswith(prefix) and not (skip and cue.startswith(skip)) and "=" in cue:
            name, _, value = cue[len(prefix):].partition("=")
            try:
                out[name] = float(value)
            except ValueError:
                continue
    return out


def owning_settings(cues: set[str] | frozenset[str]) -> dict[str, float]:
    """The break-even's assumptions a thread has said, from its cues."""
    return cue_settings(cues, OWNING_SETTING, (CARD_CUE, RUNTIME_CUE))


def card_said(cues: set[str] | frozenset[str]) -> tuple[str, float | None] | None:
    """The card the catalog lacks that the thread named, with its memory (GB) when said."""
    cue = next((c for c in sorted(cues) if c.startswith(CARD_CUE)), None)
    if cue is None:
        return None
    name, _, gb = cue[len(CARD_CUE):].partition("|")
    return name, float(gb) if gb else None


def runtime_said(cues: set[str] | frozenset[str]) -> str:
    """How the thread's 8- and 4-bit weights are sized locally: "vllm" (AWQ/GPTQ) when it said such a checkpoint,
    else "gguf" (llama.cpp/Ollama's Q8_0 and Q4_K_M files, what most people run at home)."""
    return "vllm" if RUNTIME_CUE in cues else "gguf"


def with_owning(cues: set[str], said: OwningSaid, *, fresh: bool) -> set[str]:
    """The thread's cues after this message: a new question drops the old question's cues unless it says them
    again; assumptions said replace the same assumption said before."""
    out = set(cues)
    if fresh:
        out -= {LOCAL_CUE, BUY_RENT_CUE}
        out = {c for c in out if not c.startswith(OWNING_SETTING)}
    if said.local:
        out.add(LOCAL_CUE)
    if said.buy_or_rent:
        out.add(BUY_RENT_CUE)
    for name, value in said.settings.items():
        # "resale $8k a GPU" replaces "resale 30%" and the other way round: one resale at a time
        names = RESALE_SETTINGS if name in RESALE_SETTINGS else (name,)
        out = {c for c in out if not any(c.startswith(f"{OWNING_SETTING}{n}=") for n in names)}
        out.add(f"{OWNING_SETTING}{name}={value:g}")
    if said.vllm_file:
        out.add(RUNTIME_CUE)
    if said.card is not None:
        out = {c for c in out if not c.startswith(CARD_CUE)}
        out.add(f"{CARD_CUE}{said.card[0]}|{'' if said.card[1] is None else f'{said.card[1]:g}'}")
    return out

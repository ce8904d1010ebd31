"""A cloud's managed ML service named in a plan question: "serve gemma 3 27b on sagemaker vs ec2", "vertex ai vs gce
for serving gemma 3 27b", "bedrock custom model import for our fine-tuned llama 3.1 8b, 2M tokens/day".

Why taken out before the grammar reads the text: "ec2" after "vs" had read as a model the catalog does not know, the
pair's provider was dropped and the answer priced SageMaker alone or RunPod; "vertex ai" is no provider the catalog
prices; "bedrock custom model import for our fine-tuned …" had read as a LoRA run on 2M tokens. Here:
- a managed service against its own cloud's VMs ("sagemaker vs ec2", "sagemaker or plain ec2"): both providers kept
  (`providers`), and the bot prices the same plan on both (`bot.managed`);
- Vertex AI (not in the catalog): planned on Compute Engine, and a note says Vertex's nodes cost more;
- Bedrock Custom Model Import (not in the catalog): its billing said, and the model served on the load said.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .reading import Reading, Resolved

# the names of a cloud's managed ML service and of its plain VMs, as said; each resolves through the catalog's
# provider aliases ("ec2" -> aws, "sagemaker" -> sagemaker, "gce" -> gcp), Vertex AI excepted (the catalog has none)
_SIDE = (r"(?:aws |amazon )?sagemaker(?: ai)?(?: endpoints?| inference)?|(?:aws |amazon )?ec2(?: instances?| vms?)?|"
         r"(?:google )?vertex(?: ai)?(?: prediction| endpoints?| inference)?|gce|(?:google )?compute engine(?: vms?)?")
_PLAIN = r"(?:(?:a |plain |raw |bare |self-managed |self managed |our own |just |using |on )+)?"
_VERSUS = re.compile(r"\b(?:on |using |with |via )?(?P<a>" + _SIDE + r")\s*(?:vs\.?|versus|or|against|compared (?:to|with)|"
                     r"instead of)\s*,?\s+" + _PLAIN + r"(?P<b>" + _SIDE + r")\b")
_VERTEX = re.compile(r"\b(?:on |using |with |via )?(?:google )?vertex(?: ai)?(?: prediction| endpoints?| inference)?\b")
_BEDROCK_CMI = re.compile(r"\b(?:(?:(?:aws |amazon )?bedrock(?:'s)? )?custom model import|bedrock cmi)\b"
                          r"(?: (?:for|of|with|on))?")
_FINE_TUNED = re.compile(r"\b(?:fine-?tuned|finetuned)\b ?")

VERTEX_NOTE = ("Vertex AI prediction nodes are not in the catalog: planned on the same machines on Compute Engine, "
               "which Vertex bills above (cloud.google.com/vertex-ai/pricing): read these figures as Vertex's floor")
BEDROCK_CMI_NOTE = ("Bedrock Custom Model Import is not in the catalog: it bills per Custom Model Unit per minute, in "
                    "5-minute windows while a model copy is active, plus storage per CMU a month; Bedrock sets the CMUs "
                    "a copy needs at import (aws.amazon.com/bedrock/pricing). This plan serves the model yourself at "
                    "that load")


class ManagedAsk:
    """What the message said: `versus` (managed id, own-VM id) for a pair; `vertex`; `bedrock`."""

    __slots__ = ("bedrock", "versus", "vertex")

    def __init__(self, versus: tuple[str, str] | None = None, vertex: bool = False, bedrock: bool = False) -> None:
        self.versus, self.vertex, self.bedrock = versus, vertex, bedrock


def _provider(words: str, resolve: Callable[[str], Resolved | None]) -> str | None:
    """The provider id of one side's words ("plain ec2 instances" -> aws), "vertex" for Vertex AI, else None."""
    if "vertex" in words:
        return "vertex"
    for cut in (words, re.sub(r" (?:ai|endpoints?|inference|instances?|vms?|prediction)$", "", words)):
        resolved = resolve(cut)
        found = getattr(resolved, "id", None)
        if found:
            return str(found)
    return None


def take_managed(text: str, resolve: Callable[[str], Resolved | None] | None) -> tuple[str, ManagedAsk | None]:
    """(the text without the service's words, what was asked), or (text, None) when no managed service is named.
    Bedrock Custom Model Import's words become "serve" (the question is the model served at the load said), and
    "fine-tuned" before the model is dropped (it says what the model is, not a run to plan)."""
    if resolve is None:
        return text, None
    ask = ManagedAsk()
    found = _VERSUS.search(text)
    if found is not None:
        a, b = _provider(found.group("a"), resolve), _provider(found.group("b"), resolve)
        if a and b and a != b:
            if "vertex" in (a, b):
                ask.vertex = True
            else:
                ask.versus = (a, b)
            text = f"{text[:found.start()]} {text[found.end():]}"
    if not ask.vertex and (vertex := _VERTEX.search(text)) is not None:
        ask.vertex = True
        text = f"{text[:vertex.start()]} {text[vertex.end():]}"
    bedrock = _BEDROCK_CMI.search(text)
    if bedrock is not None:
        ask.bedrock = True
        text = _FINE_TUNED.sub("", f"{text[:bedrock.start()]} serve {text[bedrock.end():]}")
    if ask.versus is None and not ask.vertex and not ask.bedrock:
        return text, None
    return re.sub(r"\s{2,}", " ", text).strip(" ,;"), ask


def with_managed(reading: Reading, ask: ManagedAsk | None) -> Reading:
    """The reading with what `take_managed` found applied: the pair as `providers` (as said; the bot tells which is
    the managed one from the catalog), Vertex as Compute Engine with its note, Bedrock CMI as serving with its note."""
    if ask is None:
        return reading
    updates, notes = dict(reading.updates), []
    if ask.versus is not None:
        updates.pop("provider", None)
        updates["providers"] = ask.versus
    if ask.vertex:
        updates.pop("providers", None)
        updates["provider"] = "gcp"
        notes.append(VERTEX_NOTE)
    if ask.bedrock:
        updates.update({"mode": "inference", "intent": "serve"})
        notes.append(BEDROCK_CMI_NOTE)
    intent = "describe" if reading.intent in ("help", "gibberish") and updates else reading.intent
    # first: the service asked about is not what the figures price, which the reader must see before the rest
    return reading.model_copy(update={"updates": updates, "notes": (*notes, *reading.notes), "intent": intent,
                                      "cues": reading.cues - {"finetune", "train"} if ask.bedrock else reading.cues})

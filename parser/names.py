"""Names: a name-shaped span -> a model, GPU, provider or instance type, or a friendly problem.

Everything that asks the injected `NameResolver` lives here: `NameReader` resolves a span ("8x
h100s", "llama-3-70b", "p5.48xlarge"), reads a bare word in a name position ("serve mixtral",
"what about SageMaker?"), and words the problem for a name the catalog does not know ("did you
mean ...?", "which GPU is it closest to?"). Nothing here knows a model or GPU by name: the
patterns only say what a name, a count or an instance type looks like.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from engine.models import Problem

from .reading import NameResolver, Reading, Resolved
from .said import Said

# Words that can head a size-shaped span ("for 70b", "a 7b") without being a model name.
_NOT_NAMES = {
    "a", "an", "the", "for", "of", "with", "my", "our", "its", "is", "be", "to", "and", "or", "size",
    "model", "models", "about", "around", "approx", "approximately", "roughly", "like", "say", "than",
    "base", "it", "we", "i", "have", "has", "got", "need", "want", "run", "do", "some", "any", "by",
    "vs", "versus", "compare", "also", "maybe", "then", "but", "llm", "llms", "lm", "slm",
    "embed", "index", "process", "classify", "label", "ingest", "handle",
}
_COUNT = re.compile(r"^(\d+(?:\.\d+)?)(k?)(?: x ?| |x)(?=\S)")
_SIZE_B = re.compile(r"(?<![x\d.])(\d+(?:\.\d+)?)b\b")
_MOE = re.compile(r"\d+x\d+(?:\.\d+)?b")
_PLURAL = re.compile(r"(?<=\d)s\b")
_MEMORY_SUFFIX = re.compile(r" \d+ ?gb$")
_TRAILING_COUNT = re.compile(r" x (\d{1,5})$")
_WORD_VERSION = re.compile(r"[a-z]+ v\d+(?:\.\d+)?")
_DID_YOU_MEAN = re.compile(r"[Dd]id you mean:? (.+?)\?\s*$")
_ID_IN_PARENS = re.compile(r"\(([a-z0-9][a-z0-9.\-]*)\)")
# An unknown name that looks like a GPU rather than a model: "h20", "a800 80 gb", "gb300s", "5090"
_GPU_SHAPED = re.compile(r"(?:(?:rtx|gtx|nvidia|amd|tesla) ?)?(?:[a-z]{1,2}\d{2,4}[a-z]{0,3}|\d{4}(?: ?ti)?)(?: .*)?")
# Words skipped between a verb and a bare name ("serve the mixtral"), and roles that make a
# following bare word a name position: the kinds of verbs, and which catalog tables to ask.
_ARTICLES = {"a", "an", "the", "our", "my", "of", "this", "that", "some", "their", "your"}
_NAME_LOOKUPS = {"refine": ("provider", "model", "gpu"), "verb": ("model",)}
# Ordinary words that follow a verb ("serve traffic", "qlora please", "train for ..."): never an
# unknown model. Other plain words there are, when nothing else in the message names the model.
_COMMON_AFTER_VERB_WORDS = """
    traffic it its our my the them this that these those we us you your their his her me models model llm llms
    lm api apis app apps endpoint endpoints service services server servers backend frontend production prod
    staging dev please only just also then now again today tomorrow soon later first next fast quickly cheap
    cheaply up out in on at for to from into onto over under about around across via by with without and or
    but so if what which how when where why who can could would should will must may might is are be been
    being was were do does did done have has had get got need needs want wants like try trying one ones
    something anything everything nothing stuff thing things all both each every any some lot lots bit
    little more less most much many few several own new old small smaller large larger big bigger huge tiny
    same other another different custom base pretrained trained existing current open source opensource
    local remote internal internally external users user customers customer clients client people team
    teams employees requests request queries query calls chat chats chatbot bot bots assistant agent agents
    rag embeddings embedding search retrieval classifier classification summarization translation code coding
    docs documents data dataset datasets corpus text texts images image vision audio speech video
    predictions results outputs inputs tokens weights adapters adapter checkpoint checkpoints job jobs run
    runs workload workloads pipeline pipelines cluster gpu gpus hardware infra infrastructure instance
    instances machine machines node nodes cost costs price pricing budget time hours days weeks months
    latency throughput performance speed memory vram efficiently efficient properly well better best
    realtime real live online offline batch batches streaming stream cloud clouds onprem prem house
    yes no not sure maybe ok okay thanks thank hey hi hello guys folks all
"""
_COMMON_AFTER_VERB = frozenset(_COMMON_AFTER_VERB_WORDS.split())
# A cloud instance type: "p5.48xlarge", "ml.p4d.24xlarge", "g5.xlarge", "a3-highgpu-8g", "g2-standard-4"
_INSTANCE_SHAPED = re.compile(
    r"(?:ml\.)?[a-z]+\d+[a-z]*\.\d*x?(?:large|medium|small|metal)|[a-z]\d+-(?:high|mega|ultra|edge)gpu-\d+g"
    r"|[a-z]\d+-standard-\d+"
    r"|(?:standard-)?n[cdv]\d*[a-z]*(?:-[a-z]+\d+[a-z]*)?-?v\d+"
)
# An Azure VM name as `Catalog.find_names` glues it from words ("nd h100 v5" -> "nd-h100-v5", "ndv5")
_AZURE_GLUED = re.compile(r"(?:standard-)?n[cdv]\d*[a-z]*(?:-[a-z]+\d+[a-z]*)?-?v\d+")

# A checkpoint's weight format written in its name ("…-Instruct-FP8", "…-AWQ-INT4", "…-GPTQ-Int8", "…-bnb-4bit"):
# quantized repos on the Hub are named so, and vLLM serves them in that format
_NAME_PARTS = re.compile(r"[-_ ./]")
_FORMATS_IN_NAME = (("fp8", {"fp8"}), ("int8", {"int8", "8bit", "w8a8", "w8a16"}),
                    ("int4", {"awq", "gptq", "int4", "4bit", "w4a16", "nf4"}))
_FORMAT_LABEL = {"fp8": "FP8", "int8": "8-bit integer", "int4": "4-bit (AWQ/GPTQ)"}


def weights_in_name(name: str) -> str | None:
    """The weight format a model name states ("qwen/qwen3-235b-a22b-instruct-2507-fp8" -> "fp8"), else None;
    8-bit before 4-bit so "gptq-int8" is int8."""
    parts = set(_NAME_PARTS.split(name.lower()))
    return next((precision for precision, words in _FORMATS_IN_NAME if parts & words), None)



# CPU-only instance families: AWS general purpose, compute and memory optimised (m, c, r, t, x, z, with their
# generation and letters: "c7i.8xlarge", "m6a.large", "r7g.4xlarge"), GCP's n1/n2/n2d/c2/c3/c4/e2/m1-m3/t2a, Azure's
# D/E/F series; the GPU families (p, g, inf, trn; a2/a3/g2; NC/ND/NV) are not among them
_CPU_INSTANCE = re.compile(r"(?:[mcrtxz][5-8][a-z]*\.(?:nano|micro|small|medium|large|metal|\d*xlarge)(?:-\w+)?"
                           r"|(?:n1|n2d?|n4|c2d?|c3d?|c4a?|e2|m[1-4]|t2[ad])-(?:standard|highmem|highcpu|ultramem|megamem)"
                           r"-\d+|standard_[def]\d+[a-z]*_v\d)", re.IGNORECASE)
class NameReader:
    """Resolves the names in one message: one lookup per name per message."""

    def __init__(self, resolver: NameResolver | None) -> None:
        self.resolver = resolver
        self._seen: dict[tuple[str, str], Resolved | None] = {}  # one lookup per name per message
        self._instances: dict[str, Any] = {}  # the same for instance types (`InstanceResolver`)

    def resolve(self, kind: str, text: str) -> Resolved | None:
        if self.resolver is None:
            return None
        if (kind, text) not in self._seen:
            self._seen[(kind, text)] = self._lookup(kind, text)
        return self._seen[(kind, text)]

    def _lookup(self, kind: str, text: str) -> Resolved | None:
        assert self.resolver is not None
        lookup = {"model": self.resolver.resolve_model, "gpu": self.resolver.resolve_gpu}.get(
            kind, self.resolver.resolve_provider
        )
        result = lookup(text)
        if result.id is None and _PLURAL.search(text):  # "h100s", "a100s 80gb"
            singular = lookup(_PLURAL.sub("", text))
            if singular.id is not None or singular.candidates:
                return singular
        return result

    def name(self, text: str) -> Said:
        """A name-shaped span: a GPU when a count is in front, else a model, else a GPU."""
        count_match = None if _MOE.fullmatch(text) else _COUNT.match(text)
        count = None
        name = text
        if count_match:
            count = int(float(count_match.group(1)) * (1000 if count_match.group(2) else 1))
            name = text[count_match.end():]
        trailing = _TRAILING_COUNT.search(name)
        if trailing:  # "h100 80 gb x 8"
            name = name[: trailing.start()]
            count = count or int(trailing.group(1))
        said = Said("hardware", text)
        if _INSTANCE_SHAPED.fullmatch(name):
            found = self._instance(text, name, count)
            if found is None and _CPU_INSTANCE.fullmatch(name):
                # "we have some c7i.8xlarge boxes": a CPU-only family, which no GPU plan runs on
                return Said("hardware", text, values={"unsupported_accelerator": "CPU"}, notes=[
                    f"“{name}” is a CPU-only instance (no GPU): the catalog sizes GPUs; a CPU runs a small model at 4 "
                    "or 8 bits with llama.cpp, its speed bound by the memory bandwidth, for a few light users"])
            return found or Said("hardware", text, problems=[Problem(
                code="unknown_gpu", field="gpu",
                message=f"I don't know the instance type “{name}”: which GPU does it have, and how many? e.g. “8x H100”")])
        if count is not None:
            gpu = self._resolve_gpu(name)
            if gpu is None or (gpu.id is None and not gpu.candidates):  # "2 p5", "2 NC A100 v4": machines, not GPUs
                instance = self._instance(text, name, count)
                if instance is not None:
                    return instance
            said.values["gpu_count"] = count
            self.apply(said, "gpu", name, gpu)
            return said
        model = self.resolve("model", name)
        if model is not None and model.id is not None:
            self.apply(said, "model", name, model)
            return said
        gpu = self._resolve_gpu(name)
        if gpu is not None and gpu.id is not None:
            self.apply(said, "gpu", name, gpu)
            return said
        size = _total_sizes(name)
        head = re.split(r"[ \-]", name)[0]
        if size and (head in _NOT_NAMES or head.isdigit()):
            said.values["params_b"] = float(size[-1])
            return said
        if _WORD_VERSION.fullmatch(name) and not (model and model.candidates) and not (gpu and gpu.candidates):
            return Said("filler", text)  # "pipeline v2": a version of something, not a model we know
        instance = self._instance(text, name, None)  # an instance type of an unusual shape
        if instance is not None:
            return instance
        if model is not None and model.candidates and model.id is None and not (size and _near_misses(name, model)):
            self.apply(said, "model", name, model)
        elif gpu is not None and gpu.candidates and gpu.id is None:
            self.apply(said, "gpu", name, gpu)
        else:
            if size:
                said.values["params_b"] = float(size[-1])
            said.problems.append(_unknown(name, model, gpu, size[-1] if size else None))
        return said

    def _instance(self, text: str, name: str, count: int | None) -> Said | None:
        """'4 ml.p4d.24xlarge' -> 32 a100-sxm-40gb on sagemaker, through the resolver's optional
        `resolve_instance` (see `InstanceResolver`); None when it has none or does not know the name."""
        lookup = getattr(self.resolver, "resolve_instance", None)
        if not callable(lookup):
            return None
        if name not in self._instances:
            self._instances[name] = lookup(name)
        found = self._instances[name]
        if found is None or getattr(found, "id", None) is None:
            return None
        per_node = int(getattr(found, "gpus_per_node", 1) or 1)
        instance_type = getattr(found, "instance_type", None)
        if isinstance(instance_type, str) and _AZURE_GLUED.fullmatch(name):
            name = instance_type  # glued from the user's words ("nd-h100-v5"): said as Azure writes it, “ND H100 v5”
        family = getattr(found, "family", False) is True and isinstance(instance_type, str)
        values: dict[str, Any] = {"gpu": found.id}
        if isinstance(instance_type, str) and instance_type:
            values["instance_type"] = instance_type
        provider = getattr(found, "provider", None)
        if provider:
            values["provider"] = provider
        gpu, where = _shown(found, "gpu"), f" on {_shown(found, 'provider')}" if provider else ""
        if family and not count:
            # "on AWS p5": the family's machines, as many as the job needs, not one of its largest
            return Said("hardware", text, values, notes=[f"“{name}”: {gpu} machines of that family{where}"])
        instances = count or 1
        values["gpu_count"] = instances * per_node
        if family:
            # "2 p5": two of the family's largest machines, the size a count of them usually means
            note = (f"“{instances} {name}” read as {instances} of its largest machines ({per_node}× {gpu}{where}): "
                    f"{instances} × {per_node} = {instances * per_node} GPUs; name the size for another")
        else:
            total = f": {instances} × {per_node} = {instances * per_node} GPUs" if instances > 1 else ""
            note = f"“{name}” is {per_node}× {gpu}{where}{total}"
        return Said("hardware", text, values, notes=[note])

    def _resolve_gpu(self, name: str) -> Resolved | None:
        gpu = self.resolve("gpu", name)
        if gpu is not None and gpu.id is None and not gpu.candidates and _MEMORY_SUFFIX.search(name):
            return self.resolve("gpu", _MEMORY_SUFFIX.sub("", name))  # "a100 48 gb" -> "a100"
        return gpu

    def apply(self, said: Said, kind: str, name: str, resolved: Resolved | None) -> None:
        """Record a resolution: resolved (maybe a family default, noted), ambiguous, or unknown."""
        if resolved is None:  # no resolver: nothing can be named
            said.problems.append(Problem(code=f"unknown_{kind}", field=kind, message=f"I can't look up “{name}” here."))
            return
        if resolved.id is not None:
            said.values[kind] = resolved.id
            weights = weights_in_name(name) if kind == "model" else None
            if weights is not None:
                said.implied["precision"] = (weights, f"served in {_FORMAT_LABEL[weights]}, the format of the checkpoint "
                                                      f"“{name}”; say “in bf16” for the original weights")
            if resolved.candidates:
                said.notes.append(resolved.message or f"“{name}” → assumed {resolved.id} (also: {', '.join(resolved.candidates)})")
            return
        code = f"ambiguous_{kind}" if resolved.candidates else f"unknown_{kind}"
        message = resolved.message or f"I don't know the {kind} “{name}”."
        said.problems.append(Problem(code=code, field=kind, message=message, candidates=tuple(resolved.candidates)))

    def _bare_name(self, word: str, kinds: tuple[str, ...]) -> Said | None:
        """A plain word in a name position ("serve mixtral"): a name only if the catalog knows it.

        An unknown word is filler, not a problem: "serve traffic" must not complain. An ambiguous
        family ("serve llama") counts when every candidate carries the word; suggestions for a
        near miss do not.
        """
        if len(word) < 3 or word in _NOT_NAMES or word in _ARTICLES or self.resolver is None:
            return None
        for kind in kinds:
            resolved = self.resolve(kind, word)
            if resolved is None:
                continue
            family = bool(resolved.candidates) and all(c.startswith(word) for c in resolved.candidates)
            if resolved.id is not None or family:
                said = Said("provider" if kind == "provider" else "hardware", word)
                if kind == "provider" and resolved.id is not None:
                    said.values["provider"] = resolved.id
                else:
                    self.apply(said, kind, word, resolved)
                return said
        model = self.resolve("model", word) if "model" in kinds else None
        ids = _suggestions(model)[1]
        if any(_near(word, i) for i in ids):  # "serve mixtrall": a near miss of a model; "serve llms" is not
            return Said("hardware", word, problems=[_unknown(word, model, None, None)])
        return None

    def names_in_position(self, items: list[Said]) -> list[Said]:
        """After a verb ("serve", "fine-tune", "qlora") a plain word may be a model; after "what
        about" it may be a provider, model or GPU, and a bare cloud is where it runs."""
        items = list(items)
        named = any("model" in s.values or "params_b" in s.values or s.problems for s in items)
        for index, said in enumerate(items):
            role = "refine" if said.cues & {"refine", "refine_verb"} and said.kind in ("cue", "filler") else (
                "verb" if said.kind == "mode" or said.cues & {"train", "finetune"} else None)
            if role is None:
                continue
            nxt = index + 1
            while nxt < len(items) and nxt - index <= 2 and items[nxt].word and items[nxt].text in _ARTICLES:
                nxt += 1
            if nxt >= len(items):
                continue
            target = items[nxt]
            if role == "refine" and target.kind == "cloud":
                cloud = str(target.values["data_location"])
                resolved = self.resolve("provider", cloud)
                items[nxt] = Said("provider_cloud", target.text, {"provider": resolved.id if resolved and resolved.id else cloud})
            elif target.word:
                word, width = target.text, 1
                if nxt + 2 < len(items) and items[nxt + 1].text == "-" and items[nxt + 2].word:  # "falcon-mamba"
                    word, width = f"{word}-{items[nxt + 2].text}", 3
                found = self._bare_name(word, _NAME_LOOKUPS[role])  # "falcon-mamba" is not a Falcon
                if found is None and role == "verb" and not named and self._unknown_word(target.text):
                    found = Said("hardware", word, problems=[_unknown(word, self.resolve("model", word), None, None)])
                if found is not None:
                    items[nxt:nxt + width] = [found] + [Said("filler", s.text) for s in items[nxt + 1:nxt + width]]
                    named = named or bool(found.values or found.problems)
        return items

    def _unknown_word(self, word: str) -> bool:
        """A plain word after a verb that could be a model the catalog lacks ("serve grok"): not a
        common word, an adverb, a gerund or a plural ("serve traffic", "deploy quickly", "serve requests")."""
        return (self.resolver is not None and len(word) >= 3 and word not in _COMMON_AFTER_VERB
                and word not in _NOT_NAMES and not word.endswith(("ly", "ing", "s")))


def _suggestions(resolved: Resolved | None) -> tuple[str, tuple[str, ...]]:
    """What a resolver suggests for an unknown name: (text to show, ids). The catalog puts its
    suggestions in the message ("Did you mean: Mixtral 8x7B (mixtral-8x7b), ...?")."""
    if resolved is None or resolved.id is not None:
        return "", ()
    if resolved.candidates:
        ids = tuple(resolved.candidates)
        return ", ".join(ids[:4]), ids
    found = _DID_YOU_MEAN.search(resolved.message or "")
    if found is None:
        return "", ()
    return found.group(1), tuple(_ID_IN_PARENS.findall(found.group(1)))


def _near_misses(name: str, model: Resolved) -> bool:
    """Suggestions for a sized name that are not its own family ("llama-5-70b" -> llama-3-70b):
    the size still counts, the suggestions go in the message."""
    return not all(c.startswith(name.replace(" ", "-")) for c in model.candidates)


def _near(word: str, model_id: str) -> bool:
    """A plain word close to a model id's family ("mixtrall" ~ "mixtral-8x7b", "lama" ~ "llama-3-8b")."""
    family = re.split(r"[-\d]", model_id)[0]
    return model_id.startswith(word) or difflib.SequenceMatcher(None, word, family).ratio() >= 0.8


_ACTIVE_B = re.compile(r"(?<![a-z0-9])a\d+(?:\.\d+)?b\b")


def _total_sizes(name: str) -> list[str]:
    """Parameter sizes a name states, without MoE active counts: "foo-235b-a22b" is 235B in total
    (22B active per token), never a 22B model."""
    return _SIZE_B.findall(_ACTIVE_B.sub(" ", name))


def _unknown(name: str, model: Resolved | None, gpu: Resolved | None, size: str | None) -> Problem:
    """The friendly problem for a name-shaped word the catalog does not know: a model unless it
    looks like a GPU ("h20", "a800") or only the GPU table has suggestions for it."""
    model_hint, model_ids = _suggestions(model)
    gpu_hint, gpu_ids = _suggestions(gpu)
    if size is None and not model_hint and (gpu_hint or _GPU_SHAPED.fullmatch(name)):
        hint = f"; did you mean {gpu_hint}?" if gpu_hint else ". Which GPU is it closest to?"
        return Problem(code="unknown_gpu", field="gpu", candidates=gpu_ids, message=f"I don't know the GPU “{name}”{hint}")
    if size is not None:
        hint = f"; did you mean {model_hint}?" if model_hint else "."
        message = f"I don't know “{name}”{hint} I'll size it as a generic {size}B model."
    elif model_ids and all(i.startswith(name.replace(" ", "-")) for i in model_ids):  # "gemma": a family
        return Problem(code="ambiguous_model", field="model", candidates=model_ids,
                       message=f"“{name}” could be {model_hint}: which one? Or tell me its size, e.g. “70B”.")
    elif model_hint:
        message = f"I don't know “{name}”; did you mean {model_hint}? Or tell me its size, e.g. “70B”."
    else:
        message = f"I don't know “{name}”. Which model is it like, or how big is it? Tell me its size, e.g. “70B”."
    return Problem(code="unknown_model", field="model", candidates=model_ids, message=message)


# ---- names the grammar would split into plain words ------------------------------------------
# An accelerator the catalog does not cover is replaced by this word: an ordinary word after a verb
# (see _COMMON_AFTER_VERB), never a GPU name, a count or own hardware, so nothing else is read into it.
UNSUPPORTED_PLACEHOLDER = "infra"
_NAME_SHAPED = re.compile(r"[a-z][a-z0-9.\-]*\d[a-z0-9.\-]*")


class FoundNames:
    """What `glue_names` took out of a message before the grammar read it."""

    def __init__(self) -> None:
        self.unsupported: list[tuple[str, str]] = []  # (display name, words said)
        self.joined: dict[str, str] = {}  # "llama-4" -> "llama 4": a family glued for the grammar

    def apply(self, reading: Reading) -> Reading:
        """Name an unsupported accelerator in the Reading (a field and a note), never drop it; a
        question about a glued family quotes the words the user wrote."""
        if self.joined and reading.unknown_names:
            problems = tuple(p.model_copy(update={"message": _unglued(p.message, self.joined)}) for p in reading.unknown_names)
            reading = reading.model_copy(update={"unknown_names": problems})
        if not self.unsupported:
            return reading
        displays = list(dict.fromkeys(display for display, _ in self.unsupported))
        updates = {**reading.updates, "unsupported_accelerator": displays[0]}
        notes = [f"“{said}” is {display}, which the catalog does not cover (it sizes GPUs); not replaced by a GPU"
                 for display, said in self.unsupported]
        if len(displays) > 1:
            notes.append(f"also named: {', '.join(displays[1:])}")
        intent = "describe" if reading.intent in ("gibberish", "help") else reading.intent
        return reading.model_copy(update={"updates": updates, "notes": tuple(dict.fromkeys((*reading.notes, *notes))),
                                          "intent": intent})


def glue_names(text: str, resolver: NameResolver | None) -> tuple[str, FoundNames]:
    """Rewrite the names the catalog finds in a normalized message into one name-shaped word.

    "qlora mistral large 2" -> "qlora mistral-large-2": the grammar reads "mistral large 2" as three
    plain words (and "deepseek r1" as a LoRA rank), so the bare "mistral" would be looked up alone.
    A name found whole is replaced by its catalog id; a family that needs a choice ("llama 4") by
    its words joined, which the resolver reads as ambiguous; an accelerator the catalog does not
    cover ("tpu v5e") by a plain word, and noted. Without a resolver that can `find_names`, the
    text is unchanged (one call per message, never a bulk lookup).
    """
    found = FoundNames()
    finder = getattr(resolver, "find_names", None)
    if not callable(finder) or not text:
        return text, found
    try:
        matches = sorted(finder(text), key=lambda m: m.start)
    except Exception:  # a resolver fault must not stop the message from being read
        return text, found
    out: list[str] = []
    position = 0
    for match in matches:
        if match.start < position or match.end > len(text):
            continue
        said = text[match.start:match.end]
        replacement = _glued(match, said)
        if replacement is None:
            continue
        if match.kind == "unsupported":
            found.unsupported.append((match.display or said, said))
        elif replacement != match.id:
            found.joined[replacement] = said
        out += [text[position:match.start], replacement]
        position = match.end
    out.append(text[position:])
    return "".join(out), found


def _glued(match: Any, said: str) -> str | None:
    if match.kind == "unsupported":
        return UNSUPPORTED_PLACEHOLDER
    if match.id and weights_in_name(said) and said == said.strip() and " " not in said:
        return said  # "…-instruct-awq" as written: its format is read when the name is resolved
    if match.id and _NAME_SHAPED.fullmatch(match.id):
        return str(match.id)
    joined = "-".join(said.split())
    if match.candidates and _NAME_SHAPED.fullmatch(joined):
        return joined
    return None


def _unglued(message: str, joined: dict[str, str]) -> str:
    for glued, said in joined.items():
        message = message.replace(f"'{glued}'", f"“{said}”").replace(f"“{glued}”", f"“{said}”")
    return message


def catalog_size(resolver: NameResolver | None, model_id: str | None) -> float | None:
    """Total parameters (billions) of a catalog model, from the resolver's `Resolution.params_b`."""
    if resolver is None or not model_id:
        return None
    try:
        value = getattr(resolver.resolve_model(model_id), "params_b", None)
    except Exception:
        return None
    return float(value) if isinstance(value, int | float) and value > 0 else None


def with_catalog_size(resolver: NameResolver | None, base: Any, updates: dict[str, Any]) -> dict[str, Any]:
    """A named model brings its parameter count (CONTRACT: `params_b` is filled from the catalog
    when a model is named), unless the same message gave a size; a named GPU replaces an
    unsupported accelerator from earlier in the thread."""
    updates = dict(updates)
    if updates.get("model") and updates.get("params_b") is None:
        size = catalog_size(resolver, updates["model"])
        if size is not None:
            updates["params_b"] = size
    if updates.get("gpu") and "unsupported_accelerator" not in updates and getattr(base, "unsupported_accelerator", None):
        updates["unsupported_accelerator"] = None
    return updates


def _shown(found: Any, what: str) -> str:
    """The GPU or provider of a resolved instance as answers name them; the id where the resolver gives no name."""
    name = getattr(found, f"{what}_name", "")
    fallback = getattr(found, "id" if what == "gpu" else "provider", "")
    return name if isinstance(name, str) and name else str(fallback)

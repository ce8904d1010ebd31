"""Hardware phrases read with their neighbours: where the GPUs run, how many per node, what memory.

"2 nodes, 8 GPUs each" multiplies; "on a 4090" / "an H100" is one GPU while "on 4090s" names only the
type; "one 24GB card" is a memory constraint, not a GPU; "run it
on-prem" is own hardware while "data stored locally" is where the data lives. (Which GPU a name
is belongs to `names`.)
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise

from .said import Said

OWN_HARDWARE_NOTE = "own hardware: give the GPU, e.g. “on 2x 4090”, and a price per hour for costs"
_NOT_DATA_BEFORE_LOCALLY = {"data", "dataset", "datasets", "corpus", "files", "bucket", "shards", "stored", "lives",
                            "sits", "kept", "saved"}
_RUN_WORDS = {"run", "runs", "running", "host", "hosted", "hosting", "deployed", "it", "them", "this", "everything"}


def _memory_card(text: str, memory_gb: float, count: int | None) -> Said:
    """'one 24GB card': a GPU-memory constraint, not a GPU. The engine picks the cards that have it."""
    said = Said("hardware", text, {"gpu_count": count} if count else {})
    if memory_gb <= 0:
        return said
    said.values["gpu_memory_gb"] = memory_gb
    said.notes.append(f"{memory_gb:g} GB cards: I'll only consider GPUs with {memory_gb:g} GB")
    return said


def _per_node(items: list[Said]) -> list[Said]:
    """'2 nodes, 8 GPUs each' / '8 GPUs per node on 2 nodes': GPUs per node times the node count."""
    per_node = [s for s in items if s.per_node]
    clusters = [s for s in items if s.kind == "cluster" and "gpu_count" not in s.values]
    if len(per_node) != 1 or len(clusters) != 1:
        return items
    gpus, cluster = per_node[0], clusters[0]
    nodes = int(cluster.values["nodes"])
    gpus.values["gpu_count"] = nodes * (gpus.per_node or 0)
    gpus.notes.append(f"{nodes} nodes × {gpus.per_node} GPUs = {nodes * (gpus.per_node or 0)} GPUs")
    return items


def _own_hardware(items: list[Said]) -> list[Said]:
    """'data stored locally' is where the data lives; 'run it on-prem', 'train on-prem' where it runs."""
    items = list(items)
    for index, said in enumerate(items):
        before = items[max(0, index - 3):index]
        if said.kind == "own_hw" and said.text == "locally":
            if any(s.kind == "data" or s.text in _NOT_DATA_BEFORE_LOCALLY for s in before):
                items[index] = Said("location", said.text, {"data_location": "onprem"})
        elif said.kind == "location" and "prem" in said.text and before:
            previous = next((s for s in reversed(before) if s.text not in ("it", "them", "this", "everything")), before[-1])
            if (previous.kind in ("mode", "soft_mode") or previous.cues & {"train", "finetune"}
                    or previous.text in _RUN_WORDS):
                items[index] = Said("own_hw", said.text, notes=[OWN_HARDWARE_NOTE])
    return items


_MINE = frozenset({"my", "our", "my own", "our own"})
_MINE_AFTER = frozenset({"on", "using", "with", "from"})
_HAVE = (("we", "have"), ("i", "have"), ("we", "own"), ("i", "own"), ("we've", "got"), ("i've", "got"))


def _owned_gpus(items: list[Said]) -> list[Said]:
    """'on my 4090', 'our own RTX 4090', 'we have 2 3090s': GPUs the user has, not a rental (costed at their power,
    as "on prem" is). A singular card is one GPU; "my 4090s" leaves the count to be asked. Before this, only "my
    GPUs", "our cluster" and the like were own hardware, and "on my 4090" was priced as a rented RunPod 4090."""
    items = list(items)
    for index, said in enumerate(items):
        if said.kind == "own_hw" and (said.text.endswith(" own") or said.text.startswith("we own")) and not any(
                s.kind == "hardware" and "gpu" in s.values for s in items[index + 1:index + 2]):
            # "my own" answering "is the RTX 4090 yours or to rent?": the GPUs already in the thread are theirs
            items[index] = replace(said, values={**said.values, "data_location": "onprem"})
            continue
        if said.kind != "hardware" or "gpu" not in said.values or "data_location" in said.values or index == 0:
            continue
        previous = items[index - 1]
        words = previous.text.split()
        mine = (previous.kind in ("filler", "own_hw") and (
            previous.text in _MINE or (len(words) >= 2 and words[0] in _MINE_AFTER and " ".join(words[1:]) in _MINE)))
        have = index >= 2 and (items[index - 2].text, previous.text) in _HAVE
        if not (mine or have):
            continue
        values = {**said.values, "data_location": "onprem"}
        plural = said.text.endswith("s") and not str(said.values["gpu"]).endswith("s")
        if "gpu_count" not in values and not plural:
            values["gpu_count"] = 1
        items[index] = replace(said, values=values)
        if previous.kind == "own_hw":  # the GPU is named now: no "give the GPU" note
            items[index - 1] = Said("filler", previous.text)
    return items


# "on a", "with an": the provider rule reads "on" + a short word as one filler. "Would an MI300X work"
# and "try an H100" ask about the type in a thread, so only these say the count.
_ON_ONE = frozenset(f"{verb} {article}" for verb in ("on", "with", "using", "via") for article in ("a", "an"))


def _one_gpu(items: list[Said]) -> list[Said]:
    """'on a 4090', 'with an H100': one GPU, as 'on 1 4090' would be; a plural ('on 4090s') or a bare
    name ('on H100') leaves the count to the engine ("L40S" ends in s, so the article decides, not the
    spelling). Not in a price question: 'how much is an H100?' asks for the rate, not for single-GPU
    instances only. ("one", "a single" arrive as the number 1 from normalize.py.)"""
    if any("price" in s.cues for s in items):
        return items
    items = list(items)
    for index, said in enumerate(items[1:], start=1):
        previous = items[index - 1]
        if (said.kind == "hardware" and "gpu" in said.values and "gpu_count" not in said.values
                and previous.kind == "filler" and previous.text in _ON_ONE):
            items[index] = replace(said, values={**said.values, "gpu_count": 1})
    return items


_THEM = {"them", "those", "these"}
# "20 of them are active at once", "only 8 of them at once", "50 of them online": people generating at the same
# time, not GPUs
_AT_ONCE = re.compile(r"\b(?:at once|at a time|at the same time|active|concurrent(?:ly)?|online|generating|"
                      r"simultaneous(?:ly)?)\b")  # not "in parallel": GPUs run in parallel too
_ON_THEM = {"on", "with", "across", "using", "over", "onto"}  # "how long on 16 of them?": the GPUs


def _count_of_them(items: list[Said], them: str | None = None) -> list[Said]:
    """'how long on 16 of them?', 'with 4 of those': a count of the GPUs the thread (or the message) names;
    'what if 20 of them are active at once?', or any 'N of them' when the thread's "them" are people (`them` is
    "users": a serving thread with users and no GPU count, or an open question on how many are at once), is
    users at the same time. `them` "unclear" (a serving thread with both a GPU count and users) asks which; `them`
    "files" (a thread on checkpoints: "store 10 of them on S3") leaves it to the storage reading (parser.storage)."""
    out = list(items)
    if them == "files":
        return out
    for index, said in enumerate(items[:-2]):
        if (said.kind == "filler" and len(said.bare) == 1 and said.text.isdigit() and items[index + 1].text == "of"
                and items[index + 2].text in _THEM and int(said.text) >= 1):
            text = f"{said.text} of {items[index + 2].text}"
            after = " ".join(s.text for s in items[index + 3:])
            on = index > 0 and items[index - 1].text in _ON_THEM
            if _AT_ONCE.search(after) or (them == "users" and not on):
                out[index] = Said("concurrency", text, {"concurrency": int(said.text)}, said.cues | {"refine"},
                                  notes=[f"read “{text}” as {said.text} users at the same time (concurrency)"])
            elif them == "unclear" and not on:
                out[index] = Said("filler", said.text, bare=said.bare, notes=[
                    f"“{text}”: {said.text} GPUs or {said.text} users at once? Say “{said.text} GPUs” or "
                    f"“{said.text} at once”"])
                continue
            else:
                out[index] = Said("hardware", text, {"gpu_count": int(said.text)}, said.cues | {"refine"},
                                  notes=[f"read “{text}” as {said.text} GPUs"])
            out[index + 1] = Said("filler", "")
            out[index + 2] = Said("filler", "")
    return out


# Hosts the catalog has no figures for: Apple silicon (unified memory, Metal/MLX) and CPUs. Said, they are named in the
# answer as not covered (`unsupported_accelerator`), as a TPU is, rather than an L4 or H100 planned in silence
_APPLE_CHIP = re.compile(r"\bm([1-5])(?: (pro|max|ultra))?\b")
_APPLE = re.compile(r"\b(?:macbook(?: pro| air)?|mac (?:studio|mini|pro)|imac|macs?|apple silicon|apple m[1-5])\b")
_APPLE_WORDS = {"mac", "macs", "macbook", "macbooks", "studio", "mini", "pro", "air", "imac", "apple", "silicon", "max",
                "ultra", "m1", "m2", "m3", "m4", "m5"}
_CPU = re.compile(r"\b(?:on|using|with|via) (?:an? |the |my |our |just |only )?cpus?\b(?! offload)|\bcpu[ -]only\b|"
                  r"\bcpu (?:inference|serving)\b|\bcpus? only\b")
# between a device and its memory: "m3 max 64GB", "mac studio with 192GB", "a 4090 with 24 GB of VRAM"
_MEMORY_LEADS = {"with", "of", "max", "pro", "ultra", "studio", "mini", "air", "unified", "memory", "ram", "has"}
_DATA_WORDS = {"data", "dataset", "datasets", "corpus", "text", "jsonl", "files", "tokens"}
_MEMORY_AFTER = {"ram", "memory", "unified", "vram", "machine", "laptop", "mac", "macbook", "box", "desktop",
                 "workstation", "server", "node", "card", "gpu"}


def _host_machines(items: list[Said]) -> list[Said]:
    """'fine-tune llama 3.1 8b on my macbook m3 max 64GB', 'serve mistral 7b on cpu': a Mac or a CPU is where the user
    means to run it, which the catalog does not cover: said so (`unsupported_accelerator`), and the memory size beside
    the machine is its memory, not a dataset (64 GB was read as ~16B tokens of training data). The chip ("m3") is no
    unknown model."""
    text = " ".join(s.text for s in items if s.text)
    apple, chip, cpu = _APPLE.search(text), _APPLE_CHIP.search(text), _CPU.search(text)
    if not (apple or cpu or (chip and chip.group(2))):  # a bare "m3" is no Mac: a "pro", "max" or a Mac said with it
        return _machine_memory(items)
    if apple or chip:
        name = f"Apple M{chip.group(1)}" + (f" {chip.group(2).title()}" if chip.group(2) else "") if chip else "Apple silicon"
        said_as = " ".join(m.group(0) for m in (apple, chip) if m)
    else:
        name, said_as = "CPU", cpu.group(0) if cpu else "cpu"
    out = list(items)
    device = -10  # where the machine was last said
    for index, said in enumerate(items):
        words = set(said.text.split())
        if said.kind in ("own_hw", "hardware", "filler") and not said.values and words & (_APPLE_WORDS | {"cpu", "cpus"}):
            out[index] = Said("filler", said.text)  # "m3": the chip, not an unknown model; "on my macbook": no GPU to give
            device = index
            continue
        if said.kind != "data" or "dataset_gb" not in said.values:
            continue
        between = [s.text for s in items[device + 1:index]] if index - device <= 3 else [","]
        following = [s.text for s in items[index + 1:index + 3]] + ["", ""]
        data_said = following[0] in _DATA_WORDS or (following[0] == "of" and following[1] in _DATA_WORDS)
        if not data_said and (all(w in _MEMORY_LEADS for w in between) or following[0] in _MEMORY_AFTER):
            out[index] = Said("filler", said.text, notes=[
                f"read “{said.text.replace(' gb', 'GB')}” as the {'Mac' if name != 'CPU' else 'machine'}'s memory, not "
                "training data"])
    out.append(Said("host", said_as, {"unsupported_accelerator": name}, notes=[
        f"“{said_as}” is {name}, which the catalog does not cover (it sizes NVIDIA and AMD GPUs: no Metal/MLX or CPU "
        "figures); not replaced by a GPU"]))
    return out


def _machine_memory(items: list[Said]) -> list[Said]:
    """'lora 8b on a 64GB machine', '128 GB of RAM': the size of a machine's memory, not training data."""
    out = list(items)
    for index, said in enumerate(items[:-1]):
        following = items[index + 1].text
        if (said.kind == "data" and "dataset_gb" in said.values and following in _MEMORY_AFTER
                and following not in ("card", "gpu")):
            out[index] = Said("filler", said.text, notes=[
                f"read “{said.text.replace(' gb', 'GB')} {following}” as the machine's memory, not training data"])
    return out


_VERSUS = {"or", "vs", "vs.", "versus", "against", "/"}
# words that may sit beside the "or" without making it something else: "on L4 or on T4", "an A100 or an H100"
_VERSUS_FILLER = {"on", "a", "an", "the", "with", "using", "use", "rent", "buy"}
# "is MI325X worth it over MI300X", "B300 over B200": the first GPU weighed against the second
_OVER = {"over", "worth", "it"}


def _joins(between: list[str], compare: bool, listed: bool) -> str | None:
    """How two GPUs said one after the other are joined: "versus" (vs, or, over), "list" (a comma, or "and" in a list
    of three or more, "h100, h200 and b200") or None (something else sits between them: not a comparison)."""
    joined = [w for w in between if w not in _VERSUS_FILLER]
    if not joined:
        return None
    if all(w in _VERSUS or (compare and w == "and") for w in joined):
        return "versus"
    if joined[-1] == "over" and all(w in _OVER for w in joined):
        return "versus"
    if listed and all(w in (",", "and") or w in _VERSUS for w in joined):
        return "versus" if any(w in _VERSUS for w in joined) else "list"
    return None


def _compared_gpus(items: list[Said]) -> list[Said]:
    """'is A100 or H100 cheaper per token', 'compare A100 vs H100 for ...', 'H100 vs H200 vs B200 vs MI300X',
    'H100, H200 or B200', 'is MI325X worth it over MI300X': GPUs set against each other are not values of one field to
    choose between (none was applied, and another GPU was planned). The first is planned; all of them, as said, are
    kept on the second (`Said.compared`) for a question that plans each on the same load."""
    gpus = [i for i, s in enumerate(items) if s.kind == "hardware" and "gpu" in s.values]
    if len(gpus) < 2 or len({items[i].values["gpu"] for i in gpus}) != len(gpus):
        return items
    compare = any(s.text in ("compare", "comparing", "comparison") for s in items)
    joins = [_joins([s.text for s in items[a + 1:b]], compare, len(gpus) > 2) for a, b in pairwise(gpus)]
    if any(j is None for j in joins) or "versus" not in joins and not compare:
        return items
    out = list(items)
    said = tuple(items[i].text for i in gpus)
    for n, index in enumerate(gpus[1:]):
        values = {k: v for k, v in items[index].values.items() if k not in ("gpu", "gpu_count")}
        out[index] = Said("hardware" if values else "filler", items[index].text, values,
                          compared=said if n == 0 else None)
    return out


def _compared_precisions(items: list[Said]) -> list[Said]:
    """'Llama 3.1 70B AWQ int4 vs FP8 on H100 for 50 users, which is cheaper?': two weight precisions set against
    each other are a comparison, not a contradiction to ask back ("which one did you mean?"). Words naming one
    precision ("awq int4") count once; the first is applied, the second kept aside (`Said.compared_precisions`)."""
    said = [i for i, s in enumerate(items) if s.kind == "precision" and "precision" in s.values]
    if len(said) < 2:
        return items
    groups: list[list[int]] = []
    for index in said:
        if groups and items[groups[-1][-1]].values["precision"] == items[index].values["precision"] \
                and all(items[k].kind == "precision" for k in range(groups[-1][-1] + 1, index)):
            groups[-1].append(index)
        else:
            groups.append([index])
    if len(groups) != 2:
        return items
    first, second = groups
    between = [s.text for s in items[first[-1] + 1:second[0]]]
    joined = [w for w in between if w not in _VERSUS_FILLER]
    if not joined or not all(w in _VERSUS for w in joined):
        return items
    values = (str(items[first[0]].values["precision"]), str(items[second[0]].values["precision"]))
    out = list(items)
    for index in second:
        out[index] = Said("filler", items[index].text)
    out[second[0]] = Said("filler", items[second[0]].text, compared_precisions=values)
    return out

"""Online RL fine-tuning said in words (engine.rl sizes it): the method, the group size G, the completion length, beta.

Taken out of the normalized text before the grammar (as parser.asides does), because the grammar reads them as
something else: "16 samples per prompt" as 16 training examples, "num_generations 8" and "beta 0.04" as nothing.
RLOO, DAPO, RLVR, "RL fine-tuning" and "reinforcement learning with verifiable rewards" are critic-free RL sized as
GRPO: they are rewritten "grpo", which the grammar reads as the objective (parser.transformer). A prompt or reply
length in an RL message or thread ("2k-token completions", "500-token prompts") is the rollouts' (`rl_lengths`).
"""

from __future__ import annotations

import re
from typing import Any

from engine.models import RL_OBJECTIVES

from .quantities import _qty
from .reading import Reading

_N = r"(\d+(?:\.\d+)?k?)"
# critic-free online RL the engine sizes as GRPO; RLHF is left as it is (PPO or DPO, said no further)
_CRITIC_FREE = re.compile(r"\b(rloo|dapo|rlvr|dr\.? ?grpo|(?:reinforcement learning|rl) (?:with|from|on|using) "
                          r"verifiable rewards?|rl (?:fine[ -]?tun(?:e|ed|ing)|finetun(?:e|ed|ing)|training)|online rl)\b")
# "16 rollouts per question" with no method said: rollouts scored per prompt are online RL, sized as GRPO
_ROLLOUTS_PER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?k? rollouts?(?: (?:per|for each|each|a)| ?/) ?(?:prompt|question|"
                           r"problem|task)\b")
# an RL run's prompts said as what they are: "20k questions", "10k math problems", "5k coding tasks"
_PROMPT_NOUNS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?[km]?) (?:(?:math|maths|coding|code|reasoning|training|rl) )?"
                           r"(?:questions|problems|tasks|puzzles)\b(?! (?:per|each|a|/) ?(?:step|batch|iteration))")
ROLLOUTS_NOTE = "read “{said}” as online RL (rollouts scored per prompt): sized as GRPO; say “PPO” for a value model"
_RL_SAID = re.compile(r"\b(?:grpo|ppo)\b")
# G: "8 rollouts per prompt", "16 samples per prompt", "8 rollouts/prompt", "8 samples each" (after the prompts: TRL's
# num_generations), "num_generations 8", "group size 16", "16 generations", "g=16"
_PER_PROMPT = re.compile(r"(?<![\w.])" + _N + r" (?:rollouts?|generations?|samples?|completions?|responses?|answers?)"
                         r"(?:(?: (?:per|for each|each|a)| ?/) ?(?:prompt|question|problem)\b"
                         r"| each\b(?! (?:step|iteration|batch|update)))")
_GROUP = re.compile(r"\b(?:num generations|number of generations|group size|g) ?(?:=|:|of|is)? ?(?<![\w.])(\d+)\b")
_BARE_GENERATIONS = re.compile(r"(?<![\w.])(\d+) (?:generations|rollouts)\b")
# TRL's max_completion_length: "max completion length 4096", "max completion 4k", "4k max completion (length)"
_COMPLETION = re.compile(r"\bmax(?:imum)? completion(?: length| len| tokens)? ?(?:=|:|of|is)? ?(?<![\w.])" + _N
                         + r"(?: tokens?)?\b|(?<![\w.])" + _N + r"(?: tokens?)? max(?:imum)? completions?"
                         r"(?: length| len| tokens?)?\b")
# the prompts a step samples (verl's data.train_batch_size, OpenRLHF's rollout_batch_size): "512 prompts per step",
# "128 prompts/step", "a batch of 512 prompts", "rollout batch size 1024", "train_batch_size=512" (not TRL's per-device batch)
_PER_STEP = re.compile(r"(?<![\w.])" + _N + r" (?:prompts?|questions?|problems?)(?: each)?(?: (?:per|a|each|every)| ?/) ?"
                       r"(?:rollout |training |train |optimi[sz]er |rl |gradient )?(?:step|iteration|batch|update)\b")
_BATCH_OF_PROMPTS = re.compile(r"\b(?:(?:rollout|train|training|prompt|global) )?batch(?: size)?(?: of| is| =|=)? ?"
                               r"(?<![\w.])" + _N + r" prompts?\b")
_BATCH_NAMED = re.compile(r"(?<!device )(?<!gpu )\b(?:rollout batch size|(?:data\.)?train batch size|prompts? per "
                          r"(?:step|batch)) ?(?:=|:|of|is)? ?(?<![\w.])" + _N + r"\b(?! (?:tokens?|completions?|"
                          r"samples?|sequences?))")
# "8k completions" beside a group size and a prompt count ("8 rollouts, 50k prompts, 8k completions"): a length
_COMPLETIONS_K = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?k) (?:completions?|responses?|generations?)\b"
                            r"(?! (?:per|for each|each|a|/) ?(?:prompt|question|problem))")
_PROMPT_COUNT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[km]? (?:prompts?|questions?|problems?)\b")
# PPO's value model and a reward model, by size: "an 8b reward model", "reward model of 7b", "a 1b critic"
_SIZE = r"(?<![\w.])(\d+(?:\.\d+)?)b"
_REWARD = re.compile(r"(?:an? )?" + _SIZE + r" (?:reward model|rm|reward)\b|\breward model (?:of |is |with )?(?:an? )?"
                     + _SIZE + r"\b")
_CRITIC = re.compile(r"(?:an? )?" + _SIZE + r" (?:critic|value model|value network|value head model)\b|"
                     r"\b(?:critic|value model) (?:of |is )?(?:an? )?" + _SIZE + r"\b")
_BETA = re.compile(r"\b(?:beta|kl (?:coefficient|coef|penalty|weight)) ?(?:=|:|of|is)? ?(?<![\w.])(\d*\.?\d+)\b")
SERVING_GUESS = "read as serving the model (no training was said"  # parser.fold's note when a length looked like serving
RL_FIELDS = frozenset({"rl_generations", "rl_completion_tokens", "rl_prompt_tokens", "rl_kl_beta", "rl_critic_params_b",
                       "rl_reward_params_b"})
CRITIC_FREE_NOTE = ("“{said}” is critic-free online RL: sized as GRPO (the same rollouts, reward scoring and policy "
                    "training, no value model)")


def take_rl(text: str, notes: list[str], defaults: dict[str, Any]) -> str:
    """The normalized text with the RL phrases taken out (the method rewritten "grpo"), their values put in
    `defaults` (Workload fields) and a note for a method read as GRPO. Group sizes and "max completion length" are
    read where RL is said or as a message of their own (an RL thread's follow-up: "16 generations", "beta 0.04")."""
    found = _CRITIC_FREE.search(text)
    if found is not None:
        said = found.group(1)
        notes.append(CRITIC_FREE_NOTE.format(said=said.upper() if len(said) <= 5 else re.sub(r"\brl\b", "RL", said)))
        text = _CRITIC_FREE.sub(" grpo ", text, count=1)
    rl = bool(_RL_SAID.search(text))
    rolled = _ROLLOUTS_PER.search(text)
    if not rl and rolled is not None and not _alone(text, _ROLLOUTS_PER):
        notes.append(ROLLOUTS_NOTE.format(said=rolled.group(0)))
        text, rl = f"grpo , {text}", True
    for pattern in (_PER_PROMPT, _GROUP, _BARE_GENERATIONS):
        m = pattern.search(text)
        if m is None or not (rl or _alone(text, pattern)):  # "serve it, 16 samples per prompt" is no RL: left as said
            continue
        if 1 <= _qty(m.group(1)) <= 1024 and "rl_generations" not in defaults:
            defaults["rl_generations"] = int(_qty(m.group(1)))
            text = f"{text[:m.start()]} , {text[m.end():]}"
    if rl:  # "20k questions" in an RL message: the prompts it samples from (TRL's prompt dataset)
        text = _PROMPT_NOUNS.sub(r"\1 prompts", text)
    m = _COMPLETION.search(text)
    if m is not None and (rl or _alone(text, _COMPLETION)):
        defaults["rl_completion_tokens"] = int(_qty(m.group(1) or m.group(2)))
        text = f"{text[:m.start()]} , {text[m.end():]}"
    m = _BETA.search(text)
    if m is not None and (rl or _alone(text, _BETA)):
        defaults["rl_kl_beta"] = float(m.group(1))
        text = f"{text[:m.start()]} , {text[m.end():]}"
    return _rl_batch_and_models(text, defaults, rl)


def _rl_batch_and_models(text: str, defaults: dict[str, Any], rl: bool) -> str:
    """In an RL message, or as a message of its own (an RL thread's follow-up: "512 prompts per step", "with an 8B
    reward model"): the prompts per step (`global_batch`, counted in prompts: engine.models.steps_tokens), a
    bare "8k completions" beside a group size and a prompt count (the completion length: nobody samples 8,000
    completions beside "8 rollouts"), and the sizes of a reward model and of PPO's value model, taken out so the
    grammar reads none of them as the dataset or the model."""
    for pattern in (_PER_STEP, _BATCH_OF_PROMPTS, _BATCH_NAMED):
        m = pattern.search(text)
        if m is None or not (rl or _alone(text, pattern)):
            continue
        if 1 <= _qty(m.group(1)) <= 1e7 and "global_batch" not in defaults:
            defaults["global_batch"] = int(_qty(m.group(1)))
            text = f"{text[:m.start()]} , {text[m.end():]}"
    m = _COMPLETIONS_K.search(text)
    # beside a prompt count, or the prompts per step just read ("128 prompts per step, 8 generations, 2k completions")
    if (m is not None and rl and "rl_generations" in defaults
            and (_PROMPT_COUNT.search(text) or "global_batch" in defaults)
            and "rl_completion_tokens" not in defaults and 128 <= _qty(m.group(1)) <= 1_000_000):
        defaults["rl_completion_tokens"] = int(_qty(m.group(1)))
        text = f"{text[:m.start()]} , {text[m.end():]}"
    for pattern, name in ((_REWARD, "rl_reward_params_b"), (_CRITIC, "rl_critic_params_b")):
        m = pattern.search(text)
        if m is not None and (rl or _alone(text, pattern)):
            size = float(next(g for g in m.groups() if g))
            if 0 < size <= 10_000:
                defaults.setdefault(name, size)
                text = f"{text[:m.start()]} , {text[m.end():]}"
    return text


def _alone(text: str, pattern: re.Pattern[str]) -> bool:
    """The phrase is about all the message says ("16 generations", "beta 0.04"): a follow-up in an RL thread."""
    return len(pattern.sub("", text).replace(",", " ").split()) <= 2


def rl_lengths(objective: str | None, updates: dict[str, Any], notes: list[str]) -> bool:
    """In an RL message or thread, a prompt or reply length said is the rollouts': "2k-token completions" is the
    completion length (the grammar reads it as a served reply), "500-token prompts" the prompt's. True when one moved."""
    if updates.get("objective", objective) not in RL_OBJECTIVES:
        return False
    moved = False
    for said, field, what in (("output_tokens", "rl_completion_tokens", "completion"),
                              ("input_tokens", "rl_prompt_tokens", "prompt")):
        value = updates.pop(said, None)
        if value:
            updates.setdefault(field, int(value))
            notes.append(f"read {int(value):,} tokens as the rollouts' {what} length")
            moved = True
    if updates.get("intent") == "serve" and updates.get("objective") in RL_OBJECTIVES:
        updates["intent"] = "train"  # the lengths made it look like serving; RL is training
    return moved


def rl_reading(reading: Reading, current: Any = None) -> Reading:
    """A message's reading with its prompt and reply lengths taken as the rollouts' when the message or the thread
    (`current`, a Workload) is online RL; unchanged otherwise."""
    updates, notes = dict(reading.updates), list(reading.notes)
    moved = rl_lengths(getattr(current, "objective", None), updates, notes)
    intent = reading.intent
    if intent in ("gibberish", "help", "answer") and set(updates) <= RL_FIELDS | {"global_batch"} and updates:
        intent = "refine"  # "16 generations", "beta 0.04" in a thread: a change to the run, not an answer
    if updates == reading.updates and intent == reading.intent:
        return reading
    guessed = [n for n in notes if n.startswith(SERVING_GUESS)]
    if guessed and moved:  # "2k-token completions" in an RL thread read as serving: the run's completions instead
        notes = [n for n in notes if n not in guessed]
        updates.pop("mode", None)
        updates.pop("intent", None)
    elif updates.get("mode") == "inference" and updates.get("objective") in RL_OBJECTIVES:
        del updates["mode"]  # a length read as serving; the method said sets the mode
    return reading.model_copy(update={"updates": updates, "notes": tuple(dict.fromkeys(notes)), "intent": intent})


__all__ = ["CRITIC_FREE_NOTE", "rl_lengths", "rl_reading", "take_rl"]

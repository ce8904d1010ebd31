"""The one place that wires catalog + parser + engine; Slack listeners and the CLI both call it.

It holds no estimation logic: text goes through the parser's `Conversation`, the resulting
workload through `engine.advise`, and `engine.diff.compare` says what a refinement changed. The
result is a `Response`, which `bot.render` (Slack) and `bot.terminal` (CLI) present.

The other packages are imported inside `Advisor.open` so that `bot.limits`, `bot.state` and the
transports can be imported (and tested) on their own.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bot.compared import AtProvider
from engine.advise import RENTED_NOWHERE_NOTE
from engine.contract import CONTRACT_WORKLOAD_KEYS
from engine.models import Advice, Figure, Workload
from engine.recommendation import recommended
from parser import (
    CAPACITY_CUE,
    RATE_CUE,
    VERSUS_CUE,
    VERSUS_SEP,
    capacity_asked,
    max_context_asked,
    request_rate_asked,
)
from parser.budget_first import budget_first, budget_words, training_data_said
from parser.fleet import OWN_CLUSTER_CUE
from parser.owning import BUY_RENT_CUE, LOCAL_CUE
from parser.reserve import RESERVE_CUE

if TYPE_CHECKING:  # imported when a budget-first question is asked, not at every start (cold start)
    from catalog.records import CatalogData
    from engine.budget_ladder import Rung

log = logging.getLogger(__name__)

# Intents for which the engine is not run: nothing new to compute.
NO_ESTIMATE_INTENTS = {"help", "gibberish"}
ALREADY_THE_SCENARIO = "nothing changed: that is already the scenario"


class ConversationLike(Protocol):
    """What the bot needs from `parser.Conversation` (see docs/interfaces.md)."""

    def turn(self, text: str) -> Any: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass
class Capacity:
    """A capacity question's answer ("how many users can 8 H100s serve Llama 3.1 70B to?"), from the plan sized for
    one stream: the users it holds at the speed floor, the sequences its memory holds and at what context, and, when
    a rate was asked, the requests per second those users complete."""

    users: int
    floor: str
    sequences: int
    context: str
    gpus: int
    gpu: str
    requests_per_s: Figure | None = None
    # a monthly budget said ("we have $20k/month, how many users?"): the users it keeps at the floor, on the plan
    # `gpus` x `gpu` costing `usd_per_month`; other GPUs within it as (gpu, gpus, users, usd a month)
    budget_usd_per_month: float | None = None
    usd_per_month: float | None = None
    alternatives: tuple[tuple[str, int, int, float], ...] = ()


@dataclass(frozen=True)
class ContextRoom:
    """"What's the max context for Llama 3.1 70B on 2x H100 in FP8?": the KV cache room the plan leaves after the
    weights (its room note: sequences held x their context, KV being linear in tokens), capped at the model's window."""

    tokens: int  # the longest one sequence can be
    window: int | None  # the model's own context window (None for a size with no catalog model)
    room_tokens: int  # tokens of KV cache one replica holds in all
    at_longest: int  # sequences of `tokens` one replica holds at once


def context_room(advice: Advice | None, data: CatalogData) -> ContextRoom | None:
    from engine.offer_plans import room_figures

    if advice is None or advice.cluster is None or not advice.cluster.fits:
        return None
    room = room_figures(advice.cluster)
    if room is None:
        return None
    room_tokens = int(room[0].replace(",", "")) * int(room[1].replace(",", ""))
    model = data.model(advice.effective.model) if advice.effective.model else None
    window = model.max_context if model is not None and model.max_context else None
    longest = min(room_tokens, window) if window else room_tokens
    return ContextRoom(longest, window, room_tokens, room_tokens // longest if longest else 0)


@dataclass(frozen=True)
class GpuPlan:
    """One of two GPUs asked about together, planned on the same load: what the answer compares them by."""

    gpu: str
    advice: Advice
    capacity: Capacity | None  # serving with no load said: the GPUs planned full, at the users they hold
    gpus: int
    usd_per_month: float | None
    usd_per_1m_tokens: float | None  # serving: per 1M output tokens at the load planned (at capacity with no load said)
    usd_per_run: float | None  # training
    hours_per_run: float | None
    tokens_per_s_per_user: float | None
    # "an L4 or a T4" for an 8B model: one T4 cannot hold it; the comparison says so instead of dropping both
    fits: bool = True
    need_gb: float | None = None  # per GPU, when it does not fit
    label: str = ""  # a precision comparison: the weights ("int4", "fp8"); "" when GPUs are compared
    rescaled_from: int | None = None  # the GPU count said, where neither side kept the speed floor on it
    # compared on a provider with an SLA where the plan shown picks a marketplace host (the Cost line's price differs)
    sla_only: bool = False
    # a precision comparison won by the model's published weights over a 4/8-bit quant of them at the same cost
    published: bool = False
    option: str = ""  # the option of `advice` the figures above are (its pick, or the pick with an SLA)
    # two GPUs compared: that option's provider and shape, and the side's best plan at the provider renting both
    # (`bot.compared`), by which the two are ordered; None when no provider rents both
    own: AtProvider | None = None
    shared: AtProvider | None = None


def published_first(faster: GpuPlan, published: GpuPlan, native: str, cost: float, other_cost: float) -> bool:
    """"FP8 or int4 for DeepSeek-V3 on 8x H200, 100 users": both plans cost $20,440, and the 4-bit one ranked first
    for 24.1 against 19.5 tokens/s per user, under the 20 floor by 2.5%. At the same cost the model's published
    weights win over a quant of them (quality risk for a speed gain within the estimate's own error): the published
    side's only shortfall may be the unstated speed floor, missed by no more than SPEED_TARGET_MARGIN."""
    from engine.published import QUANTISED
    from engine.serving import SPEED_TARGET_MARGIN, user_floor

    if (not (faster.fits and published.fits) or faster.label not in QUANTISED or published.label != native
            or abs(cost - other_cost) > 0.005 * max(cost, other_cost)):
        return False
    advice = published.advice
    if any(not t.met for t in (advice.throughput.targets if advice.throughput else ())):
        return False  # a target the user stated (speed, rate, users) is theirs to trade, not a tie
    speed = published.tokens_per_s_per_user or 0.0
    return speed >= (1 - SPEED_TARGET_MARGIN) * user_floor(advice.effective)


@dataclass
class Response:
    """One answer: what the user said, what the parser understood and what the engine computed."""

    text: str
    intent: str
    workload: Workload | None
    advice: Advice | None
    changes: list[str] = field(default_factory=list)  # engine.diff lines for a refinement
    questions: list[str] = field(default_factory=list)  # at most two, from the parser
    notes: list[str] = field(default_factory=list)  # conflicts, unknown names, parser notes
    conversation: ConversationLike | None = None
    missing: list[str] = field(default_factory=list)
    question_fields: list[str] = field(default_factory=list)  # the Workload field each question fills
    prices: Any = None  # bot.prices.PriceTable when the message was a price question ("how much is an H100?")
    hardware: Any = None  # bot.caveats.HardwareKinds: which GPUs are consumer cards, which providers marketplaces
    # "how many users can 8 H100s serve?": what the GPUs hold, read from the one-stream plan; `advice` is sized for it
    capacity: Capacity | None = None
    # "is A100 or H100 cheaper?": both planned, the cheaper first; "H100 vs H200 vs B200", a row each, and "which GPU is
    # best per dollar" (`ranked`), a row per GPU type the catalog rents, at $ per 1M output tokens with the GPUs full
    compared: tuple[GpuPlan, ...] | None = None
    ranked: bool = False
    # "$20k a month, what's the biggest model we can serve for 100 users?": a ladder of models on that load; `advice`
    # is the largest within the budget (else the smallest). A fine-tune's ("… fine-tune for $1000 on 100M tokens?"):
    # the models fine-tuned on that data, in the method said or in QLoRA then full; `advice` is the first method's
    ladder: tuple[Rung, ...] | None = None
    # nothing planned yet, and why: the line said before the questions instead of the help text ("the biggest model
    # $1,000 a run fine-tunes depends on the tokens a run trains on")
    lead: str = ""
    storage: Any = None  # bot.storage.StorageAnswer for a checkpoint-size, storage or transfer question
    # "distill Llama 3.1 405B into 8B …": the teacher's generation and the student's fine-tune (bot.distill.DistillAnswer)
    distill: Any = None
    # "16 samples per prompt … then score them", "lm-eval on 10 benchmarks", "biggest model chinchilla-optimal":
    # an offline job in stages or by arithmetic (bot.offline_jobs.OfflineAnswer)
    offline: Any = None
    # "what GPU do I need to run Llama 3.1 8B locally?": the cards to buy (engine.local.LocalAnswer); `advice` is
    # planned on the pick, or on the user's own card
    local: Any = None
    # "should we buy or rent 8 H100s?" with no model: the break-even (engine.buy_or_rent.BreakEven); no `advice`
    buy_or_rent: Any = None
    # "reserve 8 H100s for a year or on-demand 6 h a day?" with no model: both bills (bot.reserve.ReserveAsked); no
    # `advice`
    reserve: Any = None
    # "how much VRAM do I need to run Llama 3.1 70B?": answered as /vram answers (memory per GPU and by precision)
    vram_asked: bool = False
    context_room: ContextRoom | None = None  # "what's the max context on these GPUs?"
    # "train a 7B on 500 A100s for 2 hours": what the fleet trains in the window (engine.fleet_window.FleetWindow);
    # `advice` is planned on those tokens
    window: Any = None
    # "how many GPUs on our slurm cluster …" with no GPU named: the job per common type, owned
    # (engine.fleet_window.OwnedType rows); `advice` is the plan on the H100 as the team's own
    owned_types: Any = None
    # "… vs gpt-4o-mini api": the hosted API's bill beside the plan, or alone when no model was named
    # (bot.api_compare.ApiAnswer); the thread keeps the API named until a new question
    api: Any = None
    # "serve gemma 3 27b on sagemaker vs ec2": the same plan on the managed service and its cloud's own VMs, the
    # premium between them (bot.managed.ManagedVsOwn)
    managed: Any = None

    @property
    def has_scenario(self) -> bool:
        """True when there is a workload worth keeping for the thread."""
        return self.advice is not None

    def stored_advice(self) -> Advice | None:
        """The answer as the thread keeps it: the options a later layer can show (bot.stored)."""
        from bot.stored import stored_advice

        return stored_advice(self.advice) if self.advice else None

    def advice_json(self) -> str | None:
        stored = self.stored_advice()
        return stored.model_dump_json() if stored else None


# the second GPU of "8x H200 or 8x B200" as the parser keeps it ("8 x b200"): its count and its name
_COUNTED_GPU = re.compile(r"^\s*(\d+)\s*x\s*(.+)$")
# a memory question ("how much VRAM do I need to run …", "how many GB of GPU memory for …"): the /vram answer
_VRAM_ASKED = re.compile(r"\bhow much (?:gpu |vram|video |gpu memory|memory)|\bhow many (?:gb|gigabytes) (?:of )?"
                         r"(?:vram|gpu memory|memory)|\bvram (?:do|does|would|will) (?:i|we|it)\b|\bvram (?:needed|"
                         r"required|requirements?)\b", re.IGNORECASE)
_FULL_LOAD = re.compile(r"\b(?:at|under) (?:full|max(?:imum)?|peak) (?:load|utili[sz]ation|capacity)\b|\bsaturat\w*|"
                        r"\bfully (?:utili[sz]ed|loaded)\b", re.IGNORECASE)
_PER_TOKEN = re.compile(r"\bper (?:token|million|1m|mtok)\b|/\s?1m\b|\bper 1,000,000\b", re.IGNORECASE)
_UNIT_COST = re.compile(r"\bunit (?:cost|economics)\b", re.IGNORECASE)
# "best tokens/s per dollar", "tokens per $", "cost per token", "at high batch", "throughput per dollar": GPUs ranked by
# $ per 1M output tokens with them full, not sized for one stream (where the cheapest GPU a month is the dearest per token)
_PER_DOLLAR = re.compile(r"\bper (?:dollar|\$|buck)|\btokens? ?(?:/|per) ?\$|/\s?\$|\bcost per (?:output )?token\b|"
                         r"\b(?:at |with )?(?:high|large|big|max(?:imum)?) batch(?:es| sizes?)?\b|\bat saturation\b|"
                         r"\bthroughput per\b|\b(?:most|best) (?:cost[- ]effective|value)\b", re.IGNORECASE)
RANKED_ROWS = 6  # GPU types in a per-dollar ranking's table: the cheapest per token, then the flagged (no SLA, GeForce)


BUDGET_OTHER_GPUS = "within "  # "within $20,000 a month on other GPUs …": beside the users a budget keeps
ALL_AT_ONCE_NOTE = "all "  # "all 2,000 at once (the upper bound): …", beside a headcount sized for a share at once


# the method asked of a model the engine planned as served (no verb said): the figures below are serving's
SERVING_ASSUMED_QUESTION = ("Serve it (inference), or train it? Sized for serving until you say “fine-tune” (QLoRA, "
                            "LoRA or full) or “pretrain”.")


def per_dollar_asked(text: str) -> bool:
    """"Which GPU gives the best tokens/s per dollar … at high batch": a cost per token, with the GPUs full."""
    return bool(_PER_DOLLAR.search(text or ""))


def unit_cost_asked(text: str) -> bool:
    """"Cost per million tokens …", "unit economics": a price per token asked (served with the GPUs full)."""
    return bool(_PER_TOKEN.search(text or "") or _UNIT_COST.search(text or ""))


def _capacity_contract(capacity: Capacity | None) -> dict[str, Any] | None:
    """`capacity` in `ask --json` (docs/json.md): what a capacity question's GPUs hold; None for other questions."""
    if capacity is None:
        return None
    rate = capacity.requests_per_s
    return {"gpu": capacity.gpu, "gpus": capacity.gpus, "users": capacity.users,
            "tokens_per_s_per_user_floor": float(capacity.floor), "sequences_in_memory": capacity.sequences,
            "context_tokens": int(capacity.context.replace(",", "")),
            "requests_per_s": round(rate.value, 3) if rate is not None else None,
            "reply_tokens": int(rate.inputs["reply_tokens"]) if rate is not None else None,
            "budget_usd_per_month": capacity.budget_usd_per_month,
            "usd_per_month": round(capacity.usd_per_month, 2) if capacity.usd_per_month is not None else None,
            "within_budget": [{"gpu": gpu, "gpus": gpus, "users": users, "usd_per_month": round(usd, 2)}
                              for gpu, gpus, users, usd in capacity.alternatives]}


def _max_context_contract(room: ContextRoom | None, advice: Advice | None) -> dict[str, Any] | None:
    """`max_context` in `ask --json` (docs/json.md): the answer to "what's the max context on these GPUs?" (the
    text's 📏 line); None for other questions."""
    if room is None or advice is None or advice.cluster is None:
        return None
    return {"tokens": room.tokens, "model_window_tokens": room.window, "kv_cache_tokens": room.room_tokens,
            "sequences_at_max": room.at_longest, "gpu": advice.cluster.gpu, "gpus": advice.cluster.gpus,
            "precision": advice.effective.precision, "limited_by": "window" if room.window and room.tokens >= room.window
            else "memory"}


def _compared_contract(plan: GpuPlan) -> dict[str, Any]:
    """One entry of `compared_gpus` in `ask --json` (docs/json.md)."""
    def num(value: float | None, digits: int = 4) -> float | None:
        return None if value is None or not math.isfinite(value) else round(value, digits)

    return {"gpu": plan.gpu, "gpus": plan.gpus, "usd_per_month": num(plan.usd_per_month, 2),
            "usd_per_1m_output_tokens": num(plan.usd_per_1m_tokens), "usd_per_run": num(plan.usd_per_run, 2),
            "hours_per_run": num(plan.hours_per_run, 3), "tokens_per_s_per_user": num(plan.tokens_per_s_per_user, 2),
            "users_held": plan.capacity.users if plan.capacity is not None else None, "fits": plan.fits,
            "precision": plan.label or None,
            "provider": plan.own.provider if plan.own is not None else None,
            "option": plan.option if plan.own is not None else None,
            "replicas": plan.own.replicas if plan.own is not None else None,
            "gpus_per_replica": plan.own.gpus_per_replica if plan.own is not None else None,
            "same_provider": _at_provider_contract(plan.shared, num) if plan.shared is not None else None}


def _at_provider_contract(at: AtProvider, num: Any) -> dict[str, Any]:
    """`compared_gpus[].same_provider` in `ask --json` (docs/json.md): the side's plan at the provider renting both."""
    return {"provider": at.provider, "option": at.option, "gpus": at.gpus, "usd_per_month": num(at.usd_per_month, 2),
            "usd_per_1m_output_tokens": num(at.usd_per_1m_tokens), "usd_per_run": num(at.usd_per_run, 2),
            "hours_per_run": num(at.hours_per_run, 3), "tokens_per_s_per_user": num(at.tokens_per_s_per_user, 2),
            "replicas": at.replicas, "gpus_per_replica": at.gpus_per_replica}


def _rung_contract(rung: Rung) -> dict[str, Any]:
    """One entry of `budget_ladder` in `ask --json` (docs/json.md)."""
    option = rung.option
    def num(value: float | None, digits: int) -> float | None:
        return None if value is None else round(value, digits)

    return {"model": rung.model, "params_b": rung.params_b, "mode": rung.mode,
            "usd_per_month": num(rung.usd_per_month, 2), "tokens_per_s_per_user": num(rung.tokens_per_s_per_user, 2),
            "usd_per_run": num(rung.usd_per_run, 2), "hours_per_run": num(rung.hours_per_run, 3),
            "gpus": option.cluster.gpus if option is not None else None,
            "gpu": option.cluster.gpu if option is not None else None, "within_budget": rung.within}


def _text_of(item: Any) -> str:
    """Questions / conflicts / problems arrive as objects or strings; the bot shows their text."""
    if isinstance(item, str):
        return item
    for attr in ("text", "message", "question", "prompt"):
        value = getattr(item, attr, None)
        if isinstance(value, str) and value:
            return value
    return str(item)


def _names_of(items: Sequence[Any]) -> list[str]:
    return [t for t in (_text_of(i) for i in items or ()) if t]


class ThreadConfinedCatalog:
    """Runs every catalog call on the one thread that opened it, and remembers the answers to reads.

    Why: the catalog holds a sqlite3 connection, which by default refuses use from any other
    thread, while Bolt runs listeners on a thread pool. Confining the calls keeps the catalog
    package free of threading concerns; its answers are immutable records, safe to hand over.
    Why the memo: a turn asks the same few reads (`data()`, name resolutions) every time, and each
    hand-off to the catalog's thread costs a context switch and a GIL round trip (about 0.3 ms on a
    busy 2-core machine). Answers of `READS` are kept (bounded) until a write goes through `run`.
    """

    READS = frozenset({"data", "gpus", "models", "providers", "offers", "find_names", "resolve_model", "resolve_gpu",
                       "resolve_provider", "resolve_instance"})
    MEMO_MAX = 4096

    def __init__(self, opener: Any) -> None:
        import threading
        from concurrent.futures import ThreadPoolExecutor

        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="catalog")
        self._catalog = self._executor.submit(opener).result()
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._memo_lock = threading.Lock()

    def run(self, fn: Any, *args: Any) -> Any:
        """`fn(catalog, *args)` on the catalog's thread (a write such as storing refreshed prices)."""
        try:
            return self._executor.submit(fn, self._catalog, *args).result()
        finally:
            with self._memo_lock:
                self._memo.clear()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._catalog, name)
        if not callable(attr):
            return attr
        if name not in self.READS:  # possibly a write: what was remembered may be stale after it
            def call(*args: Any, **kwargs: Any) -> Any:
                try:
                    return self._executor.submit(attr, *args, **kwargs).result()
                finally:
                    with self._memo_lock:
                        self._memo.clear()

            return call

        def read(*args: Any, **kwargs: Any) -> Any:
            key = (name, args, tuple(sorted(kwargs.items())))
            try:
                with self._memo_lock:
                    if key in self._memo:
                        value = self._memo[key]
                        return list(value) if isinstance(value, list) else value  # callers may sort a list
            except TypeError:  # an unhashable argument: not remembered
                return self._executor.submit(attr, *args, **kwargs).result()
            value = self._executor.submit(attr, *args, **kwargs).result()
            with self._memo_lock:
                if len(self._memo) >= self.MEMO_MAX:
                    self._memo.clear()
                self._memo[key] = value
            return list(value) if isinstance(value, list) else value

        return read


class Advisor:
    """Holds the catalog and runs one turn of a conversation end to end."""

    def __init__(self, catalog: Any, *, conversation_factory: Any = None, advise: Any = None,
                 compare: Any = None, to_contract: Any = None, hub: Any = None) -> None:
        self.catalog = catalog
        self.hub = _hub_resolver(catalog, hub)  # bot.hub_names.HubResolver, or None: no Hub lookups
        self._conversation_factory = conversation_factory
        self._advise = advise
        self._compare = compare
        self._to_contract = to_contract
        self._names: dict[str, str] | None = None
        self._kinds: Any = None

    @classmethod
    def open(cls, catalog_path: str | Path | None = None, extra_data_dirs: Sequence[Path] = (),
             hub_settings: Any = None, *, confined: bool = True) -> Advisor:
        """Open the real catalog (plus rows imported with `gpu-advisor catalog import-*`) and bind
        the real parser and engine; `hub_settings` (`catalog.hub.HubSettings`) turns Hub lookups on. `confined`:
        the catalog's connection kept on its own thread, for a server's listener pool; a one-shot command runs on
        one thread and opens it directly (no executor to import and start)."""
        from catalog import open_catalog
        from engine import advise
        from engine.contract import to_contract
        from engine.diff import compare
        from parser import Conversation, use_grammar_cache

        if catalog_path is not None:  # the same cache directory keeps the compiled grammar
            use_grammar_cache(str(Path(catalog_path).with_name("grammar.lark.cache")))
        dirs = [Path(d) for d in extra_data_dirs if Path(d).is_dir()]

        def opener() -> Any:
            # The database file is a cache of the reviewed data files (rebuilt when they change);
            # if it cannot be written, the same catalog is built in memory instead.
            if catalog_path is not None:
                try:
                    return open_catalog(catalog_path, extra_data_dirs=dirs)
                except Exception as exc:  # unwritable cache dir, corrupt file: the answer must not depend on it
                    log.warning("catalog database %s unusable (%s): building it in memory", catalog_path, type(exc).__name__)
            return open_catalog(None, extra_data_dirs=dirs)

        return cls(
            ThreadConfinedCatalog(opener) if confined else opener(),
            conversation_factory=Conversation,
            advise=advise,
            compare=compare,
            to_contract=to_contract,
            hub=_hub_client(hub_settings, catalog_path),
        )

    def change_names(self) -> dict[str, str]:
        """Catalog ids -> names for a refinement's "what changed" line: GPUs and models as replies name them, and
        providers ("aws" -> "AWS (EC2)")."""
        names = dict(self.display_names())
        try:
            names.update({p.id: p.name for p in self.catalog.providers()})
        except Exception:  # a catalog without providers: ids are shown as they are
            log.debug("catalog has no providers listing")
        return names

    def display_names(self) -> dict[str, str]:
        """GPU and model ids -> display names ("h100-sxm" -> "H100 SXM5 80GB"), for replies."""
        if self._names is None:
            names: dict[str, str] = {}
            for kind in ("gpus", "models"):
                try:
                    names.update({r.id: r.name for r in getattr(self.catalog, kind)()})
                except Exception:  # a catalog without that listing: ids are shown as they are
                    log.debug("catalog has no %s listing", kind)
            self._names = names
        if self.hub is not None:
            return {**{m.id: m.hf_repo or m.name for m in self.hub.models()}, **self._names}
        return self._names

    # --- conversations -----------------------------------------------------------------------
    @property
    def resolver(self) -> Any:
        """The catalog answers name look-ups (its `Resolution` satisfies the parser's NameResolver);
        with Hub lookups on, wrapped so repo ids and unknown sized names are looked up there."""
        return self.hub if self.hub is not None else self.catalog

    def new_conversation(self) -> ConversationLike:
        return self._conversation_factory(resolver=self.resolver)

    def load_conversation(self, data: Mapping[str, Any] | None) -> ConversationLike:
        if not data:
            return self.new_conversation()
        return self._conversation_factory.from_dict(dict(data), self.resolver)

    def respond(self, conversation: ConversationLike, text: str, previous: Advice | None = None) -> Response:
        """Run one turn: parse `text` in the thread's context, estimate, and diff against `previous`."""
        if self.hub is not None:
            self.hub.begin_turn(text)
        turn = conversation.turn(text)
        intent = str(getattr(turn, "intent", "describe") or "describe")
        if intent == "prices":  # answered from the catalog's offers; the thread's scenario is untouched
            return Response(text, intent, getattr(turn, "workload", None), previous, conversation=conversation,
                            notes=_names_of(getattr(turn, "notes", ())), prices=self.price_table(turn.reading))
        if intent == "storage":  # a checkpoint's size or a storage/transfer bill (bot.storage); the scenario is untouched
            return Response(text, intent, getattr(turn, "workload", None), previous, conversation=conversation,
                            notes=_names_of(getattr(turn, "notes", ())), storage=self.storage_answer(turn.storage))
        # a distillation, or a follow-up in its thread (parser.conversation keeps its kind): the two stages again
        distill = getattr(turn, "distill", None) or getattr(getattr(turn, "reading", None), "distill", None)
        if distill is not None:  # two stages, each planned (bot.distill): not one job on the teacher
            return Response(text, intent, getattr(turn, "workload", None), previous, conversation=conversation,
                            notes=_names_of(getattr(turn, "notes", ())),
                            distill=self.distill_answer(distill, before=getattr(turn, "distill_before", None),
                                                        notes=tuple(getattr(turn, "distill_notes", ()) or ())))
        # rejection sampling with a reward pass, an eval suite, a compute-optimal size (bot.offline_jobs): in stages
        offline = getattr(getattr(turn, "reading", None), "offline", None)
        answered = self.offline_answer(offline, getattr(turn, "workload", None)) if offline is not None else None
        if answered is not None:
            return Response(text, intent, getattr(turn, "workload", None), previous, conversation=conversation,
                            notes=_names_of(getattr(turn, "notes", ())), offline=answered)
        workload: Workload | None = getattr(turn, "workload", None)
        # conflicts come back as questions too, so only notes and unknown names are listed here
        asked = [(_text_of(q), str(getattr(q, "field", "") or "")) for q in getattr(turn, "questions", ()) or ()]
        asked = [(text, name) for text, name in asked if text]
        # an unknown name the open questions ask about ("Unknown GPU 'h900'. Did you mean ...?") is said there, once
        notes = _names_of(getattr(turn, "notes", ())) + [
            n for n in _names_of(getattr(turn, "unknown_names", ())) if not any(n in text for text, _ in asked)]
        if self.hub is not None:
            notes += self.hub.turn_notes()
        advice: Advice | None = previous
        # the engine's diff names each changed field and what it did to the answer; the parser's
        # field list is the fallback when the engine had nothing to compare
        parsed_changes: list[str] = []
        if previous is not None and intent in ("refine", "answer", "undo"):
            parsed_changes = [_change_line(k, v) for k, v in (getattr(turn, "changed", None) or {}).items()]
        changes: list[str] = []
        capacity: Capacity | None = None
        compared: tuple[GpuPlan, ...] | None = None
        local: Any = None
        owned_rows: Any = None
        window: Any = None
        thread_cues = getattr(conversation, "cues", None) or set()
        if (intent not in NO_ESTIMATE_INTENTS and workload is not None and BUY_RENT_CUE in thread_cues
                and _owning().buy_or_rent_only(workload, thread_cues)):
            # "should we buy or rent 8 H100s?": the break-even needs no model, and is the whole answer
            return Response(text, intent, workload, None, [], [], notes, conversation,
                            buy_or_rent=_owning().break_even_said(workload, thread_cues, self.catalog_data()))
        if (intent not in NO_ESTIMATE_INTENTS and workload is not None and RESERVE_CUE in thread_cues
                and _reserve().reserve_only(workload, thread_cues)):
            # "is it cheaper to reserve 8xH100 for a year or use on-demand for 6 hrs a day?": catalog rows, no model
            return Response(text, intent, workload, None, [], [], notes, conversation,
                            reserve=_reserve().reserve_said(workload, thread_cues, self.catalog_data()))
        ladder: tuple[Rung, ...] | None = None
        ranked: tuple[GpuPlan, ...] | None = None
        managed: Any = None
        first = budget_first(workload) if intent not in NO_ESTIMATE_INTENTS and workload is not None else None
        if first == "train" and workload is not None and not training_data_said(workload):
            # "the biggest model we can fine-tune for $1000": a run's cost is linear in its tokens, so none is assumed;
            # the questions (the tokens, and the method when unsaid) are the answer until they are said
            return Response(text, intent, workload, None, [], [t for t, _ in asked], notes, conversation,
                            question_fields=[f for _, f in asked],
                            lead=f"💰 The biggest model {budget_words(workload)} fine-tunes depends on the tokens a run "
                                 "trains on: between 10M and 10B tokens the answer goes from the largest open models to "
                                 "the smallest. Tell me:")
        if first is not None and workload is not None:
            from engine.budget_ladder import budget_ladder, largest_within

            ladder = budget_ladder(workload, self.catalog_data())
            chosen = largest_within(ladder) or (ladder[0] if ladder else None)
            if chosen is not None:
                advice = chosen.advice
                # the ladder answers the model; a fine-tune's unsaid method is answered by QLoRA and full side by side
                asked = [(t, f) for t, f in asked if f not in ("model", "params_b", "mode", "intent")]
            if previous is not None and intent in ("refine", "answer", "undo") and advice is not None:
                changes = list(self._compare(previous, advice, self.change_names()))
        elif intent not in NO_ESTIMATE_INTENTS and workload is not None and _has_subject(workload):
            kept = _thread_gpu(workload, previous, intent)
            if kept is not None:  # "how long on 32 of them?": 32 of the GPUs the thread picked, not the catalog's best 32
                workload = workload.model_copy(update={"gpu": kept})
            advice = self.advise(workload)
            cues = getattr(conversation, "cues", None) or set()  # the thread's question, or this message's
            versus = tuple(getattr(getattr(turn, "reading", None), "compared", ()) or ())
            # the other GPUs as this message says them, or as the thread's comparison keeps them ("what about 100
            # users?")
            others = list(versus[1:]) if len(versus) >= 2 else next(
                (c[len(VERSUS_CUE):].split(VERSUS_SEP) for c in sorted(cues) if c.startswith(VERSUS_CUE)), [])
            per_dollar = per_dollar_asked(text)
            if per_dollar and not others and workload.mode is None and workload.intent is None:
                # "cost per token for Llama 3.1 8B at saturation": a cost per token is a served model's
                workload = workload.model_copy(update={"mode": "inference", "intent": "serve"})
                advice = self.advise(workload)
                asked = [(t, f) for t, f in asked if f not in ("mode", "intent")]
            if others and workload.gpu:
                if workload.mode is None and workload.intent is None and (_PER_TOKEN.search(text) or per_dollar):
                    # "is A100 or H100 cheaper per token for Llama 3.1 8B?": a cost per token is a served model's
                    workload = workload.model_copy(update={"mode": "inference", "intent": "serve"})
                    advice = self.advise(workload)
                    asked = [(t, f) for t, f in asked if f not in ("mode", "intent")]
                compared = self._compare_gpus(workload, advice, others, rate=request_rate_asked(text),
                                              per_token=per_dollar)
                if compared is not None:
                    advice, capacity = compared[0].advice, compared[0].capacity
                    # "I plan one GPU at a time": both are planned; and compared full, no load is needed to answer
                    dropped = {"gpu", "concurrency"} if compared[0].capacity is not None else {"gpu"}
                    asked = [(t, f) for t, f in asked if f not in dropped]
            elif len(precisions := tuple(getattr(getattr(turn, "reading", None), "compared_precisions", ()) or ())) == 2:
                compared = self._compare_precisions(workload, advice, precisions, rate=request_rate_asked(text))
                if compared is not None:
                    advice, capacity = compared[0].advice, compared[0].capacity
                    asked = [(t, f) for t, f in asked if f != "precision"]
            elif (per_dollar and not workload.gpu and _unloaded_service(workload) and not workload.provider
                  and (ranked := self._ranked_gpus(workload)) is not None):
                # "which GPU gives the best tokens/s per dollar for 8B at high batch": a row per GPU type, each full
                compared = ranked
                advice, capacity = ranked[0].advice, ranked[0].capacity  # the cheapest per token's plan, full
                asked = [(t, f) for t, f in asked if f not in ("gpu", "concurrency")]
            elif CAPACITY_CUE in cues or capacity_asked(text) or (
                    (unit_cost_asked(text) or _FULL_LOAD.search(text) or _api_named(conversation))
                    and _unloaded_service(workload)):
                # "cost per million tokens to self-host 70B on H100s": unit economics are quoted at saturation, the
                # GPUs planned full (at one stream the same 2 H100 cost $35.75 per 1M, 20x their price full)
                rate = RATE_CUE in cues or request_rate_asked(text)
                capacity, advice = self._at_capacity(workload, advice, rate=rate)
                if (capacity is not None and capacity.users > 0 and workload.budget_usd_per_month is not None
                        and not workload.gpu_count and not workload.nodes and not rate):
                    capacity, advice = self._within_budget(workload, advice, capacity)
                    notes = [*self._budget_alternatives(capacity), *notes]
            elif LOCAL_CUE in cues and _owning().local_asked(workload, cues):
                local, planned = _owning().local_plans(workload, cues, self.catalog_data())
                advice = self.advise(planned) if planned is not workload else advice
                asked = [(t, f) for t, f in asked if f not in ("data_location", "concurrency")]
            else:  # a headcount sized for a share at once: all of them at once, the upper bound, in one line
                upper = self._all_at_once(workload)
                if upper and any(f == "concurrency" for _, f in asked):
                    asked = [(f"{t} {upper[0][:1].upper()}{upper[0][1:]}." if f == "concurrency" else t, f)
                             for t, f in asked]
                else:
                    notes = [*upper, *notes]
            if compared is None and capacity is None and local is None:
                # "our slurm cluster" with no GPU named: a row per common type, owned; "500 A100s for 2 hours": its tokens
                owned_rows, window, advice, asked = self._fleet(workload, cues, advice, asked)
            if compared is None and local is None and owned_rows is None and window is None:
                managed = self._managed_vs_own(workload, advice)
            if previous is not None and intent in ("refine", "answer", "undo"):
                changes = list(self._compare(previous, advice, self.change_names()))
        elif intent in NO_ESTIMATE_INTENTS:
            advice = previous  # the thread's scenario is unchanged
        api_named = getattr(getattr(turn, "reading", None), "api", None)
        api_id = _api_named(conversation)
        if (api_id and workload is not None and intent not in NO_ESTIMATE_INTENTS and workload.model is None
                and workload.params_b is None and (advice is None or advice.cluster is None)):
            # "how much would gpt-4o cost for 1B tokens a month": no model to plan, the API's bill is the answer
            answer = _api().api_answer(api_id, None, workload, self.catalog_data(), self.display_names())
            if answer is not None:
                left = [(t, f) for t, f in asked if f not in ("model", "params_b", "mode", "intent")]
                return Response(text, intent, workload, None, [], [t for t, _ in left], notes, conversation,
                                question_fields=[f for _, f in left], api=answer)
        if (previous is not None and intent == "refine" and not changes and not parsed_changes
                and not getattr(turn, "conflicts", ()) and capacity is None and not api_named):
            # "what about 8 H100s?" on 8 H100s: said, never the same answer again as if something had been applied
            parsed_changes = [ALREADY_THE_SCENARIO]
        if advice is not None and any(n.startswith(RENTED_NOWHERE_NOTE) for n in advice.notes):
            # "yours or to rent? Priced as a rental" of a GPU no provider rents: it is planned as theirs already
            asked = [(t, f) for t, f in asked if f != "data_location"]
        if advice is not None and any(p.field in REJECTED_SIZE_FIELDS and p.code in REJECTED_CODES for p in advice.problems):
            # the size was rejected ("10 trillion parameters"): the problem asks for it again; asking the method
            # of a workload that cannot be sized would be answering past the user
            asked = [(t, f) for t, f in asked if f in REJECTED_SIZE_FIELDS]
        if advice is not None and workload is not None and workload.mode is None and advice.effective.mode == "inference":
            # "gpt-oss-120b on a single H100?": the plan below serves it; asked bare, "what do you want to do" read as
            # if no plan had been made. The question says what the figures assumed, as every other open question does
            asked = [(SERVING_ASSUMED_QUESTION if f == "mode" else t, f) for t, f in asked]
        room = (context_room(advice, self.catalog_data()) if max_context_asked(text) and capacity is None
                and compared is None and ladder is None and local is None else None)
        if room is not None:  # the context it holds is the answer; how many users is another question
            asked = [(t, f) for t, f in asked if f != "concurrency"]
        questions = [t for t, _ in asked]
        return Response(text, intent, workload, advice, changes or parsed_changes, questions, notes, conversation,
                        list(advice.missing) if advice else [], question_fields=[name for _, name in asked],
                        hardware=self.hardware_kinds() if advice is not None else None,
                        capacity=capacity, compared=compared, ladder=ladder, local=local,
                        ranked=ranked is not None,
                        vram_asked=bool(_VRAM_ASKED.search(text)) and capacity is None and compared is None
                        and ladder is None and local is None and room is None, context_room=room,
                        window=window, owned_types=owned_rows, managed=managed,
                        api=_api().api_answer(api_id, advice, workload, self.catalog_data(), self.display_names())
                        if api_id and advice is not None else None)

    def _fleet(self, workload: Workload, cues: Any, advice: Advice,
               asked: list[tuple[str, str]]) -> tuple[Any, Any, Advice, list[tuple[str, str]]]:
        """A team's own cluster (bot.fleet): no GPU named, a row per common type and the type asked first; a type
        named, the count sized and costed as theirs. A fleet held for a time with no data: what it trains in it.
        The modules are imported only when a GPU count and a time, or a cluster of their own, were said (cold start)."""
        own = OWN_CLUSTER_CUE in cues
        if not own and not (workload.deadline_hours and (workload.gpu_count or workload.nodes)):
            return None, None, advice, asked
        from bot import fleet
        from engine.fleet_window import window_applies

        rows: Any = None
        if (own and workload.data_location == "onprem" and not workload.gpu_count
                and not workload.nodes and workload.hourly_rate is None and workload.provider is None):
            if workload.gpu is None and workload.mode in fleet.PER_TYPE_MODES:
                rows, planned = fleet.owned_types(self, workload)
                advice = planned if planned is not None else advice
                asked = [(fleet.gpu_question(workload, rows), "gpu"), *[(t, f) for t, f in asked if f != "gpu"]]
            else:
                advice = fleet.owned_sized(self, workload, advice)
        window = None
        if rows is None and window_applies(workload):
            window, advice = fleet.in_window(self, workload, advice)
            if window is not None:  # the data is the answer, not a question
                asked = [(t, f) for t, f in asked if f != "dataset_tokens"]
        return rows, window, advice, asked

    def _managed_vs_own(self, workload: Workload, advice: Advice | None) -> Any:
        """"sagemaker vs ec2": the same plan on the managed service and on its cloud's own VMs (bot.managed); None
        unless the providers kept are such a pair."""
        if advice is None or not workload.providers:
            return None
        from bot.managed import managed_vs_own, pair_of

        pair = pair_of(workload.providers, self.catalog_data().providers)
        if pair is None:
            return None
        return managed_vs_own(advice, pair[0], pair[1], {p.id: p.name for p in self.catalog_data().providers})

    def _all_at_once(self, workload: Workload) -> list[str]:
        """A headcount sized for a share of it at once (parser.population): the plan for all of them at once, the
        upper bound, in one line beside the headline (the worst case is a bound to know, not the budget)."""
        people = int(workload.population or 0)
        if (not people or workload.mode != "inference" or workload.requests_per_s
                or (workload.concurrency or 0) >= people):
            return []
        upper = self.advise(workload.model_copy(update={"concurrency": people}))
        rec = upper.recommendation
        pick = next((o for o in upper.options if rec is not None and o.name == rec.primary), None)
        if pick is None:
            return [f"{ALL_AT_ONCE_NOTE}{people:,} at once, the upper bound: no plan in the catalog holds them"]
        return [f"{ALL_AT_ONCE_NOTE}{people:,} at once, the upper bound: {pick.name}, ${pick.total_usd:,.0f} a month"]

    def _compare_gpus(self, workload: Workload, advice: Advice, others: Sequence[str], *,
                      rate: bool, per_token: bool = False) -> tuple[GpuPlan, ...] | None:
        """"Is A100 or H100 cheaper per token for Llama 3.1 8B?": the second GPU planned on the same load as the first
        and both returned, the cheaper first (None when the second is unknown or either plan does not fit). A
        service with no load said is compared full, at the users each holds at the speed floor: per token at one
        stream, every GPU is dear, and the ranking between them is not the one a loaded service sees. Three or more
        ("H100 vs H200 vs B200 vs MI300X"): each planned the same way, a row each. `per_token`: "tokens/s per
        dollar" asked, ranked by $ per 1M output tokens at the load said."""
        variants: list[tuple[str, Workload, Advice | None]] = [(str(workload.gpu), workload, advice)]
        for other in others:
            counted = _COUNTED_GPU.match(other)
            count = int(counted.group(1)) if counted else None
            resolved = self.catalog.resolve_gpu(counted.group(2) if counted else other)
            second = getattr(resolved, "id", None)
            if not second or any(second == key for key, _, _ in variants):
                return None
            # "8x H200 or 8x B200": the count said with the second GPU is its own; else the first's, if any
            variants.append((second, workload.model_copy(
                update={"gpu": second} if count is None else {"gpu": second, "gpu_count": count}), None))
        return self._compare_plans(variants, workload, rate=rate, by_precision=False, per_token=per_token)

    def _ranked_gpus(self, workload: Workload) -> tuple[GpuPlan, ...] | None:
        """"Which GPU gives the best tokens/s per dollar for Llama 3.1 8B at high batch": each GPU type the catalog
        rents planned full (at the users it holds at the speed floor, as "cost per 1M tokens at full load" is), the
        cheapest per 1M output tokens first; the one-stream pick had been the dearest per token in its own table.
        None when fewer than two types fit."""
        data = self.catalog_data()
        rented = sorted({o.gpu for o in data.offers if o.on_demand_usd_per_hour})
        variants = [(gpu, workload.model_copy(update={"gpu": gpu}), None) for gpu in rented]
        plans = self._compare_plans(variants, workload, rate=False, by_precision=False, per_token=True, each=True)
        if plans is None or len(plans) < 2:
            return None
        from bot.caveats import service_risks
        from bot.compared import at_provider

        kinds = self.hardware_kinds()
        names = {p.id: p.name for p in self.catalog_data().providers}
        out: list[tuple[bool, GpuPlan]] = []
        for plan in plans:
            option = next((o for o in plan.advice.options if o.name == plan.option), None)
            if option is None or plan.capacity is None or plan.capacity.users < 1:
                continue  # a type that keeps no user at the speed floor has no cost per token full
            flagged = any(service_risks(option, kinds))
            own = at_provider(option, plan.advice, names.get((option.offer_id or "").split(":")[0], ""))
            out.append((flagged, replace(plan, own=own)))
        # a service's pick has an SLA and a datacenter licence (as the engine's own ranking does): GeForce cards and
        # marketplace hosts follow, each row labelled, so the plan below is one a team can run
        ranked = tuple(p for flagged, p in out if not flagged) + tuple(p for flagged, p in out if flagged)
        return ranked if len(ranked) >= 2 and not any(flagged for flagged, p in out if p is ranked[0]) else None

    def _compare_precisions(self, workload: Workload, advice: Advice, precisions: Sequence[str], *,
                            rate: bool) -> tuple[GpuPlan, ...] | None:
        """"Llama 3.1 70B AWQ int4 vs FP8 on H100 for 50 users, which is cheaper?": both weights planned on the same
        load and GPUs as said, compared like two GPUs (it had asked "which one did you mean?")."""
        first, second = precisions[0], precisions[1]
        variants = [(first, workload.model_copy(update={"precision": first}),
                     advice if workload.precision == first else None),
                    (second, workload.model_copy(update={"precision": second}), None)]
        return self._compare_plans(variants, workload, rate=rate, by_precision=True)

    def _compare_plans(self, variants: Sequence[tuple[str, Workload, Advice | None]], workload: Workload, *,
                       rate: bool, by_precision: bool, per_token: bool = False,
                       each: bool = False) -> tuple[GpuPlan, ...] | None:
        """Two variants of one workload (GPUs, or weight precisions), each planned and priced like with like, the
        better first: a plan that fits before one that does not, one at the speed floor before one under it, then
        the cheaper by what the question is about (per run, per 1M tokens with the GPUs full, per month). `each`: a
        ranking of every GPU type (`_ranked_gpus`): one that does not fit, or has no plan, is left out, not a reason to
        drop the answer, and each is priced at its own cheapest (no provider rents them all)."""
        from bot.formatting import winner_option
        from bot.summary import _short_of
        from engine.recommend import run_cost_usd

        plans: list[GpuPlan] = []
        for key, w, first in variants:
            planned = first if first is not None else self.advise(w)
            capacity = None
            serving = (planned.effective.mode or "inference") == "inference"
            if serving:
                capacity, planned = self._at_capacity(w, planned, rate=rate)
            option = picked = winner_option(planned)
            if option is not None and workload.provider is None:
                # like with like: a marketplace host (no SLA) wins one side only where the other has none
                market = self.hardware_kinds().marketplaces
                option = next((o for o in planned.options if (o.offer_id or "").split(":")[0] not in market), option)
            sla = option is not None and picked is not None and option.name != picked.name
            label = key if by_precision else ""
            if (planned.cluster is not None and not planned.cluster.fits and w.gpu_count
                    and planned.memory is not None):
                # the count said does not hold the model: a side of the comparison, not a reason to drop it
                plans.append(GpuPlan(gpu=planned.cluster.gpu if by_precision else key, advice=planned, capacity=None,
                                     gpus=int(w.gpu_count), usd_per_month=None, usd_per_1m_tokens=None,
                                     usd_per_run=None, hours_per_run=None, tokens_per_s_per_user=None, fits=False,
                                     need_gb=planned.memory.per_gpu_gb, label=label))
                continue
            if option is None or planned.cluster is None or not planned.cluster.fits:
                if each:
                    continue
                return None
            tp = option.throughput
            per_1m = tp.cost_per_1m_tokens_usd.value if serving and tp.cost_per_1m_tokens_usd is not None else None
            per_run = None if serving else run_cost_usd(option.tco, planned.effective)
            speed = tp.decode_tokens_per_s_per_sequence.value if tp.decode_tokens_per_s_per_sequence is not None else None
            plans.append(GpuPlan(gpu=option.cluster.gpu if by_precision else key, advice=planned, capacity=capacity,
                                 gpus=option.cluster.gpus, usd_per_month=option.total_usd, usd_per_1m_tokens=per_1m,
                                 usd_per_run=per_run, hours_per_run=None if serving else option.hours_per_run,
                                 tokens_per_s_per_user=speed,
                                 label=label, sla_only=sla, option=option.name))

        def cost(p: GpuPlan) -> float:
            if p.shared is not None and all(q.shared is not None for q in plans):
                p = replace(p, usd_per_run=p.shared.usd_per_run, usd_per_1m_tokens=p.shared.usd_per_1m_tokens,
                            usd_per_month=p.shared.usd_per_month)
            if p.usd_per_run is not None:
                return p.usd_per_run
            if (p.capacity is not None or per_token) and p.usd_per_1m_tokens is not None:
                return p.usd_per_1m_tokens
            return p.usd_per_month or math.inf

        def short(p: GpuPlan) -> bool:
            # "8x H200 or 8x B200" at 200 users: the H200 node is cheaper at 14.8 tokens/s a user, under the floor
            # the B200 node keeps; cheaper at a speed nobody asked for is not the better plan
            return bool(_short_of(p.advice))

        if not any(p.fits for p in plans):
            return None
        if not by_precision and not each:
            plans = self._at_one_provider(plans, workload, per_token=per_token)
        fixed = [w.gpu_count for _, w, _ in variants if w.gpu_count]
        if fixed and all(p.fits and short(p) for p in plans):
            # "8x H200 or 8x B200 … what about 400 users?": neither count keeps the floor, and the cheaper of two plans
            # too slow to use is no answer: both planned free at the floor, as many GPUs as each takes
            free = [(key, w.model_copy(update={"gpu_count": None, "nodes": None}), None) for key, w, _ in variants]
            rescaled = self._compare_plans(free, workload, rate=rate, by_precision=by_precision, per_token=per_token)
            if rescaled is not None and not any(short(p) for p in rescaled):
                return tuple(replace(p, rescaled_from=int(fixed[0])) for p in rescaled)  # type: ignore[return-value]
        # at the same cost the faster one is the better plan ("fp8 or bf16 … on H100": $2,154 each)
        ranked = sorted(plans, key=lambda p: (not p.fits, p.fits and short(p), round(cost(p), 2),
                                              -(p.tokens_per_s_per_user or 0.0), p.hours_per_run or 0.0))
        if len(ranked) != 2:
            return tuple(ranked)
        first_plan, second_plan = ranked
        released = self.catalog_data().model(workload.model) if by_precision and workload.model else None
        if released is not None and published_first(first_plan, second_plan, released.native_precision,
                                                    cost(first_plan), cost(second_plan)):
            return replace(second_plan, published=True), first_plan  # ties go to the published weights
        return first_plan, second_plan

    def _at_one_provider(self, plans: list[GpuPlan], workload: Workload, *, per_token: bool = False) -> list[GpuPlan]:
        """GPUs that all fit: each side's own option with its provider and shape, and every side at the provider
        renting them all (`bot.compared.shared_by_all`), which orders them. A provider named is the only one planned."""
        from bot.compared import at_provider, shared_by_all

        if len(plans) < 2 or not all(p.fits for p in plans):
            return plans
        names = {p.id: p.name for p in self.catalog_data().providers}
        first = plans[0]
        per = ("run" if first.usd_per_run is not None else
               "token" if (first.capacity is not None or per_token) and first.usd_per_1m_tokens is not None else "month")
        market = frozenset() if workload.provider else frozenset(self.hardware_kinds().marketplaces)
        both = shared_by_all([p.advice for p in plans], per, market, names)
        out = []
        for i, plan in enumerate(plans):
            option = next((o for o in plan.advice.options if o.name == plan.option), None)
            own = (at_provider(option, plan.advice, names.get(option.offer_id.split(":")[0], ""))
                   if option is not None and option.offer_id else None)
            out.append(replace(plan, own=own, shared=both[i] if both is not None else None))
        return out

    def _at_capacity(self, workload: Workload, advice: Advice, *, rate: bool) -> tuple[Capacity | None, Advice]:
        """A capacity question is answered at capacity: the users the one-stream plan holds at the speed floor, then
        the same GPUs planned for that many users, so the speed, total throughput, cost per 1M tokens and
        assumptions are those of the GPUs full rather than of one stream on them (a $47.71 per 1M tokens "at 1
        stream" beside "about 315 users"). The one-stream advice stays when the loaded plan would not hold them."""
        from engine.capacity import requests_per_s_held
        from engine.defaults import apply_defaults
        from engine.offer_plans import users_held
        from parser.questions import serving_without_load

        cluster = advice.cluster
        if cluster is None or not cluster.fits or cluster.gpu is None or not serving_without_load(advice.workload):
            return None, advice
        held = users_held(cluster)
        if held is None:
            return None, advice
        users, floor, sequences, context = held
        capacity = Capacity(users, floor, sequences, context, cluster.gpus, cluster.gpu)
        if users < 2:
            return capacity, advice
        fixed = {"gpu": workload.gpu or cluster.gpu, "gpu_count": workload.gpu_count or cluster.gpus}
        full = workload.model_copy(update={"concurrency": users, **fixed})
        if workload.output_tokens is None:
            # a reasoning model's replies are sized longer under load (their thinking): the users held are counted
            # at that same reply length, or the headline (256-token replies) and the plan (2,000) disagree; the
            # engine's defaults say the length without planning the load
            reply = apply_defaults(full, self.catalog_data())[0].output_tokens
            if reply and reply != advice.effective.output_tokens:
                again = self._at_capacity(workload.model_copy(update={"output_tokens": reply}),
                                          self.advise(workload.model_copy(update={"output_tokens": reply})), rate=rate)
                if again[0] is not None:
                    return again
        loaded = self.advise(full)
        tp = loaded.throughput
        if (loaded.cluster is None or not loaded.cluster.fits or loaded.cluster.gpus != cluster.gpus or tp is None
                or any(not t.met for t in tp.targets)):
            return capacity, advice
        if rate and tp.decode_tokens_per_s_per_sequence is not None:
            first = tp.prefill_seconds.value if tp.prefill_seconds is not None else 0.0  # a turn's own prefill
            capacity = replace(capacity, requests_per_s=requests_per_s_held(
                loaded.effective, users, tp.decode_tokens_per_s_per_sequence.value, first))
        return capacity, loaded

    def _within_budget(self, workload: Workload, advice: Advice, capacity: Capacity) -> tuple[Capacity, Advice]:
        """"We have $20k/month, how many concurrent users can we serve Llama 3.3 70B for?": the most users the budget
        keeps at the speed floor (engine.capacity.most_users_within), not what the cheapest GPU holds (1 GH200, 18
        users, $18k of the budget unspent). The search starts from the GPUs full, replicated as the budget buys them."""
        from bot.formatting import winner_option
        from engine.capacity import most_users_within

        budget = float(workload.budget_usd_per_month or 0.0)
        winner = winner_option(advice)
        if winner is None or winner.total_usd <= 0 or budget <= 0:
            return capacity, advice
        start = capacity.users * max(1, int(budget // winner.total_usd))
        said = advice.workload.output_tokens if workload.output_tokens is None else workload.output_tokens
        found = most_users_within(workload.model_copy(update={"output_tokens": said}), self.catalog_data(), start)
        if found is None or found.users <= capacity.users:
            return capacity, advice
        plan = found.option.cluster
        return replace(capacity, users=found.users, sequences=found.users, gpus=plan.gpus, gpu=plan.gpu or capacity.gpu,
                       budget_usd_per_month=budget, usd_per_month=found.option.total_usd,
                       alternatives=tuple((a.gpu, a.gpus, a.users, a.usd_per_month) for a in found.alternatives)), \
            found.advice

    def _budget_alternatives(self, capacity: Capacity) -> list[str]:
        """Other GPUs within the same budget, one line: what a buyer weighs the pick against."""
        if capacity.budget_usd_per_month is None or not capacity.alternatives:
            return []
        data = self.catalog_data()

        def named(gpu: str) -> str:
            record = data.gpu(gpu)
            return record.name if record is not None else gpu

        said = "; ".join(f"{gpus}× {named(gpu)}, about {users:,} users (${usd:,.0f})"
                         for gpu, gpus, users, usd in capacity.alternatives)
        return [f"{BUDGET_OTHER_GPUS}${capacity.budget_usd_per_month:,.0f} a month on other GPUs, their plans "
                f"replicated: {said}"]

    def hardware_kinds(self) -> Any:
        """The catalog's consumer GPUs, marketplace and managed providers (`bot.caveats.HardwareKinds`),
        read once: the first message warns when the pick runs on one of them."""
        if self._kinds is None:
            from bot.caveats import HardwareKinds

            try:
                gpus, providers = list(self.catalog.gpus()), list(self.catalog.providers())
            except Exception:  # a catalog without those listings: no hardware caveats
                log.debug("catalog has no gpus/providers listing")
                gpus, providers = [], []
            self._kinds = HardwareKinds(
                consumer_gpus=frozenset(g.id for g in gpus if getattr(g, "tier", "") == "consumer"),
                marketplaces=frozenset(p.id for p in providers if getattr(p, "kind", "") == "marketplace"),
                managed=frozenset(p.id for p in providers if getattr(p, "kind", "") == "managed"),
                provider_names={p.id: p.name for p in providers})
        return self._kinds

    def price_table(self, reading: Any) -> Any:
        """The offers a price question asks about (`catalog.query.price_offers`), as a `bot.prices.PriceTable`."""
        from bot.prices import build_price_table
        from catalog.query import price_offers

        query = dict(reading.updates)
        regions = tuple(getattr(reading, "regions", ()) or ())
        if regions:
            query["regions"] = regions
        family = tuple(reading.gpu_family) or ((query["gpu"],) if query.get("gpu") else ())
        kinds = self.hardware_kinds()
        names = dict(self.display_names())
        try:
            names.update({p.id: p.name for p in self.catalog.providers()})
        except Exception:  # a catalog without a provider listing: ids are shown as they are
            log.debug("catalog has no providers listing")
        if query.get("quoted") and query.get("hourly_rate") is not None and query.get("gpu"):
            return self._judged_quote(query, names, kinds)
        offers, widened = price_offers(self.catalog.offers(), gpus=family, provider=query.get("provider"),
                                       gpus_per_node=query.get("gpu_count"), regions=regions)
        nearby: list[Any] = []
        if "region" in widened and query.get("provider"):  # none at that provider there: who has it there
            from catalog.regions import widened_area

            there = [*regions, *(a for a in (widened_area(r) for r in regions) if a)]
            nearby, missed = price_offers(self.catalog.offers(), gpus=family, regions=there)
            nearby = [] if "region" in missed else nearby
        return build_price_table(offers, widened, query, family, names, marketplaces=kinds.marketplaces, nearby=nearby)

    def _judged_quote(self, query: dict[str, Any], names: Mapping[str, str], kinds: Any) -> Any:
        """'is $2.10/hr a good price for an H100?': the GPU's rows (every provider, in the region asked) under a verdict
        placing the quote among them (`bot.price_verdict`)."""
        from dataclasses import replace as replaced

        from bot.price_verdict import judge
        from bot.prices import build_price_table
        from catalog.query import price_offers

        gpu = str(query["gpu"])
        offers, widened = price_offers(self.catalog.offers(), gpus=(gpu,), regions=query.get("regions") or ())
        listed = {k: v for k, v in query.items() if k not in ("provider", "pricing", "gpu_count", "hourly_rate")}
        table = build_price_table(offers, widened, listed, (gpu,), names, marketplaces=kinds.marketplaces)
        kind = str(query.get("pricing") or "on_demand")
        answer, figures = judge(float(query["hourly_rate"]), kind, gpu, query.get("provider"), offers, names,
                                kinds.marketplaces, kinds.managed)
        title = f"{table.title}, against ${float(query['hourly_rate']):,.2f}/GPU-h quoted"
        return replaced(table, title=title, answer=answer, quote=figures, query=dict(query))

    def offline_answer(self, ask: Any, workload: Workload | None = None) -> Any:
        """The answer to an offline job in stages (`parser.offline_jobs.OfflineAsk`), a `bot.offline_jobs.OfflineAnswer`;
        None when it cannot be made (the turn is then answered as its workload reads)."""
        from bot.offline_jobs import offline_answer

        return offline_answer(ask, self.catalog_data(), workload)

    def distill_answer(self, ask: Any, workload: Workload | None = None, before: Any = None,
                       notes: tuple[str, ...] = ()) -> Any:
        """The answer to a distillation (`parser.distill.DistillAsk`), as a `bot.distill.DistillAnswer`; `before`,
        the thread's previous one, for what changed; `notes`, how a follow-up was read."""
        from bot.distill import build_distill_answer

        return build_distill_answer(ask, self.catalog_data(), workload, before=before, notes=notes)

    def storage_answer(self, ask: Any) -> Any:
        """The answer to a storage question (`parser.storage.StorageAsk`), as a `bot.storage.StorageAnswer`."""
        from bot.storage import build_storage_answer

        return build_storage_answer(ask, self.catalog.data())

    def advise(self, workload: Workload) -> Advice:
        return self._advise(workload, self.catalog_data())

    def catalog_data(self) -> Any:
        """The records the engine receives: the catalog's, plus models found on the Hub."""
        data = self.catalog.data()
        return self.hub.with_hub_models(data) if self.hub is not None else data

    def vram(self, text: str) -> Response:
        """`/vram 70B qlora`: the same parse and estimate, in a throwaway conversation. Only the
        questions that change memory are kept (data size, runs and location do not)."""
        response = self.respond(self.new_conversation(), text)
        kept = [(q, f) for q, f in zip(response.questions, response.question_fields, strict=False)
                if f not in NOT_ABOUT_MEMORY]
        return replace(response, questions=[q for q, _ in kept], question_fields=[f for _, f in kept])

    # --- scripting ---------------------------------------------------------------------------
    def contract(self, response: Response) -> dict[str, Any]:
        """The `ask --json` object (docs/json.md) for this response."""
        if response.prices is not None:
            from bot.prices import prices_contract

            return prices_contract(response.prices)
        if response.offline is not None:
            from bot.offline_jobs import offline_contract

            return offline_contract(response.offline, CONTRACT_WORKLOAD_KEYS, response.workload)
        if response.distill is not None:
            from bot.distill import distill_contract

            return distill_contract(response.distill, CONTRACT_WORKLOAD_KEYS, response.workload)
        if response.storage is not None:
            from bot.storage import storage_contract

            return storage_contract(response.storage, CONTRACT_WORKLOAD_KEYS)
        if response.advice is None:
            w = response.workload or Workload()
            return {
                "workload": {key: getattr(w, key) for key in CONTRACT_WORKLOAD_KEYS},
                "missing": list(response.missing) or ["mode", "model"],
                "questions": response.questions or list(DEFAULT_QUESTIONS),
                "assumptions": [],
                "report": {"memory": None, "cluster": None, "throughput": None, "tco": None},
                "notes": list(response.notes),
                "capacity": None,
                "compared_gpus": None,
                "budget_ladder": None,
                "storage": None,
                "local": None,
                "buy_or_rent": _owning().break_even_contract(response.buy_or_rent) if response.buy_or_rent else None,
                "images": None,
                "max_context": None,
                "reserve_or_on_demand": _reserve().reserve_contract(response.reserve) if response.reserve else None,
                "window": None,
                "owned_by_gpu": None,
                "api_comparison": _api().api_contract(response.api) if response.api is not None else None,
                "managed_vs_self_managed": None,
            }
        out = self._to_contract(response.advice, response.questions, response.missing)
        # what the reader noticed (ignored values, instance types, unknown names) belongs with the engine's notes
        out["notes"] = list(dict.fromkeys([*response.notes, *out.get("notes", [])]))
        out["capacity"] = _capacity_contract(response.capacity)
        out["compared_gpus"] = [_compared_contract(p) for p in response.compared] if response.compared else None
        out["budget_ladder"] = [_rung_contract(r) for r in response.ladder] if response.ladder else None
        out["storage"] = None  # a storage question's answer (bot.storage); a plan has none
        out["local"] = _owning().local_contract(response.local) if response.local is not None else None
        out["buy_or_rent"] = None
        out["max_context"] = _max_context_contract(response.context_room, response.advice)
        out["reserve_or_on_demand"] = None
        from bot.fleet import owned_types_contract, window_contract

        out["window"] = window_contract(response.window)
        out["owned_by_gpu"] = owned_types_contract(response.owned_types)
        out["api_comparison"] = _api().api_contract(response.api) if response.api is not None else None
        from bot.managed import contract as managed_contract

        out["managed_vs_self_managed"] = managed_contract(response.managed)
        return out

    def estimate_workload(self, raw: Mapping[str, Any]) -> tuple[Advice | None, list[str]]:
        """`estimate --json`: resolve names through the catalog, validate, estimate.

        Returns (advice, errors); errors are user-readable lines for invalid fields.
        """
        from pydantic import ValidationError

        data = dict(raw)
        errors: list[str] = []
        notes: list[str] = []
        if self.hub is not None:
            self.hub.begin_turn(str(data.get("model") or ""))
        for field_name, resolve in (("model", self.resolver.resolve_model), ("gpu", self.catalog.resolve_gpu)):
            value = data.get(field_name)
            if value is None:
                continue
            if not isinstance(value, str):
                errors.append(f"{field_name}: expected a name, got {value!r}")
                continue
            resolution = resolve(value)
            if resolution.id:
                data[field_name] = resolution.id
            elif field_name == "model" and data.get("params_b") is not None:
                data[field_name] = None  # unknown model with a size: estimated generically
                notes.append(f"model {value!r} is not in the catalog; estimated from params_b")
            else:
                errors.append(f"{field_name}: {resolution.message or f'unknown {field_name} {value!r}'}")
        if errors:
            return None, errors
        try:
            workload = Workload.model_validate(data)
        except ValidationError as exc:
            return None, [f"{'.'.join(str(p) for p in e['loc']) or 'workload'}: {e['msg']}" for e in exc.errors()]
        advice = self.advise(workload)
        if self.hub is not None:
            notes += self.hub.turn_notes()
        if notes:
            advice = advice.model_copy(update={"notes": (*advice.notes, *notes)})
        return advice, []


DEFAULT_QUESTIONS = (
    "Which model (or how many parameters), and is it training (full, LoRA, QLoRA) or inference?",
)


def _change_line(name: str, change: Any) -> str:
    """"runs_per_month: 20 → 40" from the parser's field -> (old, new)."""
    try:
        old, new = change
    except (TypeError, ValueError):
        return f"{name}: {change}"

    def show(v: Any) -> str:
        return "not set" if v is None else (f"{v:g}" if isinstance(v, float) else str(v))

    return f"{name.replace('_', ' ')}: {show(old)} → {show(new)}"


# A thread reply that asks for a part of the last answer instead of changing the scenario; the same
# words are the values of the "Details", "All options", "Formulas" and "Cost chart" buttons.
THREAD_WORDS: dict[str, str] = {
    "details": "details", "show details": "details", "more details": "details", "more": "details",
    "options": "options", "all options": "options", "show options": "options", "compare options": "options",
    "formulas": "formulas", "formula": "formulas", "show formulas": "formulas", "show the formulas": "formulas",
    "cheaper": "cheaper", "cheaper options": "cheaper", "anything cheaper": "cheaper", "cheapest option": "cheaper",
    "cheapest": "cheaper", "any cheaper options": "cheaper", "can we do it for less": "cheaper",
    "can we do it cheaper": "cheaper", "how can we make it cheaper": "cheaper", "something cheaper": "cheaper",
    "cheaper option": "cheaper", "what's cheaper": "cheaper", "whats cheaper": "cheaper", "too expensive": "cheaper",
    "chart": "chart", "cost chart": "chart", "show chart": "chart", "show the chart": "chart", "tco chart": "chart",
}


def thread_word(text: str) -> str | None:
    """"details", "options", "formulas", "cheaper" or "chart" when `text` is only that request (any case,
    trailing punctuation, a leading mention stripped by the caller); None otherwise."""
    words = " ".join(text.lower().strip().strip("?!.").split())
    return THREAD_WORDS.get(words.removeprefix("please ").removesuffix(" please"))


# A problem with one of these codes on one of these fields means the workload could not be sized as said.
REJECTED_CODES = frozenset({"implausible", "invalid_value"})
REJECTED_SIZE_FIELDS = frozenset({"params_b", "model"})

# Questions about the corpus, where it lives and the run schedule: they change cost, not memory.
NOT_ABOUT_MEMORY = frozenset({"dataset_gb", "dataset_tokens", "data_location", "runs_per_month", "epochs"})


def _hub_client(settings: Any, catalog_path: str | Path | None) -> Any:
    """A Hub client caching into the catalog database file, or None when lookups are off."""
    if settings is None:
        return None
    from bot.hub_names import hub_client

    return hub_client(settings, catalog_path)


def _hub_resolver(catalog: Any, client: Any) -> Any:
    if client is None:
        return None
    from bot.hub_names import HubResolver

    return HubResolver(catalog, client)


def _thread_gpu(workload: Workload, previous: Advice | None, intent: str) -> str | None:
    """The GPU a follow-up's count refers to: "how long on 32 of them?" after a plan on H100s is 32 H100s (it planned
    32 B200s, the catalog's best at that count). A GPU count changed in a thread with no GPU named keeps the thread's
    pick; once kept, later follow-ups keep it too. None when a GPU is named, or there is nothing to keep."""
    if previous is None or intent not in ("refine", "answer") or workload.gpu is not None or not workload.gpu_count:
        return None
    if previous.workload.gpu and previous.workload.gpu_count:
        return previous.workload.gpu
    if workload.gpu_count == previous.workload.gpu_count or previous.recommendation is None:
        return None
    pick = recommended(list(previous.options), previous.recommendation)
    return pick.gpu if pick is not None else None


def _unloaded_service(w: Workload) -> bool:
    """A served model with no load said (no users, rate, tokens or job): what a capacity re-plan fills."""
    from parser.questions import serving_without_load

    return (w.mode or "inference") == "inference" and w.intent in (None, "serve") and serving_without_load(w)


def _owning() -> Any:
    """bot.owning (local and buy-or-rent answers), imported when a thread asks one: not at every start (cold start)."""
    from bot import owning

    return owning


def _api() -> Any:
    """bot.api_compare (a hosted API's bill beside the plan), imported when a thread names an API: not at every start."""
    from bot import api_compare

    return api_compare


def _api_named(conversation: Any) -> str | None:
    """The hosted API the thread compares with (parser.api_names), or None."""
    from parser.api_names import thread_api

    return thread_api(set(getattr(conversation, "cues", None) or ()))


def _reserve() -> Any:
    """bot.reserve (reserve or on demand with no model), imported when a thread asks it: not at every start."""
    from bot import reserve

    return reserve


def _has_subject(w: Workload) -> bool:
    """Something to estimate: a model or a size, or a mode on top of an earlier scenario."""
    return any(v is not None for v in (w.model, w.params_b, w.mode))

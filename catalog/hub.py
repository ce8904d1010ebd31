"""Any model on the Hugging Face Hub: a repo id or a name the bundled catalog lacks -> a `ModelRecord`.

Why: people ask about models released last week. The reviewed models.csv cannot keep up, but
every open model publishes a `config.json` (its shape) and safetensors weights whose headers hold
the exact tensor sizes, so the Hub answers "how big is it, what is its shape, what format are
its weights in" without downloading a single weight.

What a lookup reads, all through `huggingface_hub` (endpoint, token and timeout passed in: the
catalog never reads the environment; the bot maps HF_ENDPOINT / HF_TOKEN / HF_HUB_OFFLINE):
1. model info, `GET {endpoint}/api/models/{repo}`: the commit sha (every later read is pinned to
   it), the file list, whether the repo is gated;
2. `GET {endpoint}/{repo}/resolve/{sha}/config.json`; a multimodal config's `text_config` is the
   language model the estimate is about;
3. the exact parameter count from the safetensors headers: `parse_safetensors_file_metadata`
   (two HTTP Range requests per file, headers only, no weights) on `model.safetensors`, or on
   every shard named by `model.safetensors.index.json` — what `get_safetensors_metadata` does,
   minus its HEAD probes, since the file list is already known;
4. the native weight format from `quantization_config`: fp8, mxfp4, GPTQ/AWQ 4-bit -> int4.

Results are cached in the catalog database (`hub_models`, `hub_searches`; kept across catalog
rebuilds, see catalog/build.py) with their source (repo, revision sha, date): a second question
about the same model does not touch the network. Failures are never cached, so a token set
later or a Hub that comes back is used at once.

Outcomes (`HubResult.status`): "found", "gated" (401/403 on a gated repo: the message says how to
give a token), "not_found", "unreachable" (offline, connection refused, timeout, 5xx),
"ambiguous" (a name whose search gives several publishers), "unusable" (a config the parameter
count cannot read).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from catalog.records import ModelRecord

DEFAULT_ENDPOINT = "https://huggingface.co"
HUB_TABLES = ("hub_models", "hub_searches")  # persistent: copied across catalog rebuilds
REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}$")
MAX_SHARDS = 256  # more shards than this: the Hub's own safetensors total is used (one request)
# Repo names that are re-packagings of someone else's model, not the model itself
_DERIVED = frozenset({
    "gguf", "awq", "gptq", "mlx", "exl2", "bnb", "4bit", "8bit", "int4", "int8", "onnx", "quantized",
    "lora", "adapter", "abliterated", "unsloth", "imatrix", "w4a16", "w8a8", "nf4", "fp8", "mxfp4",
})
_TOKENS = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")

Status = Literal["found", "gated", "not_found", "unreachable", "ambiguous", "unusable"]


@dataclass(frozen=True)
class HubSettings:
    """Where the Hub is and who asks. `token` None: anonymous (public repos only)."""

    endpoint: str = DEFAULT_ENDPOINT
    token: str | None = None
    offline: bool = False
    timeout_s: float = 10.0


@dataclass(frozen=True)
class HubResult:
    """One lookup's outcome. `message` is the one line a reply shows (empty when found)."""

    status: Status
    query: str
    repo_id: str | None = None
    record: ModelRecord | None = None
    revision: str | None = None
    fetched_on: str | None = None
    exact_params: int | None = None
    candidates: tuple[str, ...] = ()
    message: str = ""
    from_cache: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "found" and self.record is not None

    def provenance(self) -> str:
        """'Qwen/Qwen3-32B from the Hugging Face Hub (revision 9216db5781bf, read 2026-11-23)'."""
        if not self.ok:
            return self.message
        rev = (self.revision or "")[:12]
        cached = ", cached" if self.from_cache else ""
        return f"{self.repo_id} read from the Hugging Face Hub (revision {rev}, {self.fetched_on}{cached})"


def is_repo_id(text: str) -> bool:
    """'Qwen/Qwen3-32B' is a repo id; 'qwen3 32b', 'a/b/c', 'tokens/s' are not (a digit or dash in the name)."""
    text = text.strip()
    if not REPO_ID.match(text):
        return False
    org, name = text.split("/", 1)
    return bool(re.search(r"[A-Za-z]", org)) and bool(re.search(r"[A-Za-z]", name)) and bool(re.search(r"[\d\-]", name))


# --- turning what the Hub returns into a record --------------------------------------------------
def language_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's config: `text_config` of a multimodal model, merged over the top level.

    Why merged: Gemma 3, Llama 4 and Mistral 3 put the decoder's shape in `text_config` but keep
    `quantization_config`, `tie_word_embeddings` or `_name_or_path` at the top.
    """
    text = config.get("text_config") or config.get("language_config") or config.get("llm_config")
    merged = {k: v for k, v in config.items() if not isinstance(v, dict) or k == "quantization_config"}
    if isinstance(text, dict):
        merged.update({k: v for k, v in text.items() if v is not None})
    family = str(merged.get("model_type") or "")
    if family.endswith("_text"):  # "gemma3_text" is a Gemma 3 (tied embeddings by default)
        merged["model_type"] = family.removesuffix("_text")
    # gpt-oss spells experts-per-token without the "num_" the importer reads
    if "num_experts_per_tok" not in merged and merged.get("experts_per_token") is not None:
        merged["num_experts_per_tok"] = merged["experts_per_token"]
    return merged


def native_precision(config: dict[str, Any]) -> str:
    """The format the weights are published in, from `quantization_config` (else bf16/fp16/fp32)."""
    quant = config.get("quantization_config")
    if not isinstance(quant, dict):
        text = config.get("text_config")
        quant = text.get("quantization_config") if isinstance(text, dict) else None
    if isinstance(quant, dict):
        method = str(quant.get("quant_method") or "").lower()
        bits = quant.get("bits") or quant.get("w_bit") or quant.get("weight_bits")
        fmt = str(quant.get("format") or quant.get("fmt") or "").lower()
        if method == "mxfp4":
            return "mxfp4"
        if method in ("fp8", "fbgemm_fp8") or "fp8" in fmt or "float8" in fmt:
            return "fp8"
        if method in ("gptq", "awq", "autoround", "hqq") and bits is not None:
            return "int4" if int(bits) <= 4 else "int8"
        if method == "bitsandbytes":
            return "int4" if quant.get("load_in_4bit") else "int8"
        if method == "compressed-tensors":
            groups = quant.get("config_groups") or {}
            weights = [g.get("weights") or {} for g in groups.values() if isinstance(g, dict)]
            if any(str(w.get("type")) == "float" and w.get("num_bits") == 8 for w in weights):
                return "fp8"
            if any(w.get("num_bits") == 4 for w in weights):
                return "int4"
    dtype = str(config.get("torch_dtype") or config.get("dtype") or "bfloat16").lower()
    return {"float16": "fp16", "float32": "fp32"}.get(dtype, "bf16")


def record_from_hub(
    repo_id: str,
    config: dict[str, Any],
    *,
    revision: str,
    fetched_on: str,
    exact_params: int | None,
    endpoint: str = DEFAULT_ENDPOINT,
) -> ModelRecord:
    """A `ModelRecord` for a Hub repo: shape from config.json (catalog/hf_config.py), total
    parameters from the safetensors headers where they count parameters.

    Why not always the header count: 4-bit formats pack two (MXFP4) or eight (GPTQ int32) values
    per stored element, so their element count is not the parameter count; there the count from
    the shape is used. Parameters outside the language model (a vision tower, MTP heads) are in
    the header count: they take memory and run on every token, so they are added to the active count.
    Raises `ConfigError` when the config lacks what the count needs.
    """
    from catalog.hf_config import model_from_config  # only once a repo is fetched (cold start)

    text = language_config(config)
    text.setdefault("_name_or_path", repo_id)
    precision = native_precision(config)
    url = f"{endpoint.rstrip('/')}/{repo_id}/blob/{revision}/config.json"
    source = f"Hugging Face Hub {repo_id} at revision {revision[:12]}: {url}"
    base = model_from_config(text, name=repo_id, model_id=repo_id.lower(), source=source, observed_on=fetched_on)
    computed_total = base.total_params_b * 1e9
    notes = [f"read from the Hugging Face Hub: {repo_id} at revision {revision[:12]} on {fetched_on}"]
    total_b, active_b = base.total_params_b, base.active_params_b
    packed = precision in ("mxfp4", "int4")
    if exact_params and not packed and exact_params >= 0.6 * computed_total:
        extra_b = (exact_params - computed_total) / 1e9
        total_b = round(exact_params / 1e9, 3)
        active_b = round(min(total_b, max(0.0, base.active_params_b + max(0.0, extra_b))), 3)
        notes.append(f"{exact_params:,} parameters counted from the safetensors headers")
        source += " and its safetensors headers"
    else:
        if exact_params and packed:
            notes.append(f"weights are packed {precision}: parameter count computed from config.json")
        source += " (parameter count computed from the architecture)"
    if precision != "bf16":
        notes.append(f"weights published in {precision}")
    return base.model_copy(update={
        "hf_repo": repo_id,
        "total_params_b": total_b,
        "active_params_b": active_b,
        "native_precision": precision,
        "source": source,
        "notes": "; ".join(notes),
    })


def pick_canonical(query: str, found: list[tuple[str, int]]) -> tuple[str | None, tuple[str, ...]]:
    """The publisher's repo for a searched name: (repo, ()) or (None, candidates) when ambiguous.

    `found` is (repo id, downloads). Kept: repos whose name holds every word of the query and is
    not a re-packaging (GGUF, AWQ, MLX, ...). The publisher is the org of the most downloaded one;
    when another org's best has at least half its downloads, it is a question, not a guess.
    Within the publisher, the repo named exactly as asked wins, else the most downloaded.
    """
    words = _TOKENS.findall(query.lower())
    if not words:
        return None, ()
    kept: list[tuple[str, int]] = []
    for repo, downloads in found:
        name = repo.split("/", 1)[-1].lower()
        parts = set(_TOKENS.findall(name)) | set(re.split(r"[-_.]", name))
        if all(w in name for w in words) and not (parts & _DERIVED - set(words)):
            kept.append((repo, downloads or 0))
    if not kept:
        return None, ()
    kept.sort(key=lambda item: -item[1])
    best_by_org: dict[str, tuple[str, int]] = {}
    for repo, downloads in kept:
        best_by_org.setdefault(repo.split("/", 1)[0].lower(), (repo, downloads))
    ranked = sorted(best_by_org.values(), key=lambda item: -item[1])
    if len(ranked) > 1 and ranked[1][1] >= 0.5 * ranked[0][1]:
        return None, tuple(repo for repo, _ in ranked[:4])
    org = ranked[0][0].split("/", 1)[0].lower()
    wanted = "-".join(words)
    same_org = [repo for repo, _ in kept if repo.split("/", 1)[0].lower() == org]
    exact = [repo for repo in same_org if repo.split("/", 1)[1].lower() == wanted]
    return (exact or same_org)[0], ()


# --- the cache ------------------------------------------------------------------------------------
class HubCache:
    """Found models and name searches, in the catalog database (or in memory for an in-memory catalog).

    Its own short-lived sqlite3 connection per call: the bot answers on several threads, and the
    catalog's own connection belongs to one of them.
    """

    def __init__(self, db_path: str | Path | None) -> None:
        self.path = Path(db_path) if db_path is not None else None
        self._lock = threading.Lock()
        self._memory = sqlite3.connect(":memory:", check_same_thread=False) if self.path is None else None
        with self._connect() as conn:
            ensure_tables(conn)

    def _connect(self) -> sqlite3.Connection:
        if self._memory is not None:
            return self._memory
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return sqlite3.connect(self.path, timeout=10)

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            conn = self._connect()
            try:
                ensure_tables(conn)
                rows = conn.execute(sql, args).fetchall()
                conn.commit()
                return rows
            finally:
                if conn is not self._memory:
                    conn.close()

    def get_model(self, repo_id: str) -> HubResult | None:
        rows = self._run("SELECT repo_id, revision, fetched_on, exact_params, record FROM hub_models WHERE key = ?",
                         (repo_id.lower(),))
        if not rows:
            return None
        repo, revision, fetched_on, exact, record = rows[0]
        return HubResult("found", repo_id, repo, ModelRecord.model_validate_json(record), revision, fetched_on,
                         exact, from_cache=True)

    def put_model(self, result: HubResult) -> None:
        assert result.record is not None and result.repo_id is not None
        self._run("INSERT OR REPLACE INTO hub_models (key, repo_id, revision, fetched_on, exact_params, record) "
                  "VALUES (?, ?, ?, ?, ?, ?)",
                  (result.repo_id.lower(), result.repo_id, result.revision, result.fetched_on, result.exact_params,
                   result.record.model_dump_json()))

    def get_search(self, query: str) -> tuple[str | None, tuple[str, ...]] | None:
        rows = self._run("SELECT repo_id, candidates FROM hub_searches WHERE query = ?", (_search_key(query),))
        if not rows:
            return None
        return rows[0][0], tuple(json.loads(rows[0][1] or "[]"))

    def put_search(self, query: str, repo_id: str | None, candidates: tuple[str, ...], fetched_on: str) -> None:
        self._run("INSERT OR REPLACE INTO hub_searches (query, repo_id, candidates, fetched_on) VALUES (?, ?, ?, ?)",
                  (_search_key(query), repo_id, json.dumps(list(candidates)), fetched_on))

    def models(self) -> list[ModelRecord]:
        """Every model found so far (the bot adds them to the catalog data it hands the engine)."""
        return [ModelRecord.model_validate_json(r[0]) for r in self._run("SELECT record FROM hub_models ORDER BY key")]


def ensure_tables(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS hub_models (key TEXT PRIMARY KEY, repo_id TEXT, revision TEXT, "
                 "fetched_on TEXT, exact_params INTEGER, record TEXT)")
    conn.execute("CREATE TABLE IF NOT EXISTS hub_searches (query TEXT PRIMARY KEY, repo_id TEXT, candidates TEXT, "
                 "fetched_on TEXT)")


def _search_key(query: str) -> str:
    return " ".join(_TOKENS.findall(query.lower()))


# --- the client -----------------------------------------------------------------------------------
@dataclass
class HubClient:
    """Looks models up on the Hub (through `huggingface_hub`), cache first."""

    settings: HubSettings = field(default_factory=HubSettings)
    cache: HubCache = field(default_factory=lambda: HubCache(None))
    today: Callable[[], str] = field(default=lambda: dt.date.today().isoformat())
    # after the Hub could not be reached, answers do not wait on it again for this long
    retry_after_s: float = 300.0
    _down: tuple[float, str] | None = field(default=None, init=False, repr=False)

    def _unreachable_now(self, query: str) -> HubResult | None:
        """The offline setting, or a recent failure to connect: answer at once without the network."""
        if self.settings.offline:
            return _unreachable(query, "HF_HUB_OFFLINE is set")
        if self._down is not None and time.monotonic() < self._down[0]:
            return _unreachable(query, self._down[1])
        return None

    def _remember(self, result: HubResult, why: str) -> HubResult:
        if result.status == "unreachable":
            self._down = (time.monotonic() + self.retry_after_s, why)
        return result

    def lookup(self, repo_id: str) -> HubResult:
        """A repo id -> its record (cache, else the Hub). Never raises."""
        repo_id = repo_id.strip().strip("/")
        cached = self.cache.get_model(repo_id)
        if cached is not None:
            return replace(cached, query=repo_id)
        down = self._unreachable_now(repo_id)
        if down is not None:
            return down
        result = self._fetch(repo_id)
        if result.ok:
            self.cache.put_model(result)
        return result

    def search(self, name: str) -> HubResult:
        """A model name ('gemma 3 27b') -> the publisher's repo, looked up; or a question when several
        publishers fit, or not_found. Never raises."""
        cached = self.cache.get_search(name)
        if cached is None:
            down = self._unreachable_now(name)
            if down is not None:
                return down
            try:
                found = self._search(name)
            except Exception as exc:  # noqa: BLE001 - any transport failure means the same to the user
                return self._remember(_from_error(name, exc), _why(exc))
            repo, candidates = pick_canonical(name, found)
            if repo is not None or candidates:
                self.cache.put_search(name, repo, candidates, self.today())
        else:
            repo, candidates = cached
        if candidates:
            shown = ", ".join(candidates)
            return HubResult("ambiguous", name, candidates=candidates,
                             message=f"“{name}” on the Hugging Face Hub could be {shown}: which one? Paste its repo id.")
        if repo is None:
            return HubResult("not_found", name, message=f"No model named “{name}” on the Hugging Face Hub either.")
        return replace(self.lookup(repo), query=name)

    # network --------------------------------------------------------------------------------------
    def _api(self) -> Any:
        from huggingface_hub import HfApi

        return HfApi(endpoint=self.settings.endpoint.rstrip("/"), token=self.settings.token or False)

    def _search(self, name: str) -> list[tuple[str, int]]:
        """`GET /api/models?search=...&sort=downloads`: one request, no retries (`HfApi.list_models`
        retries a failed connection five times with back-off, half a minute before an answer)."""
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        query = "-".join(_TOKENS.findall(name.lower()))
        response = get_session().get(
            f"{self.settings.endpoint.rstrip('/')}/api/models",
            params={"search": query, "sort": "downloads", "direction": "-1", "limit": "30"},
            headers=build_hf_headers(token=self.settings.token or False), timeout=self.settings.timeout_s)
        hf_raise_for_status(response)
        found = response.json()
        return [(str(m.get("id") or m.get("modelId")), int(m.get("downloads") or 0))
                for m in found if isinstance(m, dict) and (m.get("id") or m.get("modelId"))]

    def _fetch(self, repo_id: str) -> HubResult:
        try:
            api = self._api()
            info = api.model_info(repo_id, timeout=self.settings.timeout_s)
            revision = str(info.sha or "main")
            files = {s.rfilename for s in (info.siblings or ())}
            config = self._get_json(repo_id, revision, "config.json")
            exact = self._safetensors_params(api, repo_id, revision, files, info)
        except Exception as exc:  # noqa: BLE001 - mapped to one user-facing outcome below
            return self._remember(_from_error(repo_id, exc), _why(exc))
        fetched_on = self.today()
        from catalog.hf_config import ConfigError

        try:
            record = record_from_hub(info.id or repo_id, config, revision=revision, fetched_on=fetched_on,
                                     exact_params=exact, endpoint=self.settings.endpoint)
        except (ConfigError, TypeError, ValueError) as exc:
            return HubResult("unusable", repo_id, repo_id,
                             message=f"{repo_id} is on the Hugging Face Hub, but its config.json cannot be sized ({exc}).")
        return HubResult("found", repo_id, info.id or repo_id, record, revision, fetched_on, exact)

    def _get_json(self, repo_id: str, revision: str, filename: str) -> dict[str, Any]:
        from huggingface_hub import hf_hub_url
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        url = hf_hub_url(repo_id, filename, revision=revision, endpoint=self.settings.endpoint.rstrip("/"))
        headers = build_hf_headers(token=self.settings.token or False)
        response = get_session().get(url, headers=headers, timeout=self.settings.timeout_s)
        hf_raise_for_status(response)
        data = response.json()
        if not isinstance(data, dict):
            raise ValueError(f"{filename} is not a JSON object")
        return data

    def _safetensors_params(self, api: Any, repo_id: str, revision: str, files: set[str], info: Any) -> int | None:
        """Exact parameter count from the safetensors headers (Range requests only)."""
        if "model.safetensors" in files:
            shards = ["model.safetensors"]
        elif "model.safetensors.index.json" in files:
            index = self._get_json(repo_id, revision, "model.safetensors.index.json")
            shards = sorted(set((index.get("weight_map") or {}).values()))
        else:
            return None
        if len(shards) > MAX_SHARDS:
            total = getattr(getattr(info, "safetensors", None), "total", None)
            return int(total) if total else None

        def count(filename: str) -> int:
            meta = api.parse_safetensors_file_metadata(repo_id, filename, revision=revision,
                                                       timeout=self.settings.timeout_s)
            return sum(meta.parameter_count.values())

        # imported only when safetensors shards are fetched: not at every start (cold start)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(8, len(shards))) as pool:
            return sum(pool.map(count, shards))


def _unreachable(query: str, why: str) -> HubResult:
    return HubResult("unreachable", query,
                     message=f"The Hugging Face Hub could not be reached ({why}), so “{query}” is estimated "
                             "from the sizes its name states.")


def _why(exc: Exception) -> str:
    """A short reason for the 'could not be reached' line: 'no answer within 10 s', 'HTTP 503', 'connection failed'."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status:
        return f"HTTP {status}"
    name = type(exc).__name__
    if "Timeout" in name or isinstance(exc, TimeoutError):
        return "no answer in time"
    if "Connect" in name or isinstance(exc, OSError):
        return "connection failed"
    if "Offline" in name:
        return "HF_HUB_OFFLINE is set"
    return name


def _from_error(query: str, exc: Exception) -> HubResult:
    """Map a huggingface_hub / transport error to one outcome a user can act on."""
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, GatedRepoError):
        how = ("the token in HF_TOKEN has no access yet: accept the licence on the model's page with that account"
               if status == 403 else
               "accept the licence on the model's page, then set HF_TOKEN to a read token of that account "
               "(huggingface.co/settings/tokens) and restart")
        return HubResult("gated", query, query,
                         message=f"{query} is a gated model on the Hugging Face Hub: {how}. Until then it is "
                                 "estimated from the sizes its name states.")
    if isinstance(exc, RepositoryNotFoundError) or (isinstance(exc, HfHubHTTPError) and status == 404):
        return HubResult("not_found", query,
                         message=f"There is no model “{query}” on the Hugging Face Hub (if it is private, set HF_TOKEN).")
    if isinstance(exc, HfHubHTTPError) and status is not None and 400 <= status < 500:
        return HubResult("not_found", query, message=f"The Hugging Face Hub refused “{query}” (HTTP {status}).")
    return _unreachable(query, _why(exc))

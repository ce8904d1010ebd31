"""`gpu-advisor`: the scripting interface (docs/json.md) over the same `Advisor` the
Slack app uses. A thin shell: parse arguments, call the service, print.

Exit codes: 0 for every answer (text that cannot be understood is answered with questions), 2 for
usage errors (bad arguments, invalid JSON or workload fields on stdin), 1 when `serve` cannot start
(a missing or rejected token: one line on stderr naming the variable, no traceback).
"""

from __future__ import annotations

from bot import regex_cache

regex_cache.preload(regex_cache.default_path())  # before the imports below compile their patterns

import argparse  # noqa: E402 - after the patterns are back in re's cache
import contextlib  # noqa: E402
import datetime as dt  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Any, NoReturn, TextIO  # noqa: E402


def _without_pydantic_plugins() -> None:
    """No pydantic plugin is used, so skip their discovery: an entry-point scan of every installed
    package (~4 ms of each cold start), turned off by pydantic's documented PYDANTIC_DISABLE_PLUGINS.
    pydantic reads that variable only after importing its plugin loader, whose module-level import
    of importlib.metadata (with email, zipfile, csv and socket) costs ~8 ms more; with every plugin
    disabled that loader can only answer "none", so a loader that says so stands in for it. Runs
    before the first model class is built; a caller's own setting wins, and one that enables any
    plugin gets pydantic's real loader."""
    if os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__") not in ("__all__", "1", "true"):
        return
    if "pydantic.plugin._loader" not in sys.modules:
        loader = types.ModuleType("pydantic.plugin._loader", "No pydantic plugins (set by gpu-advisor's CLI).")
        loader.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> (): no plugin
        sys.modules["pydantic.plugin._loader"] = loader


_without_pydantic_plugins()

from bot.config import Config, ConfigError, default_catalog_cache  # noqa: E402 - after the setting above

if TYPE_CHECKING:  # the server is imported only by `serve`
    from bot.server import Running

USAGE_ERROR = 2
CHAT_HINT = "More: type details, options or formulas."
START_ERROR = 1


class UsageError(Exception):
    """Bad input from the caller; the message is printed as `gpu-advisor <cmd>: <message>`."""


# --- helpers ------------------------------------------------------------------------------------
def _advisor(config: Config) -> Any:
    from bot.service import Advisor

    # the CLI's commands run on one thread: the catalog is opened directly, not confined to its own thread
    return Advisor.open(config.catalog_path, [config.catalog_dir], hub_settings=config.hub_settings(), confined=False)


def _catalog(config: Config) -> Any:
    from catalog import open_catalog

    dirs = [config.catalog_dir] if config.catalog_dir.is_dir() else []
    return open_catalog(config.catalog_path, extra_data_dirs=dirs)


def _print_json(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, indent=2, default=str) + "\n")


# --- commands -----------------------------------------------------------------------------------
def cmd_ask(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    advisor = _advisor(config)
    # a full answer keeps every question (the token count, the data's location); only /vram drops
    # the ones that do not change memory
    response = advisor.respond(advisor.new_conversation(), " ".join(args.text))
    if args.json:  # no templates for JSON: jinja2 and the renderer stay unimported (cold start)
        _print_json(advisor.contract(response), out)
    else:
        from bot.terminal import DETAILS_HINT, render_terminal

        out.write(render_terminal(response, advisor.display_names(), details=args.details, hint=DETAILS_HINT))
    return 0


def cmd_vram(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from bot.terminal import render_terminal

    advisor = _advisor(config)
    response = advisor.vram(" ".join(args.text))
    out.write(render_terminal(response, advisor.display_names(), vram_only=True))
    return 0


def cmd_estimate(args: argparse.Namespace, config: Config, out: TextIO, stdin: TextIO) -> int:
    raw = stdin.read()
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"stdin is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict):
        raise UsageError("stdin must be a JSON object of workload fields, e.g. {\"model\": \"llama 3 70b\"}")
    advisor = _advisor(config)
    advice, errors = advisor.estimate_workload(data)
    if errors:
        raise UsageError("invalid workload: " + "; ".join(errors))
    from bot.service import Response

    response = Response("", "describe", advice.workload, advice, missing=list(advice.missing),
                        hardware=advisor.hardware_kinds())
    if args.json:
        _print_json(advisor.contract(response), out)
    else:
        from bot.terminal import render_terminal

        out.write(render_terminal(response, advisor.display_names()))
    return 0


def cmd_chat(args: argparse.Namespace, config: Config, out: TextIO, stdin: TextIO) -> int:
    from bot.service import thread_word
    from bot.terminal import render_terminal

    advisor = _advisor(config)
    conversation = advisor.new_conversation()
    previous = None
    interactive = stdin.isatty()
    if interactive:
        out.write("Describe a workload (e.g. 'QLoRA 70B, 500GB corpus in S3, 20 runs'); 'undo' or 'quit'.\n")
    while True:
        if interactive:
            out.write("> ")
            out.flush()
        line = stdin.readline()
        if not line:
            break
        text = line.strip()
        if not text:
            continue
        if text.lower() in ("quit", "exit", "bye"):
            break
        if not interactive:
            out.write(f"> {text}\n")
        word = thread_word(text)
        if word in ("details", "options", "formulas", "cheaper"):
            from bot.service import Response
            from bot.terminal import render_layer

            out.write(render_layer(word, Response(text, "help", None, previous), advisor.display_names(),
                                   advisor.advise) + "\n")
            continue
        response = advisor.respond(conversation, text, previous)
        previous = response.advice
        out.write(render_terminal(response, advisor.display_names(), hint=CHAT_HINT) + "\n")
        out.flush()
    return 0


def cmd_serve(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    if args.worker_index is not None:
        return _serve_worker(args, config)
    workers = args.workers
    if workers is None:
        from bot.workers import default_workers

        workers = default_workers()
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if workers == 1:
        return _serve_one(args, config)
    return _serve_supervised(args, config, workers)


def _serve_one(args: argparse.Namespace, config: Config) -> int:
    from bot import gc_settings
    from bot.server import start

    running = start(config, host=args.host, port=args.port, background=False)
    gc_settings.serving()
    _stop_on_sigterm()
    return _serve_until_stopped(running, announce=True)


def _stop_on_sigterm() -> None:
    """SIGTERM stops a server as Ctrl-C does: a KeyboardInterrupt through its loop, so it stops in order."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def _serve_until_stopped(running: Running, announce: bool) -> int:
    """Serve HTTP or hold the Socket Mode connection until interrupted, then stop the server."""
    try:
        if running.http is not None:
            if announce:
                sys.stderr.write(f"gpu-advisor: listening on {running.http.url}/slack/events\n")
                sys.stderr.flush()
            running.http.serve_forever(poll_interval=0.2)
        else:
            if announce:
                sys.stderr.write("gpu-advisor: connected in Socket Mode\n")
                sys.stderr.flush()
            import threading

            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
    return 0


def _serve_supervised(args: argparse.Namespace, config: Config, workers: int) -> int:
    """N worker processes on one socket (HTTP) or N Socket Mode connections, one store."""
    from bot.workers import Supervisor

    config.check_for_serve()  # one line here rather than one per worker
    if not config.oauth:
        from bot.app import check_token, web_client

        check_token(web_client(config))
    supervisor = Supervisor(workers, http=not config.socket_mode, host=args.host, port=args.port)
    _stop_on_sigterm()
    try:
        try:
            supervisor.start()
        except RuntimeError as exc:
            raise ConfigError(str(exc)) from None
        if supervisor.http:
            sys.stderr.write(f"gpu-advisor: listening on {supervisor.url}/slack/events ({workers} workers)\n")
        else:
            sys.stderr.write(f"gpu-advisor: connected in Socket Mode ({workers} workers)\n")
        sys.stderr.flush()
        supervisor.run_forever()
    except KeyboardInterrupt:
        pass
    finally:
        supervisor.stop()
    return 0


def _serve_worker(args: argparse.Namespace, config: Config) -> int:
    """One worker under `_serve_supervised`: serve on the inherited socket until SIGTERM."""
    import socket

    from bot.server import start
    from bot.workers import die_with_parent, signal_ready, supervisor_pid

    die_with_parent(supervisor_pid())
    listen = socket.socket(fileno=args.worker_fd) if args.worker_fd is not None else None
    try:
        running = start(config, background=False, listen_socket=listen)
    except ConfigError as exc:
        sys.stderr.write(f"gpu-advisor serve (worker {args.worker_index}): {exc}\n")
        return START_ERROR
    from bot import gc_settings

    gc_settings.serving()
    _stop_on_sigterm()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the supervisor, which stops us in order
    signal_ready(args.ready_fd)
    return _serve_until_stopped(running, announce=False)


def cmd_catalog_build(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from catalog import build_catalog
    from catalog.files import data_dirs_or_default

    target = Path(args.db) if args.db else (config.catalog_path or default_catalog_cache())
    dirs = data_dirs_or_default(None) + ([config.catalog_dir] if config.catalog_dir.is_dir() else [])
    out.write(f"{build_catalog(target, dirs)}\n")
    return 0


def _listing(kind: str, columns: Sequence[str]):
    def run(args: argparse.Namespace, config: Config, out: TextIO) -> int:
        records = getattr(_catalog(config), kind)()
        if args.json:
            _print_json([r.model_dump() for r in records], out)
            return 0
        rows = [[str(getattr(r, c, "") if getattr(r, c, None) is not None else "") for c in columns] for r in records]
        widths = [max([len(c), *(len(row[i]) for row in rows)]) for i, c in enumerate(columns)]
        out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip() + "\n")
        for row in rows:
            out.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() + "\n")
        return 0

    return run


def cmd_import_model(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from catalog.hf_config import ConfigError as ModelConfigError
    from catalog.hf_config import add_model_to_file, model_from_config

    try:
        config_json = json.loads(Path(args.config).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"cannot read {args.config}: {exc}") from None
    try:
        record = model_from_config(config_json, name=args.name, model_id=args.id, source=f"config.json {args.config}")
    except ModelConfigError as exc:
        raise UsageError(str(exc)) from None
    config.catalog_dir.mkdir(parents=True, exist_ok=True)
    replaced = add_model_to_file(record, config.catalog_dir / "models.csv")
    out.write(f"{'replaced' if replaced else 'added'} {record.id} ({record.total_params_b:g}B params) "
              f"in {config.catalog_dir / 'models.csv'}\n")
    return 0


def cmd_import_skypilot(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from catalog.skypilot import merge_offers, read_skypilot_csv

    if not Path(args.file).is_file():
        raise UsageError(f"no such file: {args.file}")
    skipped: list[str] = []
    offers = read_skypilot_csv(args.file, args.provider, args.observed_on, catalog=_catalog(config), skipped=skipped)
    config.catalog_dir.mkdir(parents=True, exist_ok=True)
    merge_offers(offers, config.catalog_dir / "offers.csv")
    out.write(f"imported {len(offers)} offers for {args.provider} into {config.catalog_dir / 'offers.csv'}"
              f" ({len(skipped)} rows skipped)\n")
    return 0


def cmd_catalog_refresh(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Download SkyPilot's current prices, print what changed, keep them for later answers."""
    from bot.price_refresh import refresh_catalog_prices
    from catalog.refresh import to_json

    base_url = args.base_url or config.catalog_url
    catalog = _catalog(config)
    results = refresh_catalog_prices(catalog, base_url=base_url, providers=args.provider or None,
                                     timeout_s=args.timeout, all_regions=args.all_regions)
    if args.json:
        _print_json(to_json(results), out)
    else:
        for result in results:
            out.write("\n".join(result.lines()) + "\n")
        where = config.catalog_path or "the in-memory catalog"
        kept = sum(r.ok for r in results)
        out.write(f"{kept} of {len(results)} providers refreshed; prices stored in {where}\n")
    return 0 if any(r.ok for r in results) else START_ERROR


def cmd_catalog_lookup(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Look a model up on the Hugging Face Hub (repo id or name) and print its record."""
    from bot.hub_names import hub_client
    from catalog.hub import is_repo_id

    settings = config.hub_settings()
    if settings is None:
        raise UsageError("Hub lookups are off (GPU_ADVISOR_HUB=0)")
    client = hub_client(settings, config.catalog_path)
    result = client.lookup(args.name) if is_repo_id(args.name) else client.search(args.name)
    if args.json:
        _print_json({"status": result.status, "repo_id": result.repo_id, "revision": result.revision,
                     "fetched_on": result.fetched_on, "exact_params": result.exact_params,
                     "message": result.message, "candidates": list(result.candidates),
                     "record": result.record.model_dump() if result.record else None}, out)
    elif result.record is not None:
        r = result.record
        out.write(f"{result.provenance()}\n{r.id}: {r.total_params_b:g}B total, {r.active_params_b:g}B active, "
                  f"{r.num_layers} layers, hidden {r.hidden_size}, {r.num_kv_heads} KV heads, context {r.max_context:,}, "
                  f"weights {r.native_precision}\n")
    else:
        out.write(result.message + "\n")
    return 0 if result.ok else START_ERROR


# --- the parser ---------------------------------------------------------------------------------
COMMANDS = ("ask", "estimate", "chat", "vram", "serve", "catalog")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `command` (one of COMMANDS) only that command's parser: argparse
    looks up translations of its own messages for every parser it builds (~4 ms for all of them), and
    a command needs only its own. Help and errors for that command read the same either way."""

    def wanted(name: str) -> bool:
        return command is None or command == name

    parser = argparse.ArgumentParser(
        prog="gpu-advisor",
        description="Which GPUs, how many, how fast and what it costs, for an ML workload — in Slack and here.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    if wanted("ask"):
        p = sub.add_parser("ask", help="answer one question, as the bot would in Slack",
                           description="Answer one question, rendered for the terminal (or as JSON with --json).")
        p.add_argument("text", nargs="+", help="the question, e.g. 'QLoRA 70B, 500GB corpus in S3, 20 runs'")
        p.add_argument("--json", action="store_true", help="print only the machine-readable answer (docs/json.md)")
        p.add_argument("--details", action="store_true",
                       help="after the summary, the memory breakdown, interconnect checklist, every assumption, "
                            "every option's four cost rows and the formulas")
        p.set_defaults(run=cmd_ask)

    if wanted("estimate"):
        p = sub.add_parser("estimate", help="estimate a workload given as JSON on stdin",
                           description="Read a workload object (field names in docs/json.md) on stdin and estimate it.")
        p.add_argument("--json", action="store_true", help="print the same JSON as `ask --json` (docs/json.md)")
        p.set_defaults(run=cmd_estimate, stdin=True)

    if wanted("chat"):
        p = sub.add_parser("chat", help="multi-turn conversation over stdin",
                           description="A conversation like a Slack thread: questions, answers, refinements, undo.")
        p.set_defaults(run=cmd_chat, stdin=True)

    if wanted("vram"):
        p = sub.add_parser("vram", help="quick VRAM check, the terminal twin of /vram",
                           description="Memory per GPU for a model and mode, e.g. `gpu-advisor vram 70B qlora`.")
        p.add_argument("text", nargs="+", help="model and mode, e.g. '70B qlora'")
        p.set_defaults(run=cmd_vram)

    if wanted("serve"):
        p = sub.add_parser("serve", help="run the Slack app (HTTP or Socket Mode)",
                           description="Run the Slack app: Socket Mode when SLACK_APP_TOKEN is set, else HTTP with "
                                       "events, commands and interactivity at POST /slack/events. Environment: "
                                       "SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN, SLACK_API_URL, "
                                       "GPU_ADVISOR_DB (a SQLite path or a postgresql:// URL), and for installs in "
                                       "many workspaces SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_SCOPES.")
        p.add_argument("--host", default="127.0.0.1", help="interface to listen on in HTTP mode (default 127.0.0.1)")
        p.add_argument("--port", type=int, default=3000, help="port in HTTP mode (default 3000; 0 picks a free one)")
        p.add_argument("--workers", type=int, default=None,
                       help="serving processes sharing the port and the store (default: the number of cores)")
        p.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)  # set by the supervisor
        p.add_argument("--worker-fd", type=int, default=None, help=argparse.SUPPRESS)
        p.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)
        p.set_defaults(run=cmd_serve)

    if wanted("catalog"):
        cat = sub.add_parser("catalog", help="build, list and extend the GPU / model / offer catalog",
                             description="The catalog of GPUs, models, offers and provider prices.")
        csub = cat.add_subparsers(dest="catalog_command", required=True, metavar="SUBCOMMAND")
        p = csub.add_parser("build", help="rebuild the catalog database from the data files",
                            description="Rebuild the SQLite catalog from the packaged data plus imported rows.")
        p.add_argument("--db", help="where to write the database (default: GPU_ADVISOR_CATALOG_DB or the data dir)")
        p.set_defaults(run=cmd_catalog_build)
        for kind, columns, what in (
            ("gpus", ("id", "name", "memory_gb", "memory_bandwidth_tb_s", "bf16_dense_tflops", "scaleup_link"), "GPUs"),
            ("offers", ("id", "gpu", "gpus_per_node", "on_demand_usd_per_hour", "inter_node_fabric"), "rentable offers"),
            ("models", ("id", "name", "total_params_b", "active_params_b", "num_layers", "max_context"), "models"),
        ):
            p = csub.add_parser(kind, help=f"list {what}", description=f"List the catalog's {what}.")
            p.add_argument("--json", action="store_true", help="print records as JSON")
            p.set_defaults(run=_listing(kind, columns))
        p = csub.add_parser("import-model", help="add a model from a Hugging Face config.json",
                            description="Compute a model's shape and parameter count from its config.json and add it "
                                        "to the imported catalog rows.")
        p.add_argument("config", help="path to config.json")
        p.add_argument("--name", required=True, help="display name, e.g. 'My Llama 13B'")
        p.add_argument("--id", help="catalog id (default: derived from the name)")
        p.set_defaults(run=cmd_import_model)
        p = csub.add_parser("import-skypilot", help="import offers from a SkyPilot vms.csv",
                            description="Import a provider's instance types and prices from a SkyPilot catalog CSV.")
        p.add_argument("file", help="path to the SkyPilot vms.csv")
        p.add_argument("--provider", required=True, help="provider id, e.g. aws, gcp, lambda")
        p.add_argument("--observed-on", default=dt.date.today().isoformat(), help="date the prices were read (ISO)")
        p.set_defaults(run=cmd_import_skypilot)
        p = csub.add_parser("refresh", help="download current prices from SkyPilot's hosted catalog",
                            description="Download SkyPilot's current vms.csv per provider, show what changed against the "
                                        "bundled prices, and keep the new prices (with URL and date) for later answers. "
                                        "A failed download keeps the previous prices. Environment: "
                                        "GPU_ADVISOR_CATALOG_URL (base URL), GPU_ADVISOR_CATALOG_DB.")
        p.add_argument("--provider", action="append", metavar="ID",
                       help="only this provider (repeatable; default: every provider SkyPilot covers)")
        p.add_argument("--base-url", help="where the <cloud>/vms.csv files are (default: GPU_ADVISOR_CATALOG_URL or "
                                          "SkyPilot's public catalog, schema v8)")
        p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each download (default 30)")
        p.add_argument("--all-regions", action="store_true",
                       help="keep every region (default: the regions the bundled data prices)")
        p.add_argument("--json", action="store_true", help="print the report as JSON")
        p.set_defaults(run=cmd_catalog_refresh)
        p = csub.add_parser("lookup", help="look a model up on the Hugging Face Hub",
                            description="Read a model's config.json and safetensors headers from the Hugging Face Hub "
                                        "(a repo id like Qwen/Qwen3-32B, or a name to search) and cache it in the "
                                        "catalog. Environment: HF_TOKEN, HF_ENDPOINT, HF_HUB_OFFLINE.")
        p.add_argument("name", help="repo id (org/name) or model name")
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.set_defaults(run=cmd_catalog_lookup)

    return parser


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
         exiting: bool = False) -> int:
    """Run one command and return its exit code. `exiting`: the process ends with this command (the
    console script), so a one-shot command leaves without the interpreter's teardown (`_leave`)."""
    given = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(given[0] if given and given[0] in COMMANDS else None)
    args = parser.parse_args(given)
    out = stdout or sys.stdout
    config = Config.from_env()
    name = " ".join(filter(None, [args.command, getattr(args, "catalog_command", None)]))
    from bot import gc_settings

    compiled = config.catalog_path.with_name("regexes.cache") if config.catalog_path is not None else None
    if compiled != regex_cache.default_path():  # a catalog path given another way: its own file
        regex_cache.preload(compiled)

    if args.command == "serve":  # the workers tune their collector once they are built; a normal exit
        return _run(args, name, lambda: args.run(args, config, out))
    with gc_settings.one_shot(exiting=exiting):
        if getattr(args, "stdin", False):
            code = _run(args, name, lambda: args.run(args, config, out, stdin or sys.stdin))
        else:
            code = _run(args, name, lambda: args.run(args, config, out))
    regex_cache.save(compiled)  # only writes when this run compiled patterns the file lacked
    if exiting:
        _leave(code)
    return code


def _run(args: argparse.Namespace, name: str, command: Any) -> int:
    """The command's exit code, with the errors a caller makes turned into one line on stderr."""
    try:
        return int(command())
    except UsageError as exc:
        sys.stderr.write(f"gpu-advisor {name}: {exc}\n")
        return USAGE_ERROR
    except ConfigError as exc:
        sys.stderr.write(f"gpu-advisor {name}: {exc}\n")
        return START_ERROR
    except BrokenPipeError:
        # `gpu-advisor catalog offers | head`: the reader left; stop quietly like other Unix tools.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _leave(code: int) -> NoReturn:
    """End the process now that a one-shot command has answered: flush what it wrote and the log,
    then exit without the interpreter's teardown. That teardown frees every module and object one
    by one and runs a last full collection: ~40 ms of a ~300 ms cold `ask`, for memory the operating
    system takes back at once. Nothing a one-shot command leaves needs it: its files are written and
    closed (the catalog and grammar caches by rename), its SQLite commits are durable, and the
    catalog's worker thread holds no work."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader left, or the stream is closed
            stream.flush()
    os._exit(code)


def run() -> NoReturn:
    """The `gpu-advisor` console script and `python -m bot`."""
    sys.exit(main(exiting=True))


if __name__ == "__main__":  # pragma: no cover
    run()

"""The Cost line of training on reserved GPUs the runs leave idle part of the month.

A 1-3 year reservation is paid for all 730 h a month, busy or not: "train 8B on 500B tokens with 64 B200s
reserved" led with "$35,041 per run", the reserved hours one 142 h run uses, while the commitment the team would
sign is $179,872 a month (~$2.16M a year). The line leads with that, says what it makes a run at the runs asked,
and sets the on-demand price of a run beside it with which is the cheaper (engine.tco.reserved_commitment: the
same figures as the engine's "Reserved:" note)."""

from __future__ import annotations

from bot.formatting import fmt_usd, fmt_usd_short
from engine.models import Option, TcoOption, Workload
from engine.tco import RESERVED_FILLED, reserved_commitment


def reserved_cost_line(w: Workload, winner: Option, best: TcoOption | None) -> str:
    """"*$179,872 a month* (~$2.16M a year) for 64 GPUs reserved, paid busy or not: at 1 run a month that is $180k a
    run … · on demand ~$50k a run, the cheaper: …", or "" when the pricing is not reserved training or the runs
    fill the reservation (its monthly bill is then the price, and the usual line says it)."""
    commit = reserved_commitment(w, best, winner.cluster.gpus, winner.hours_per_run)
    if commit is None or commit.busy >= RESERVED_FILLED:
        return ""
    runs = f"{commit.runs:g} run{'' if commit.runs == 1 else 's'}"
    line = (f"*{fmt_usd(commit.usd_per_month)} a month* (~{fmt_usd_short(commit.usd_per_month * 12)} a year) for "
            f"{commit.gpus:,} GPU{'' if commit.gpus == 1 else 's'} reserved, paid busy or not: at {runs} a month that is "
            f"{fmt_usd_short(commit.usd_per_run)} a run (the reserved hours a run uses: "
            f"{fmt_usd(commit.usd_per_month * commit.busy / commit.runs)}) on {winner.name}")
    if commit.on_demand_usd_per_run is None:
        return line
    used = "under 1%" if commit.busy < 0.005 else f"{commit.busy:.0%}"
    busy = f"{runs} a month keep{'s' if commit.runs == 1 else ''} the reservation {used} busy"
    verdict = (f"the cheaper: {busy}, under the {commit.break_even:.0%} it pays from" if commit.on_demand_cheaper
               else f"dearer: {busy}, past the {commit.break_even:.0%} it pays from")
    return f"{line} · on demand ~{fmt_usd_short(commit.on_demand_usd_per_run)} a run, {verdict}"

"""Egress: what moving the training data to the GPUs costs, and how hard leaving a cloud is.

The naive form is `monthly_egress = dataset_gb x pulls_per_month x usd_per_gb` at a flat $0.09/GB;
the real AWS table is tiered (first 100 GB/month free, $0.09/GB to
10 TB, cheaper beyond), so 20 x 500 GB in one month is $891, not $900. The engine walks the
*source* provider's tier table from the catalog (`ProviderRecord.egress_tiers`, never a constant
here); a flat rate (`Workload.egress_usd_per_gb`) reproduces the naive form.

Tier tables are read as *cumulative* monthly bounds: `EgressTier(up_to_gb=100, usd_per_gb=0)`
then `EgressTier(up_to_gb=10_240, usd_per_gb=0.09)` means GB 0-100 are free and GB 100-10,240
cost $0.09. The last tier has `up_to_gb=None` (unbounded).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from catalog.records import EgressTier, ProviderRecord
from engine.models import Figure, Workload


def tiered_cost(volume_gb: float, tiers: Sequence[EgressTier]) -> Figure:
    """USD for `volume_gb` leaving a provider in one month, walking its tier table.

    Why a walk and not `volume x rate`: the free allowance and the volume discounts change the
    answer. Negative or NaN volumes count as 0 so a cost is never negative.
    """
    volume = volume_gb if volume_gb and math.isfinite(volume_gb) and volume_gb > 0 else 0.0
    usd = 0.0
    lower_gb = 0.0
    slices: list[dict[str, float | None]] = []
    for tier in tiers:
        upper = math.inf if tier.up_to_gb is None else float(tier.up_to_gb)
        if upper <= lower_gb:
            continue
        in_tier_gb = max(0.0, min(volume, upper) - lower_gb)
        if in_tier_gb > 0:
            usd += in_tier_gb * tier.usd_per_gb
            slices.append({"from_gb": lower_gb, "gb": in_tier_gb, "usd_per_gb": tier.usd_per_gb})
        lower_gb = upper
        if volume <= upper:
            break
    else:
        if volume > lower_gb and tiers:
            # table ends with a bounded tier: bill the rest at the last rate and say so
            rest_gb = volume - lower_gb
            usd += rest_gb * tiers[-1].usd_per_gb
            slices.append({"from_gb": lower_gb, "gb": rest_gb, "usd_per_gb": tiers[-1].usd_per_gb})
    notes: tuple[str, ...] = ()
    if not tiers:
        notes = ("no egress tier table for this provider: counted as $0; check the provider's price list",)
    return Figure(
        value=usd,
        unit="USD",
        formula="sum over monthly tiers of GB in tier x USD/GB",
        inputs={"volume_gb": volume, "tiers": slices},
        notes=notes,
    )


def flat_cost(volume_gb: float, usd_per_gb: float) -> Figure:
    """USD at one flat rate: what the user asked for when they set a rate."""
    volume = volume_gb if volume_gb and math.isfinite(volume_gb) and volume_gb > 0 else 0.0
    rate = usd_per_gb if math.isfinite(usd_per_gb) and usd_per_gb > 0 else 0.0
    return Figure(
        value=volume * rate,
        unit="USD",
        formula="volume_gb x flat usd_per_gb",
        inputs={"volume_gb": volume, "usd_per_gb": rate},
    )


def tier_table_text(tiers: Sequence[EgressTier]) -> str:
    """'first 100 GB free, $0.09/GB to 10,240 GB, ...': the table named in replies."""
    parts: list[str] = []
    lower = 0.0
    for tier in tiers:
        price = "free" if tier.usd_per_gb == 0 else f"${tier.usd_per_gb:g}/GB"
        if tier.up_to_gb is None:
            parts.append(f"{price} beyond {lower:,.0f} GB")
        elif lower == 0:
            parts.append(f"first {tier.up_to_gb:,.0f} GB {price}")
        else:
            parts.append(f"{price} to {tier.up_to_gb:,.0f} GB")
        lower = tier.up_to_gb or lower
    return ", ".join(parts) if parts else "no tier table"


def same_cloud(data_location: str | None, destination: ProviderRecord | None) -> bool:
    """True when the GPUs run inside the cloud that holds the data (no internet egress).

    Same-region transfer inside one cloud is free or cents; cross-region is not modelled.
    """
    return bool(data_location and destination is not None and destination.cloud == data_location)


def egress_for(
    w: Workload,
    source: ProviderRecord | None,
    destination: ProviderRecord | None,
) -> dict[str, Any]:
    """Egress per pull, for the cached workflow (one pull a month) and the uncached one.

    Cached = one pull a month, or fewer when runs are rarer than monthly (0.5 runs/month = half a
    pull a month on average), so caching never costs more than pulling every run.

    `source` is the provider holding the data (the data_location's cloud), `destination` the GPU
    provider. Returns Figures under `per_pull`, `cached`, `uncached` plus `same_cloud`, `basis`
    and `pulls_per_month`. Unknown data location -> no egress, said in `notes`.
    """
    dataset_gb = float(w.dataset_gb or 0.0)
    runs = float(w.runs_per_month or 1.0)
    pulls = float(w.dataset_pulls_per_month) if w.dataset_pulls_per_month is not None else runs
    notes: list[str] = []
    zero = Figure(value=0.0, unit="USD", formula="0", inputs={})
    result: dict[str, Any] = {
        "dataset_gb": dataset_gb,
        "pulls_per_month": pulls,
        "same_cloud": False,
        "basis": "none",
        "per_pull": zero,
        "cached": zero,
        "uncached": zero,
        "notes": notes,
    }
    if w.data_location is None:
        notes.append("data location not given: no egress counted (say where the data lives to include it)")
        return result
    if dataset_gb <= 0:
        notes.append("no dataset size: no egress counted")
        return result
    if same_cloud(w.data_location, destination):
        result["same_cloud"] = True
        result["basis"] = "same_cloud"
        same = Figure(
            value=0.0,
            unit="USD",
            formula="0: GPUs in the same cloud as the data",
            inputs={"data_location": w.data_location, "provider": destination.id if destination else None},
        )
        result.update(per_pull=same, cached=same, uncached=same)
        return result
    if w.egress_usd_per_gb is not None:
        rate = w.egress_usd_per_gb
        result["basis"] = f"flat ${rate:g}/GB (your rate)"
        result["per_pull"] = flat_cost(dataset_gb, rate)
        result["cached"] = flat_cost(dataset_gb * min(1.0, pulls), rate)
        result["uncached"] = flat_cost(dataset_gb * pulls, rate)
        return result
    if source is None:
        notes.append(
            f"no egress price table for data location '{w.data_location}': counted as $0; "
            "give a rate (\"egress $0.09/GB\") to include it"
        )
        result["basis"] = "unknown"
        return result
    tiers = source.egress_tiers
    result["basis"] = f"{source.name} monthly tiers: {tier_table_text(tiers)}"
    result["per_pull"] = tiered_cost(dataset_gb, tiers)
    result["cached"] = tiered_cost(dataset_gb * min(1.0, pulls), tiers)
    result["uncached"] = tiered_cost(dataset_gb * pulls, tiers)
    if tiers and tiers[0].usd_per_gb == 0:
        notes.append(
            f"{source.name}'s free {tiers[0].up_to_gb:,.0f} GB/month is per account across all services; "
            "if other traffic already uses it, egress is higher by up to "
            f"${(tiers[0].up_to_gb or 0) * (tiers[1].usd_per_gb if len(tiers) > 1 else 0):,.0f}"
        )
    return result


# --- migration friction ---------------------------------------------------------------------

_HIGH = (
    ("sagemaker", "SageMaker endpoints/pipelines embed training logic that is not portable: a rewrite, not a copy"),
    ("vertex", "Vertex AI pipelines/endpoints embed cloud-specific logic: a rewrite, not a copy"),
    ("azure ml", "Azure ML pipelines/endpoints embed cloud-specific logic: a rewrite, not a copy"),
    ("eks", "EKS workloads carry IAM policies, autoscalers and networking rules tied to AWS primitives"),
    ("gke", "GKE workloads carry IAM policies, autoscalers and networking rules tied to GCP primitives"),
    ("aks", "AKS workloads carry identity, autoscaler and networking rules tied to Azure primitives"),
    ("iam", "IAM policies reference cloud-specific primitives: they must be rebuilt"),
    ("autoscal", "cluster autoscalers are cloud-specific: they must be rebuilt"),
    ("vpc", "cloud networking rules (VPCs, security groups) must be re-created"),
    ("network", "cloud networking rules must be re-created"),
    ("lambda function", "serverless functions are cloud-specific code"),
)
_MEDIUM = (
    ("s3", "S3 data is portable but moving it costs egress (calculable) and time"),
    ("gcs", "GCS data is portable but moving it costs egress (calculable) and time"),
    ("blob", "Blob storage data is portable but moving it costs egress and time"),
    ("cloudwatch", "CloudWatch dashboards/alarms must be rebuilt elsewhere"),
    ("dashboard", "dashboards must be rebuilt elsewhere"),
    ("monitor", "monitoring must be rebuilt elsewhere"),
    ("rds", "a managed database can be exported, at a cost in time and egress"),
)
_LOW = (
    ("ecr", "container images (ECR) push to any registry"),
    ("container", "container images move freely"),
    ("docker", "container images move freely"),
    ("image", "container images move freely"),
    ("weights", "exported model weights move freely"),
    ("checkpoint", "exported checkpoints move freely"),
    ("parquet", "open-format datasets move freely"),
    ("jsonl", "open-format datasets move freely"),
    ("dataset", "raw datasets in open formats move freely (egress aside)"),
)


def migration_friction(dependencies: Iterable[str] | None) -> list[dict[str, str]]:
    """Classify each named dependency as high / medium / low friction, with the reasoning.

    High: logic baked in (managed pipelines, IAM, autoscalers, networking) - a rewrite.
    Medium: portable data or config with a calculable price (S3 data + egress, dashboards).
    Low: artefacts in open formats (images, weights, datasets) - they move freely.
    Unrecognised names come back as "unknown" rather than a guess.
    """
    out: list[dict[str, str]] = []
    for dep in dependencies or ():
        text = str(dep).strip()
        key = text.lower()
        for level, table in (("high", _HIGH), ("medium", _MEDIUM), ("low", _LOW)):
            hit = next((why for word, why in table if word in key), None)
            if hit:
                out.append({"dependency": text, "friction": level, "why": hit})
                break
        else:
            out.append({"dependency": text, "friction": "unknown", "why": "not a dependency the advisor knows; judge by hand"})
    return out

"""Deterministic estimator: workload + catalog records -> memory, cluster, throughput, cost, ranking.

Pure functions over pydantic models. No I/O, no Slack, no database: everything it knows about
hardware and prices arrives as `catalog.records` objects.
"""

from engine.advise import advise
from engine.models import (
    Advice,
    Assumption,
    ClusterPlan,
    Figure,
    MemoryEstimate,
    Option,
    Problem,
    Recommendation,
    TcoOption,
    TcoRow,
    ThroughputEstimate,
    Workload,
)

__all__ = [
    "Advice", "Assumption", "ClusterPlan", "Figure", "MemoryEstimate", "Option", "Problem",
    "Recommendation", "TcoOption", "TcoRow", "ThroughputEstimate", "Workload", "advise",
]

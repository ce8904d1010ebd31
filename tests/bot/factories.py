"""Hand-built engine objects, so rendering and transport tests do not depend on the estimator's numbers."""

from __future__ import annotations

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


def fig(value: float, unit: str = "GB", formula: str = "params × bytes_per_param") -> Figure:
    return Figure(value=value, unit=unit, formula=formula, inputs={"params": 70e9, "bytes_per_param": 0.5})


def tco_option(name: str, provider: str, compute: float, egress: float = 0.0) -> TcoOption:
    rows = (
        TcoRow(item="compute", usd=compute, formula="gpu_hours × runs × rate"),
        TcoRow(item="storage", usd=11.5, formula="GB-months × rate"),
        TcoRow(item="egress", usd=egress, formula="GB × tier rate"),
        TcoRow(item="managed", usd=0.0, formula="compute × premium"),
    )
    return TcoOption(name=name, offer_id=None, provider=provider, rows=rows,
                     total_usd=sum(r.usd for r in rows), workflow="uncached")


def make_advice(*, runs: float = 20, gpu: str = "h100-sxm", fits: bool = True, n_options: int = 3,
                name_len: int = 0) -> Advice:
    workload = Workload(mode="qlora", params_b=70, dataset_gb=500, data_location="aws", runs_per_month=runs, gpu=None)
    effective = workload.model_copy(update={"precision": "nf4", "gpu": gpu, "seq_len": 2048, "model": "llama-3-70b"})
    memory = MemoryEstimate(
        per_gpu_gb=46.2, total_gb=46.2, gpus=1, usable_gb_per_gpu=70.0, fits=fits,
        components={"weights_gb": fig(35.0), "adapter_gb": fig(2.2), "activations_gb": fig(6.0), "overhead_gb": fig(3.0)},
    )
    cluster = ClusterPlan(
        gpu=gpu, gpus=1, nodes=1, gpus_per_node=8, fits=fits, data_parallel=1, tensor_parallel=1, pipeline_parallel=1,
        zero_stage=0, interconnect="single GPU", parallelism="none (fits on one GPU)", needs_nvlink=False,
        needs_infiniband=False,
    )
    throughput = ThroughputEstimate(
        training_tokens_per_s=fig(2500, "tokens/s", "flops / (factor × params)"),
        gpu_hours=fig(55.0, "GPU-h", "tokens / tokens_per_s / 3600"),
        wall_clock_hours=fig(55.0, "h", "gpu_hours / gpus"),
    )
    options = []
    for i in range(n_options):
        name = f"Provider{i} 1x H100 SXM (on-demand)" + "x" * name_len
        tco = tco_option(name, f"p{i}", compute=2000 + 300 * i * runs / 20, egress=900.0 if i else 0.0)
        options.append(Option(name=name, offer_id=None, gpu=gpu, mode="qlora", precision="nf4", memory=memory,
                              cluster=cluster, throughput=throughput, tco=(tco,), total_usd=tco.total_usd,
                              hours_per_run=55.0, rank_by_cost=i + 1))
    return Advice(
        workload=workload,
        effective=effective,
        assumptions=(Assumption(field="seq_len", value=2048, why="typical fine-tuning length"),),
        missing=("seq_len",),
        problems=() if fits else (Problem(code="fits_nowhere", message="needs more memory than one GPU has"),),
        memory=memory,
        cluster=cluster,
        throughput=throughput,
        options=tuple(options),
        recommendation=Recommendation(primary=options[0].name if options else None, why=("cheapest",),
                                      cost_range_usd=(options[0].total_usd, options[-1].total_usd) if options else None,
                                      what_would_change_it=("cache the dataset to cut egress",),
                                      runner_up=options[1].name if len(options) > 1 else None),
    )

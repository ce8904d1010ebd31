"""to_contract: exactly CONTRACT.md's keys, in order, JSON-serialisable; nulls where not computable."""

from __future__ import annotations

import json

from engine.advise import advise
from engine.contract import CONTRACT_WORKLOAD_KEYS, to_contract
from engine.models import Workload
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()
TOP_KEYS = ["workload", "missing", "questions", "assumptions", "report"]


def test_shape_and_order() -> None:
    w = Workload(mode="qlora", model="llama-3-70b", dataset_gb=500, runs_per_month=20, data_location="aws")
    out = to_contract(advise(w, DATA), questions=["How many epochs?"], missing=["epochs"])
    json.dumps(out, allow_nan=False)
    assert list(out)[:5] == TOP_KEYS
    # the contract's 28 workload keys, always present (null when not said), in contract order
    assert list(out["workload"]) == list(CONTRACT_WORKLOAD_KEYS) and len(CONTRACT_WORKLOAD_KEYS) == 28
    assert {"target_tokens_per_s_per_user", "target_ttft_s", "requests_per_s", "input_tokens", "output_tokens",
            "deadline_hours"} <= set(CONTRACT_WORKLOAD_KEYS)
    cached = to_contract(advise(w.model_copy(update={"cache_dataset": True}), DATA))
    assert list(cached["workload"])[:28] == list(CONTRACT_WORKLOAD_KEYS) and cached["workload"]["cache_dataset"] is True
    assert out["workload"]["params_b"] == 70.55  # filled from the catalog: a model was named
    assert out["workload"]["epochs"] is None  # the user-given workload, not the effective one
    assert out["questions"] == ["How many epochs?"] and "epochs" in out["missing"]
    assert all(set(a) == {"field", "value", "why"} for a in out["assumptions"])
    report = out["report"]
    assert list(report) == ["memory", "cluster", "throughput", "tco"]
    assert set(report["memory"]) == {"total_gb", "per_gpu_gb", "components"}
    assert abs(sum(report["memory"]["components"].values()) - report["memory"]["per_gpu_gb"]) < 0.05
    assert list(report["cluster"]) == ["gpu", "gpus", "nodes", "fits", "interconnect", "parallelism", "tp", "pp", "dp",
                                       "zero_stage", "gpus_per_replica", "replicas"]
    c = report["cluster"]
    assert c["tp"] * c["pp"] * c["dp"] == c["gpus"]  # the degrees multiply out to the plan
    contract_throughput = ["training_tokens_per_s", "gpu_hours", "decode_tokens_per_s", "decode_tokens_per_s_per_sequence"]
    assert list(report["throughput"])[:4] == contract_throughput  # additions may follow, never rename
    option = report["tco"]["options"][0]
    assert list(option)[:3] == ["name", "rows", "total_usd"]  # additions may follow
    assert [r["item"] for r in option["rows"]] == ["compute", "storage", "egress", "managed"]
    for extra in ("problems", "recommendation", "options", "notes", "formulas"):
        assert extra in out
    assert any(k.startswith("tco.") and k.endswith(".egress") for k in out["formulas"])


def test_nulls_when_nothing_computable() -> None:
    out = to_contract(advise(Workload(mode="inference", model="nope-model"), DATA))
    json.dumps(out, allow_nan=False)
    assert out["report"] == {"memory": None, "cluster": None, "throughput": None, "tco": None}
    assert out["problems"] and out["problems"][0]["code"] == "unknown_model"

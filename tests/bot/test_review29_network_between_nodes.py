"""The network between a training cluster's nodes as the user states it (review 29, item 13), on the real catalog:
"full finetune llama 3.1 70b on 4 nodes of 8xH100 but we only have 100GbE between nodes, no infiniband. 1B tokens" was
planned and priced as a Nebius rental with 8x400G InfiniBand, both facts dropped. Now the GPUs are theirs (power
cost), the network is 100 Gb/s Ethernet per node, the traffic between nodes is timed on it, the layout that sends the
fewest bytes across it is planned (pipeline stages across the nodes), and the answer says how much slower the run is
than on InfiniBand, with the arithmetic."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from catalog import open_catalog
from engine.advise import advise
from engine.architecture import from_record, generic_architecture
from engine.memory import Layout
from engine.models import Workload
from engine.network import ASSUMED_STEP_TOKENS, NETWORK_NOTE, cross_node_gb, step_traffic
from parser.network import network_said
from parser.normalize import normalize
from tests.bot.answers import answered

Q23 = "full finetune llama 3.1 70b on 4 nodes of 8xH100 but we only have 100GbE between nodes, no infiniband. 1B tokens"
REAL = open_catalog().data()


@pytest.mark.parametrize(("said", "gbps", "kind"), [
    ("we only have 100GbE between nodes", 100.0, "ethernet"),
    ("no infiniband", None, "ethernet"),
    ("25 Gbps networking", 25.0, None),
    ("ethernet only", None, "ethernet"),
    ("2x200G RoCE per node", 400.0, "roce"),
    ("8x400G IB", 3200.0, "infiniband"),
    ("400G per GPU infiniband", 3200.0, "infiniband"),
])
def test_the_network_said_is_read(said: str, gbps: float | None, kind: str | None) -> None:
    found = network_said(normalize(said))
    assert found is not None and found[0] == gbps and found[1] == kind


@pytest.mark.parametrize("said", ["finetune on 500 GB of data at 1 GB/s", "lora on 2 x 24 gb cards",
                                  "full finetune on 80gb gpus"])
def test_sizes_and_storage_rates_are_not_a_network(said: str) -> None:
    assert network_said(normalize(said)) is None


def test_the_70b_gradients_over_100gbe_are_the_reviewers_arithmetic() -> None:
    """TP8 in each of 4 nodes, data parallel across them: 2 x 3/4 x 70.6B x 2 B = 212 GB out of each node a step,
    21 s over 12.5 GB/s at NCCL's 80%."""
    record = REAL.model("llama-3.1-70b")
    assert record is not None
    a = from_record(record)
    w = Workload(mode="full", model="llama-3.1-70b", params_b=70.55, inter_node_gbps=100, inter_node_link="ethernet")
    gradient_gb, activation_gb, groups = cross_node_gb(w, a, Layout(32, 4, 8, 1, 2), 32, 8) or (0, 0, 0)
    assert groups == 4 and activation_gb == 0
    assert gradient_gb == pytest.approx(2 * 3 / 4 * a.total_params * 2 / 1e9, rel=1e-6)
    assert 205 < gradient_gb < 215
    traffic = step_traffic(w, a, Layout(32, 4, 8, 1, 2), 32, 8, tokens_per_s=31_900)
    assert traffic is not None and traffic.tokens == ASSUMED_STEP_TOKENS and traffic.assumed_batch
    assert traffic.comm_s == pytest.approx(gradient_gb / 10.0, rel=1e-6)  # 12.5 GB/s x 0.8
    assert traffic.compute_s == pytest.approx(ASSUMED_STEP_TOKENS / 31_900)
    assert 1.55 < traffic.slowdown < 1.7
    # pipeline stages across the nodes pass activations only: 2 x 1M tokens x 8,192 hidden x 2 B = 34 GB
    pipeline = cross_node_gb(w, a, Layout(32, 1, 8, 4, 0), 32, 8)
    assert pipeline is not None and pipeline[0] == 0
    assert pipeline[1] == pytest.approx(2 * ASSUMED_STEP_TOKENS * 8192 * 2 / 1e9)


def test_a_larger_global_batch_spreads_the_all_reduce() -> None:
    a = generic_architecture(8)
    base = Workload(mode="full", params_b=8, inter_node_gbps=25, inter_node_link="ethernet")
    lay = Layout(16, 16, 1, 1, 1)
    small = step_traffic(base, a, lay, 16, 8, 75_000)
    large = step_traffic(base.model_copy(update={"global_batch_tokens": 4 * ASSUMED_STEP_TOKENS}), a, lay, 16, 8, 75_000)
    assert small is not None and large is not None and not large.assumed_batch
    assert large.gradient_gb == small.gradient_gb and large.slowdown < small.slowdown


def test_the_owned_100gbe_cluster_is_planned_on_its_network(real_advisor) -> None:
    response, _view, text = answered(real_advisor, Q23)
    w = response.workload
    assert w.inter_node_gbps == 100 and w.inter_node_link == "ethernet" and w.data_location == "onprem"
    advice = response.advice
    assert advice.recommendation.primary.startswith("your own") and "Nebius" not in text
    # pipeline stages across the 4 nodes: only activations cross the 100 GbE links
    assert (advice.cluster.tensor_parallel, advice.cluster.pipeline_parallel) == (8, 4)
    assert "between nodes: 100 Gb/s Ethernet" in advice.cluster.interconnect
    note = next(n for n in advice.cluster.notes if n.startswith(NETWORK_NOTE))
    assert "2 × 1M tokens × 8,192 hidden × 2 B = 34 GB" in note and "would all-reduce 212 GB of gradients" in note
    assert "8x400 Gb/s InfiniBand" in note
    line = next(x for x in text.splitlines() if "Network:" in x)
    assert "100 Gb/s Ethernet" in line and "InfiniBand (10% slower)" in line and "1.64x" in line
    # the time counts the traffic: ~11% over the compute-bound 8.7 h
    hours = advice.throughput.wall_clock_hours
    assert hours is not None and 9.4 < hours.value < 10.0


def test_the_same_cluster_on_infiniband_is_unchanged(real_advisor) -> None:
    """Said as InfiniBand (or not said), the gradient all-reduce hides behind the compute: the plan as before."""
    response, _view, _text = answered(real_advisor, "full finetune llama 3.1 70b on 4 nodes of 8xH100, 1B tokens")
    before = response.advice
    assert before.cluster.pipeline_parallel == 1 and not any(n.startswith(NETWORK_NOTE) for n in before.cluster.notes)


def test_a_thread_follow_up_sets_the_network(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "full finetune llama 3.1 70b on 4 nodes of 8xH100, 1B tokens")
    assert first.advice.recommendation.primary.startswith("Nebius")
    second = real_advisor.respond(conversation, "we only have 100GbE", first.advice)
    assert second.workload.inter_node_gbps == 100 and second.workload.data_location == "onprem"
    assert second.advice.cluster.pipeline_parallel == 4
    assert second.advice.recommendation.primary.startswith("your own")


def test_ask_json_adds_the_network_keys(capsys) -> None:
    assert main(["ask", "--json", Q23]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["workload"]["inter_node_gbps"] == 100 and out["workload"]["inter_node_link"] == "ethernet"
    assert out["report"]["cluster"]["pp"] == 4


def test_engine_only_on_a_network_said() -> None:
    """The engine alone: 25 Gb/s between 2 nodes of an 8B full fine-tune is 1.8x its compute at a 1M-token batch."""
    w = Workload(mode="full", model="llama-3.1-8b", dataset_tokens=1_000_000_000, gpu="h100-sxm", gpu_count=16,
                 nodes=2, data_location="onprem", inter_node_gbps=25)
    fast = w.model_copy(update={"inter_node_gbps": None})
    slow_h = advise(w, REAL).throughput.wall_clock_hours
    fast_h = advise(fast, REAL).throughput.wall_clock_hours
    assert slow_h is not None and fast_h is not None
    assert 1.7 < slow_h.value / fast_h.value < 1.9


def test_infiniband_said_keeps_the_plan_and_is_timed(real_advisor) -> None:
    """8x400G IB said: the layout search keeps its order (data parallel across nodes), the all-reduce is timed on it
    and hides behind the compute (~2%)."""
    response, _view, _text = answered(real_advisor, "full finetune llama 3.1 70b on our 4 nodes of 8xH100 with 8x400G IB "
                                                    "between nodes, 1B tokens")
    advice = response.advice
    assert response.workload.inter_node_gbps == 3200 and advice.cluster.pipeline_parallel == 1
    note = next(n for n in advice.cluster.notes if n.startswith(NETWORK_NOTE))
    assert "212 GB" in note and "(0% slower)" in note


def test_a_link_inside_the_node_is_not_the_network() -> None:
    assert network_said(normalize("full finetune on h100s with 900 GB/s nvlink interconnect")) is None

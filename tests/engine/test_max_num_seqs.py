"""How many sequences one replica batches: vLLM's default max_num_seqs for the GPU it runs on."""

from __future__ import annotations

from engine.architecture import from_record
from engine.serving import MAX_BATCH_LARGE_GPU, MAX_BATCH_PER_REPLICA, choose, max_batch_per_replica
from tests.engine.fixtures_physics import A100_80, H100_SXM, L40S, LLAMA3_8B, workload


def test_a_replica_batches_up_to_vllms_default_max_num_seqs_for_its_gpu() -> None:
    """vLLM's V1 engine defaults max_num_seqs to 1,024 on GPUs of 70 GiB or more other than the A100 (H100, H200,
    MI300X, GH200, B200) and to 256 elsewhere: a small model serving thousands of users fills the bigger batch."""
    assert (MAX_BATCH_LARGE_GPU, MAX_BATCH_PER_REPLICA) == (1024, 256)
    assert max_batch_per_replica(H100_SXM) == 1024
    assert max_batch_per_replica(A100_80) == 256  # 80 GB, but vLLM keeps A100s at 256 (slower with larger batches)
    assert max_batch_per_replica(L40S) == 256
    arch = from_record(LLAMA3_8B)
    w = workload(mode="inference", precision="fp8", concurrency=2000, seq_len=2048)
    on_h100 = choose(w, arch, H100_SXM, 1, "fast", True)
    assert on_h100 is not None and on_h100.batch > 256, on_h100  # memory and the 20 tokens/s floor allow more
    on_a100 = choose(w, arch, A100_80, 1, "fast", True)
    assert on_a100 is not None and on_a100.batch <= 256

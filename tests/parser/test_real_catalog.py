"""One integration check with the real catalog's resolver (skipped when the catalog is absent)."""

from __future__ import annotations

import pytest

from parser import Conversation, parse


@pytest.fixture(scope="module")
def catalog():
    catalog_module = pytest.importorskip("catalog")
    if not hasattr(catalog_module, "open_catalog"):
        pytest.skip("catalog.open_catalog not available yet")
    return catalog_module.open_catalog()


def test_real_catalog_resolves_what_users_write(catalog) -> None:
    reading = parse("QLoRA Llama 3.1 405B on 2 nodes of 8xA100 80GB, 500GB in S3, try mixtral 8x7b later", catalog)
    assert reading.updates["gpu"] == "a100-sxm-80gb"
    assert reading.updates["gpu_count"] == 16 and reading.updates["nodes"] == 2
    assert reading.updates["data_location"] == "aws"
    assert {c.field for c in reading.conflicts} == {"model"}  # 405B and mixtral in one message
    turn = Conversation(catalog).turn("serve qwen2.5-72b on a single 4090, 8k context, int4")
    assert turn.workload.model == "qwen2.5-72b" and turn.workload.gpu == "rtx-4090"
    assert turn.workload.seq_len == 8192 and turn.workload.precision == "int4"

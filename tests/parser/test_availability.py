"""Availability asked of a service is a replica count: "99.9% uptime, across 2 regions" was answered with one L40S
replica for $723 a month, no failover and no word about it."""

from __future__ import annotations

import pytest

from parser import parse
from parser.availability import availability


@pytest.mark.parametrize(("text", "replicas"), [
    ("serve llama 3.1 8b for 50 users, 99.9% uptime, across 2 regions", 2),
    ("serve it across three regions", 3),
    ("a 3-zone deployment of mistral 7b", 3),
    ("multi-region serving of llama 70b", 2),
    ("we need 99.95% availability for llama 3.1 8b", 2),
    ("uptime SLA of 99.9% for our chatbot", 2),
    ("high availability, 40 users", 2),
    ("serve it HA behind a load balancer", 2),
    ("N+1 redundancy for the inference fleet", 2),
    ("needs failover", 2),
    # a count said outright is kept, with or without "HA" (it was 2 with HA, and dropped without)
    ("k8s: serve llama 3.1 8b on a10g nodes with 3 replicas for HA", 3),
    ("serve llama 3.1 8b on a10g with 3 replicas", 3),
    ("at least four replicas of qwen 7b", 4),
    ("run it as 5 pods behind the ingress", 5),
    ("two copies of the model, one per zone", 2),
])
def test_availability_is_read_as_replicas(text: str, replicas: int) -> None:
    found = availability(text)
    assert found is not None and found[0] == replicas, found
    assert f"at least {replicas} replicas" in found[1]


@pytest.mark.parametrize("text", [
    "serve llama 3.1 8b for 50 users",
    "90% prefix cache hits",
    "99.9th percentile latency under 2 s",
    "ha ha, how much is an H100",
    "data in 2 regions of S3",
    "train llama 70b in 2 weeks",
    "8 instances of g5.xlarge",
])
def test_other_text_is_not_availability(text: str) -> None:
    assert availability(text) is None


def test_the_reading_sets_min_replicas_for_a_service_only() -> None:
    served = parse("serve llama 3.1 8b for 50 users, 99.9% uptime, across 2 regions")
    assert served.updates.get("min_replicas") == 2
    assert any(n.startswith("read “across 2 regions” as at least 2 replicas (one per region") for n in served.notes)
    trained = parse("full fine-tune llama 3.1 8b on 1B tokens with high availability")
    assert "min_replicas" not in trained.updates


def test_ha_in_capitals_reaches_the_reader() -> None:
    """Messages are lowercased before they are read, so "HA" in capitals was only ever matched in direct calls: the
    normaliser spells it out, and a laugh in lower case stays a laugh."""
    assert parse("serve llama 3.1 8b for 20 users, HA behind a load balancer").updates.get("min_replicas") == 2
    assert "min_replicas" not in parse("ha ha, how much is an h100").updates


"""A rental provider named with a GPU it does not rent ("Lambda MI300X"): said up front, and the two real ways out
offered (that GPU where it is rented, planned in full; the provider's own GPUs, named with their price) instead of
a plan for "your own hardware" nobody asked about."""

from __future__ import annotations

from engine.advise import PROVIDER_LACKS_GPU, advise
from engine.models import Workload
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()
ASKED = Workload(mode="inference", model="llama-3.1-8b", gpu="rtx-4090", provider="lambda", concurrency=4)


def _lacking(advice) -> str:
    return next(p.message for p in advice.problems if p.code == PROVIDER_LACKS_GPU)


def test_the_gpu_is_planned_where_it_is_rented_and_the_providers_own_gpus_are_named() -> None:
    advice = advise(ASKED, DATA)
    message = _lacking(advice)
    assert message.startswith("Lambda does not rent the GeForce RTX 4090: the catalog has no Lambda offer of it."), message
    assert advice.options and {o.offer_id for o in advice.options} == {"runpod:1x_RTX4090:CA"}
    assert advice.cluster is not None and advice.cluster.gpu == "rtx-4090" and advice.cluster.fits
    assert "where it is rented: the plan below, cheapest at RunPod 1x GeForce RTX 4090" in message
    assert "a GPU Lambda rents: Lambda " in message and "reply “try " in message
    assert advice.workload.provider == "lambda"  # what the user said is kept; the plan is where the GPU is rented
    assert not any(p.code in ("no_offer", "fits_nowhere") for p in advice.problems)
    assert not any("your own hardware" in p.message for p in advice.problems)


def test_a_gpu_nobody_rents_is_said_and_the_providers_own_gpus_still_offered() -> None:
    data = DATA.model_copy(update={"offers": tuple(o for o in DATA.offers if o.gpu != "rtx-4090")})
    advice = advise(ASKED, data)
    message = _lacking(advice)
    assert "no provider in the catalog rents the GeForce RTX 4090: the plan below is for your own hardware" in message
    assert "a GPU Lambda rents: Lambda " in message
    assert [p.code for p in advice.problems].count(PROVIDER_LACKS_GPU) == 1
    assert not any(p.code == "no_offer" for p in advice.problems)


def test_a_provider_that_rents_the_gpu_or_a_quote_is_answered_as_before() -> None:
    for asked in (ASKED.model_copy(update={"provider": "runpod"}), ASKED.model_copy(update={"hourly_rate": 0.5})):
        assert not any(p.code == PROVIDER_LACKS_GPU for p in advise(asked, DATA).problems)

"""Data residency and regions filter plans, end to end on the real catalog: "data can't leave germany" planned German
patient data on a marketplace host in Vietnam, "customer data must stay in the EU (GDPR)" on RunPod in the US with a
note that regions were not a filter, and "keep it in eu" in a thread was not understood. A regional price table whose
only row is one marketplace host read as "the price in Asia"."""

from __future__ import annotations

import io
import json

from bot.cli import main
from catalog.regions import country_of, in_region
from parser.residency import take_places
from tests.bot.answers import answered


def _offer_region(advisor, option_name: str, response) -> str:
    option = next(o for o in response.advice.options if o.name == option_name)
    return next(o.region for o in advisor.catalog_data().offers if o.id == option.offer_id)


def test_places_and_residency_wordings_are_read() -> None:
    assert take_places("finetune on patient records , data cant leave germany , 200m tokens")[1:] == (("germany",), True)
    assert take_places("customer data must stay in the eu gdpr")[1:] == (("eu",), True)
    assert take_places("must stay in canada")[1:] == (("canada",), True)
    assert take_places("8x h100 per hour in frankfurt")[1:] == (("frankfurt",), False)
    assert take_places("were in germany , serve llama 3.1 8b")[1] == ()  # where the team is, not where the data must be


def test_eu_countries_are_placed() -> None:
    assert in_region("eu-north1", "eu") and in_region("eu-amsterdam-1", "eu") and in_region("FR", "eu")
    assert not in_region("CH", "eu") and not in_region("VN", "eu") and not in_region("US", "eu")
    assert in_region("eu-central-1", "frankfurt") and in_region("germanywestcentral", "germany")
    assert not in_region("eu-north1", "germany") and country_of("eu-north1") == "fi" and country_of("eu-north-1") == "se"


def test_gdpr_plans_only_on_eu_offers_without_marketplace_hosts(real_advisor) -> None:
    response, _view, text = answered(real_advisor, "serve llama 3.3 70b for 50 users, customer data must stay in the EU (GDPR)")
    advice = response.advice
    assert advice.workload.regions == ("eu",) and advice.workload.data_residency is True
    assert advice.options and all(in_region(_offer_region(real_advisor, o.name, response), "eu") for o in advice.options)
    assert not any("Vast.ai" in o.name or "RunPod" in o.name for o in advice.options), text
    assert "not a filter" not in text
    cost = next(line for line in text.splitlines() if line.startswith("Cost:"))
    assert "Nebius AI Cloud" in cost and cost.endswith("in eu-north1, Finland"), cost
    on_nebius, _, _ = answered(real_advisor, "serve llama 3.3 70b for 50 users on nebius")
    nebius = next(o for o in on_nebius.advice.options if o.name == on_nebius.advice.recommendation.primary)
    assert f"${nebius.total_usd:,.0f} a month" in cost  # the bot's own figure for "on nebius"


def test_no_offer_in_germany_is_said_first_with_the_german_regions_and_the_eu_fallback(real_advisor) -> None:
    response, _view, text = answered(real_advisor,
                                     "finetune qwen2.5 32b on patient records, data can't leave germany, 200M tokens")
    assert text.splitlines()[0].startswith("⚠️ Fits, but not in Germany: "), text
    assert "No offer in the catalog is in Germany" in text
    assert "AWS eu-central-1 (Frankfurt)" in text and "GCP europe-west3" in text and "Azure Germany West Central" in text
    assert "in the EU: outside Germany" in text
    assert "Vast.ai" not in text and " VN" not in text
    cost = next(line for line in text.splitlines() if line.startswith("Cost:"))
    assert cost.endswith("in eu-north1, Finland"), cost
    assert response.advice.workload.regions == ("germany",)  # as asked; the plan's is the EU
    assert response.advice.effective.regions == ("eu",)


def test_keep_it_in_eu_in_a_thread_replans_in_the_eu(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "we want to self-host llama 3.3 70b for about 100 people in the company")
    then = real_advisor.respond(conversation, "most of them are in europe, keep it in eu", first.advice)
    assert then.intent != "help" and then.advice is not None, then.intent
    assert then.advice.workload.regions == ("eu",) and then.advice.options
    assert all(in_region(_offer_region(real_advisor, o.name, then), "eu") for o in then.advice.options)


def test_a_plain_region_filters_but_keeps_marketplace_hosts_there(real_advisor) -> None:
    response, _view, text = answered(real_advisor, "cheapest H100s in europe for a LoRA of llama 3.1 70b on 500M tokens")
    assert response.advice.workload.data_residency is None
    assert all(in_region(_offer_region(real_advisor, o.name, response), "europe") for o in response.advice.options)
    assert "VN" not in text


def test_asia_price_table_is_not_one_marketplace_host(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "H100 prices in Asia-Pacific")
    answer = response.prices.answer
    assert answer.startswith("H100 SXM5 80GB in Asia-Pacific: no headline price."), answer
    assert "only listing there is a marketplace host" in answer


def test_frankfurt_price_names_the_clouds_there(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "how much is an 8x H100 node per hour in frankfurt")
    table = response.prices
    assert table.answer.startswith("The catalog has no offer for H100 SXM5 80GB in Frankfurt; elsewhere in the EU"), table.answer
    assert {line.region for line in table.lines} <= {"eu-north1", "eu-amsterdam-1"}
    assert any("AWS eu-central-1" in n for n in table.notes)


def test_ask_json_adds_the_region_keys() -> None:
    out = io.StringIO()
    assert main(["ask", "--json", "serve llama 3.1 8b for 10 users, EU only"], stdout=out) == 0
    data = json.loads(out.getvalue())
    assert data["workload"]["regions"] == ["eu"] and data["workload"]["data_residency"] is True

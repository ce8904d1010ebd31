"""Price refresh from SkyPilot CSVs served on loopback: a good file, a malformed file, a timeout, a
later schema's column order; a failed refresh keeps the previous prices and says why; the overlay
survives a catalog rebuild; price age of the offers an answer used."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from catalog import open_catalog
from catalog.build import build_catalog
from catalog.files import DEFAULT_DATA_DIR
from catalog.records import OfferRecord
from catalog.refresh import (
    PriceAge,
    load_overlay,
    price_age,
    refresh_provider,
    refresh_status,
    store_refreshes,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skypilot"
TODAY = "2026-11-23"
P5 = "aws:p5.48xlarge:us-east-1"
NEW_ROW = ("p5.96xlarge,H100,16.0,384.0,4096.0,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 16, "
           "'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 1310720}\",110.0,,us-east-1,use1-az1,x86_64")


def aws_changed() -> str:
    """The AWS fixture with the p5.48xlarge price cut to $49.50, g4dn.xlarge gone and a row added."""
    lines = (FIXTURES / "aws_vms.csv").read_text().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        if line.startswith("g4dn.xlarge,"):
            continue
        if line.startswith("p5.48xlarge,") and ",55.04," in line:
            line = line.replace(",55.04,", ",49.5,")
        out.append(line)
    return "\n".join([*out, NEW_ROW]) + "\n"


def reordered_v9_like(text: str) -> str:
    """Same rows with the columns in another order, `GPUInfo` spelt as older schemas did, and an extra column."""
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(text)))
    columns = ["Region", "Price", "SpotPrice", "InstanceType", "AcceleratorCount", "AcceleratorName", "vCPUs",
               "MemoryGiB", "GPUInfo", "AvailabilityZone", "Arch", "NewColumn"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        row["GPUInfo"] = row.pop("GpuInfo")
        writer.writerow({**row, "NewColumn": "x"})
    return buffer.getvalue()


class CatalogServer:
    """Serves `files` (path -> body, or a number of seconds to stall before answering) on loopback."""

    def __init__(self, files: dict[str, Any]) -> None:
        self.files = files
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                server.requests.append(self.path)
                body = server.files.get(self.path)
                if isinstance(body, float):
                    time.sleep(body)  # longer than the client's timeout: the client gives up first
                    body = "InstanceType\n"
                if body is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v8"

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def server() -> Iterator[CatalogServer]:
    srv = CatalogServer({
        "/v8/aws/vms.csv": aws_changed(),
        "/v8/lambda/vms.csv": "<html><body>rate limited</body></html>\n",
        "/v8/runpod/vms.csv": 1.5,
    })
    yield srv
    srv.stop()


def test_good_file_reports_changes_and_answers_use_the_overlay(server: CatalogServer, tmp_path: Path) -> None:
    catalog = open_catalog(tmp_path / "catalog.db")
    bundled = {o.id: o for o in catalog.bundled_offers()}
    result = refresh_provider(catalog, "aws", base_url=server.base, today=TODAY)
    assert result.ok, result.reason
    change = next(c for c in result.changes if c.offer_id == P5 and c.price == "on-demand")
    assert change.old_usd_per_hour == bundled[P5].on_demand_usd_per_hour and change.new_usd_per_hour == 49.5
    assert any(P5 in line and "down" in line for line in result.lines())
    assert "aws:p5.96xlarge:us-east-1" in result.new
    assert "aws:g4dn.xlarge:us-east-1" in {o.id for o in result.removed}

    store_refreshes(catalog.db, [result])
    catalog.reload()
    offers = {o.id: o for o in catalog.data().offers}
    assert offers[P5].on_demand_usd_per_hour == 49.5
    assert offers[P5].observed_on == TODAY and server.base in offers[P5].source  # provenance: URL and date
    assert offers[P5].inter_node_fabric == bundled[P5].inter_node_fabric  # reviewed fabric kept
    assert "aws:p5.96xlarge:us-east-1" in offers
    assert "aws:g4dn.xlarge:us-east-1" not in offers
    assert {o.id for o in catalog.bundled_offers()} == set(bundled)  # the data files are untouched


def test_malformed_file_keeps_previous_prices_and_says_why(server: CatalogServer, tmp_path: Path) -> None:
    catalog = open_catalog(tmp_path / "catalog.db")
    good = refresh_provider(catalog, "aws", base_url=server.base, today=TODAY)
    store_refreshes(catalog.db, [good])
    server.files["/v8/aws/vms.csv"] = "InstanceType,Price\np5.48xlarge,1.0\n"  # no accelerator column
    bad = refresh_provider(catalog, "aws", base_url=server.base, today="2026-11-24")
    assert not bad.ok and "not a SkyPilot vms.csv" in bad.reason and "AcceleratorName" in bad.reason
    store_refreshes(catalog.db, [bad])
    catalog.reload()
    assert {o.id: o for o in catalog.data().offers}[P5].on_demand_usd_per_hour == 49.5
    status = {s["provider"]: s for s in refresh_status(catalog.db)}["aws"]
    assert status["ok"] == 0 and "AcceleratorName" in status["reason"] and status["last_ok_on"] == TODAY
    assert bad.lines()[0].startswith("aws: refresh failed, previous prices kept")


def test_html_instead_of_csv_is_malformed(server: CatalogServer, tmp_path: Path) -> None:
    result = refresh_provider(open_catalog(), "lambda", base_url=server.base, today=TODAY)
    assert not result.ok and "not a SkyPilot vms.csv" in result.reason


def test_timeout_keeps_previous_prices(server: CatalogServer, tmp_path: Path) -> None:
    catalog = open_catalog(tmp_path / "catalog.db")
    before = {o.id: o.on_demand_usd_per_hour for o in catalog.data().offers if o.provider == "runpod"}
    result = refresh_provider(catalog, "runpod", base_url=server.base, timeout_s=0.3, today=TODAY)
    assert not result.ok and "did not answer within 0.3 s" in result.reason
    store_refreshes(catalog.db, [result])
    catalog.reload()
    assert {o.id: o.on_demand_usd_per_hour for o in catalog.data().offers if o.provider == "runpod"} == before


def test_missing_file_and_unreachable_server(server: CatalogServer, tmp_path: Path) -> None:
    catalog = open_catalog()
    missing = refresh_provider(catalog, "azure", base_url=server.base, today=TODAY)
    assert not missing.ok and "HTTP 404" in missing.reason
    server.stop()
    gone = refresh_provider(catalog, "aws", base_url=server.base, timeout_s=2, today=TODAY)
    assert not gone.ok and "could not be reached" in gone.reason


def test_columns_read_by_header_name_in_any_order(server: CatalogServer) -> None:
    server.files["/v8/aws/vms.csv"] = reordered_v9_like(aws_changed())
    result = refresh_provider(open_catalog(), "aws", base_url=server.base, today=TODAY)
    assert result.ok, result.reason
    assert next(o for o in result.offers if o.id == P5).on_demand_usd_per_hour == 49.5


def test_overlay_survives_a_catalog_rebuild(server: CatalogServer, tmp_path: Path) -> None:
    db_path = tmp_path / "catalog.db"
    catalog = open_catalog(db_path)
    store_refreshes(catalog.db, [refresh_provider(catalog, "aws", base_url=server.base, today=TODAY)])
    catalog.db.close()
    build_catalog(db_path, [DEFAULT_DATA_DIR])  # what a changed data file triggers
    rebuilt = open_catalog(db_path)
    assert P5 in load_overlay(rebuilt.db)
    assert {o.id: o for o in rebuilt.data().offers}[P5].on_demand_usd_per_hour == 49.5


def offer(observed_on: str) -> OfferRecord:
    return OfferRecord(id=f"x:{observed_on}", provider="x", instance_type="i", gpu="h100-sxm", gpus_per_node=8,
                       intra_node_link="NVLink", inter_node_fabric=None, inter_node_gbps=None,
                       on_demand_usd_per_hour=1.0, region="r", source="s", observed_on=observed_on)


def test_price_age_of_the_offers_used() -> None:
    age = price_age([offer("2026-11-21"), offer("2026-09-26"), offer("2026-11-23")])
    assert age == PriceAge("2026-09-26", "2026-11-23")
    assert age.describe(TODAY) == "Prices observed 2026-09-26 to 2026-11-23 (oldest 58 days ago)."
    assert price_age([offer("2026-11-21")]).describe(TODAY) == "Prices observed 2026-11-21 (2 days ago)."  # type: ignore[union-attr]
    assert price_age([]) is None


def test_gcp_is_not_refreshed_from_host_only_rows(server: CatalogServer) -> None:
    result = refresh_provider(open_catalog(), "gcp", base_url=server.base, today=TODAY)
    assert not result.ok and "attachable" in result.reason
    assert server.requests == []


def test_an_empty_skypilot_price_does_not_erase_a_reviewed_one(server: CatalogServer, tmp_path: Path) -> None:
    catalog = open_catalog(tmp_path / "catalog.db")
    result = refresh_provider(catalog, "aws", base_url=server.base, today=TODAY)
    # SkyPilot lists p5e.48xlarge with no on-demand price: any reviewed on-demand price stays
    for offer in result.offers:
        old = next((o for o in catalog.bundled_offers() if o.id == offer.id), None)
        if old is not None and old.on_demand_usd_per_hour is not None:
            assert offer.on_demand_usd_per_hour is not None, offer.id
    p5e = next(o for o in result.offers if o.instance_type == "p5e.48xlarge")
    bundled = next((o for o in catalog.bundled_offers() if o.id == p5e.id), None)
    expected = bundled.on_demand_usd_per_hour if bundled is not None else None
    assert p5e.on_demand_usd_per_hour == expected

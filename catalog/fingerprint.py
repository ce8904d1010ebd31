"""Which data files make the catalog, and the fingerprint that says whether a built database is current.

Why apart from catalog/files.py: answering checks the fingerprint on every start, while reading and
validating the files (csv, the data-file row types) is needed only when the database is (re)built;
keeping them apart keeps those imports out of a cold `gpu-advisor ask`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

SCHEMA_VERSION = "5"  # of the built database (catalog.build writes it, catalog.query checks it); 2: native_precision, unsupported accelerators; 3: vision encoders and image-token rules; 4: devices_per_card; 5: api_prices (hosted APIs' token prices)

DEFAULT_DATA_DIR = Path(__file__).parent / "data"
DATA_FILES = ("gpus.csv", "models.csv", "offers.csv", "providers.yml", "aliases.csv", "unsupported.csv", "api_prices.csv")


def data_dirs_or_default(data_dirs: Sequence[Path] | None) -> list[Path]:
    return [DEFAULT_DATA_DIR] if not data_dirs else [Path(d) for d in data_dirs]


def content_hash(data_dirs: Sequence[Path]) -> str:
    """sha256 over (directory order, file name, bytes) of every data file present."""
    digest = hashlib.sha256()
    for position, directory in enumerate(data_dirs):
        for name in DATA_FILES:
            path = Path(directory) / name
            if path.is_file():
                digest.update(f"{position}:{name}:".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()

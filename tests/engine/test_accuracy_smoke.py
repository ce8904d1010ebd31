"""The accuracy benchmark runs and writes its report (from benchmarks/data/calibration.csv)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAL = ROOT.parent / "shared" / "reference" / "calibration.csv"


@pytest.mark.skipif(not CAL.exists(), reason="shared calibration data not present")
def test_accuracy_script_runs(tmp_path):
    spec = importlib.util.spec_from_file_location("accuracy", ROOT / "benchmarks" / "accuracy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "acc.md"
    assert mod.main(["--calibration", str(CAL), "--out", str(out)]) == 0
    text = out.read_text()
    assert "## Summary" in text and "| c01 |" in text and "| a01 |" in text

"""The accuracy benchmark runs and writes its report (from benchmarks/data/calibration.csv, the published
measurements with their sources, kept in the repository)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CAL = ROOT / "benchmarks" / "data" / "calibration.csv"


def test_accuracy_script_runs(tmp_path):
    assert CAL.exists(), f"{CAL} is missing: the calibration data ships with the repository"
    spec = importlib.util.spec_from_file_location("accuracy", ROOT / "benchmarks" / "accuracy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "acc.md"
    assert mod.main(["--calibration", str(CAL), "--out", str(out)]) == 0
    text = out.read_text()
    assert "## Summary" in text and "| c01 |" in text and "| a01 |" in text

"""The notebooks run from top to bottom, on this interpreter, and are committed with outputs.

Each notebook is executed with nbclient through ``notebooks/_run.py``, whose kernel spec points
at ``sys.executable`` (the venv's Python), whatever kernels Jupyter's search path would find.
The committed files are not overwritten: a copy is executed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))

from _nbutil import find_shared  # noqa: E402
from _run import execute  # noqa: E402

NAMES = ["01_metrics_tour.ipynb", "02_card_eval.ipynb", "03_meta_evaluation.ipynb"]


def _outputs_text(nb: object) -> str:
    parts: list[str] = []
    for cell in nb.cells:  # type: ignore[attr-defined]
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out["text"])
            elif "data" in out:
                parts.append(out["data"].get("text/plain", ""))
    return "\n".join(parts)


def _images(nb: object) -> int:
    return sum(
        "image/png" in out.get("data", {})
        for cell in nb.cells  # type: ignore[attr-defined]
        for out in cell.get("outputs", [])
    )


def test_kernel_is_this_interpreter_even_with_a_foreign_python3_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean clone may sit on a machine whose ``python3`` kernel is another Python: put such
    a spec first on Jupyter's search path and check the kernel still runs sys.executable."""
    foreign = tmp_path / "jupyter" / "kernels" / "python3"
    foreign.mkdir(parents=True)
    (foreign / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [
                    "/nonexistent/python",
                    "-m",
                    "ipykernel_launcher",
                    "-f",
                    "{connection_file}",
                ],
                "display_name": "foreign",
                "language": "python",
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys, lexeval\nprint(sys.executable)")]
    execute(nb, cwd=tmp_path, timeout=120)
    assert _outputs_text(nb).strip() == sys.executable


@pytest.mark.parametrize("name", NAMES)
def test_committed_with_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, name
    assert all(c.execution_count for c in code), f"{name}: a code cell was not executed"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"], name
    assert _images(nb) >= 2, f"{name}: expected matplotlib PNG outputs"
    text = _outputs_text(nb)
    assert str(ROOT) not in text, f"{name}: outputs mention a local path"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    seconds = execute(nb, cwd=NOTEBOOKS)
    assert _images(nb) >= 2
    text = _outputs_text(nb)
    if name.startswith("01"):
        if find_shared(NOTEBOOKS) is not None:
            assert "real data from ../shared" in text
            assert "identical to the real Mastra on 15/15" in text
            assert "textual difference compat equal to the real package on 441/441" in text
        else:
            assert "using the small bundled sample" in text
        assert "max |F(lexeval compat) - F(rouge_score)| = 0.0e+00" in text
        assert "tone consistency" in text and "input elements" in text  # section 7
        # section 8: sacrebleu's and jiwer's figures, the corpus BLEU, TER's edits
        assert "identical to sacrebleu on 18/18 sentence figures" in text
        assert "identical to jiwer on 8/8 rates" in text
        assert "(sacrebleu.corpus_bleu 38.44, identical)" in text
        assert "TER 33.33: 2 edits (sacrebleu 2) = 1 shift(s)" in text
        assert "shifted [('on the mat', 0, 3)]" in text
    if name.startswith("02"):  # flashcards are one schema of lexeval.records: same numbers
        assert text.count("same recall, precision and F1 as lexeval.cards") == 2
        assert "DIFFERENT" not in text and "parse_error" in text and "no_output" in text
    if name.startswith("03"):
        if find_shared(NOTEBOOKS) is not None:
            assert "real data from ../shared" in text
            assert "held out: NQ301 (held out), 1,490 answers" in text
            assert "GPT-4 kappa 0.696 (published .696)" in text
        else:
            assert "using the small bundled sample" in text
    print(f"{name}: {seconds:.1f} s")


def test_metrics_tour_falls_back_to_the_bundled_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXEVAL_SHARED", "none")
    nb = nbformat.read(NOTEBOOKS / "01_metrics_tour.ipynb", as_version=4)
    execute(nb, cwd=NOTEBOOKS)
    text = _outputs_text(nb)
    assert "using the small bundled sample in notebooks/sample/" in text
    assert "real data from ../shared" not in text
    assert _images(nb) >= 2


def test_meta_evaluation_falls_back_to_the_bundled_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LEXEVAL_SHARED", "none")
    nb = nbformat.read(NOTEBOOKS / "03_meta_evaluation.ipynb", as_version=4)
    execute(nb, cwd=NOTEBOOKS)
    text = _outputs_text(nb)
    assert "using the small bundled sample in notebooks/sample/" in text
    assert "the sample stands in for both sets" in text
    assert "NQ301 judges: skipped (needs ../shared)" in text
    assert _images(nb) >= 2


def test_find_shared_walks_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEXEVAL_SHARED", raising=False)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    deep = tmp_path / "checkout" / "notebooks"
    deep.mkdir(parents=True)
    assert find_shared(deep) == tmp_path / "shared"
    monkeypatch.setenv("LEXEVAL_SHARED", "none")
    assert find_shared(deep) is None

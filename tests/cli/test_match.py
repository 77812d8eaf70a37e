"""``lexeval match``: the worked invoice example's figures, gates and exit codes, reports that
``lexeval compare`` and ``--html`` read, and the same numbers as ``lexeval cards`` on a
flashcard dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lexeval.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]
INVOICES = ROOT / "examples" / "invoices"
CARDS = ROOT / "examples" / "flashcards"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lexeval: error: "), err
    assert "Traceback" not in err and out == ""
    return lines[0]


def test_match_is_a_command() -> None:
    assert "match" in COMMANDS


@pytest.fixture(scope="module")
def invoice_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("match") / "invoices.json"
    code = main([
        "match", str(INVOICES / "dataset.yaml"), str(INVOICES / "outputs.jsonl"),
        "--json", str(path), "--quiet",
    ])  # fmt: skip
    assert code == 0
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_invoice_example_figures(invoice_report: dict[str, Any]) -> None:
    micro = invoice_report["totals"]["micro"]
    # 11 expected line items; inv-003 adds a junk VAT line; inv-004's reply is not JSON and
    # inv-005 has no output, so their 4 items are unmatched.
    assert (micro["n_expected"], micro["n_generated"], micro["n_matched"]) == (11, 8, 7)
    assert micro["recall"] == pytest.approx(7 / 11)
    assert micro["precision"] == pytest.approx(7 / 8)
    assert micro["f1"] == pytest.approx(2 * (7 / 11) * (7 / 8) / (7 / 11 + 7 / 8))
    fields = invoice_report["totals"]["fields"]
    assert fields["unit_price"]["accuracy"] == pytest.approx(6 / 7)  # travel: 250 for 240
    assert fields["description"]["accuracy"] == fields["quantity"]["accuracy"] == 1.0
    assert fields["currency"]["mean"] == 1.0
    cases = {c["id"]: c for c in invoice_report["cases"]}
    assert [cases[i]["status"] for i in sorted(cases)] == [
        "ok", "ok", "ok", "parse_error", "no_output",
    ]  # fmt: skip
    assert cases["inv-002"]["n_matched"] == 2  # the JSON inside a markdown fence
    assert cases["inv-004"]["reason"].startswith("invalid JSON")
    travel = next(p for p in cases["inv-003"]["pairs"] if p["expected_index"] == 1)
    assert travel["fields"]["unit_price"] == {
        "score": 0.0, "passed": False, "expected": 240.0, "got": 250.0,
    }  # fmt: skip
    assert cases["inv-003"]["extra_generated"][0]["generated"]["description"] == "VAT 19%"
    assert invoice_report["totals"]["statuses"] == {"ok": 3, "parse_error": 1, "no_output": 1}


def test_gates_decide_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["match", str(INVOICES / "dataset.yaml"), str(INVOICES / "outputs.jsonl"), "--quiet"]
    code, out, _ = run(capsys, *base, "--fail-under", "recall=0.6", "fields.quantity.accuracy=1")
    assert code == 0 and "PASS micro.recall = 0.636" in out
    code, out, _ = run(capsys, *base, "--fail-under", "recall=0.8")
    assert code == 1 and "FAIL micro.recall" in out
    code, out, _ = run(capsys, *base, "--fail-under", "fields.unit_price.accuracy=0.9")
    assert code == 1 and "FAIL fields.unit_price.accuracy = 0.857" in out
    code, out, _ = run(capsys, *base, "--fail-under", "macro.f1=0.5", "--strategy", "optimal")
    assert code == 0 and "PASS macro.f1 = 0.560" in out


def test_a_gate_on_a_field_nothing_scores_fails_as_not_measured(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = tmp_path / "none.jsonl"
    outputs.write_text('{"case_id": "inv-001", "records": []}\n', encoding="utf-8")
    gate = ["--fail-under", "fields.unit_price.accuracy=0"]
    code, out, _ = run(
        capsys, "match", str(INVOICES / "dataset.yaml"), str(outputs), *gate, "--quiet"
    )
    assert code == 1 and "FAIL fields.unit_price.accuracy = n/a" in out and "0.000" not in out
    code, out, _ = run(
        capsys, "match", str(INVOICES / "dataset.yaml"), str(outputs), *gate, "--json", "-"
    )
    report = json.loads(out)
    assert report["gates"] == [
        {"gate": "fields.unit_price.accuracy", "minimum": 0.0, "value": None, "passed": False}
    ]


def test_usage_and_data_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset, outputs = str(INVOICES / "dataset.yaml"), str(INVOICES / "outputs.jsonl")
    line = usage_error(capsys, "match", dataset, outputs, "--fail-under", "fields.price.accuracy=1")
    assert "no field 'price'" in line
    assert "unknown key" in usage_error(capsys, "match", dataset, outputs, "--fail-under", "f2=1")
    bad = tmp_path / "bad.yaml"
    text = (INVOICES / "dataset.yaml").read_text(encoding="utf-8")
    bad.write_text(text.replace("quantity: number", "quantity: numbr"), encoding="utf-8")
    line = usage_error(capsys, "match", str(bad), outputs)
    assert f"{bad}:11: fields.quantity.check: unknown check 'numbr'" in line
    bad.write_text(text.replace("quantity: 3, ", ""), encoding="utf-8")
    line = usage_error(capsys, "match", str(bad), outputs)
    assert f"{bad}:24: cases[0].expected[0].quantity: missing required field" in line
    bad.write_text(text.replace("quantity: 3,", "quantity: [3],"), encoding="utf-8")
    line = usage_error(capsys, "match", str(bad), outputs)
    assert f"{bad}:24: cases[0].expected[0].quantity: expected a number, got a list" in line
    junk = tmp_path / "out.jsonl"
    junk.write_text('{"case_id": "inv-001", "records": [1]}\n', encoding="utf-8")
    assert f"{junk}:1: records[0]" in usage_error(capsys, "match", dataset, str(junk))
    junk.write_text('{"case_id": "inv-999", "records": []}\n', encoding="utf-8")
    line = usage_error(capsys, "match", dataset, str(junk))
    assert "inv-999" in line and line.startswith(f"lexeval: error: {junk}: ")
    bad.write_text(text.replace("quantity: 3,", "quantity: 1" + "0" * 400 + ","), encoding="utf-8")
    line = usage_error(capsys, "match", str(bad), outputs)
    assert f"{bad}:24: cases[0].expected[0].quantity: expected a number" in line
    huge_weight = text.replace("description: 2", "description: 1" + "0" * 400)
    for weights in (
        huge_weight,
        text.replace("currency: exact", "currency: {check: exact, weight: 1%s}" % ("0" * 400)),
    ):
        bad.write_text(weights, encoding="utf-8")
        assert "weight" in usage_error(capsys, "match", str(bad), outputs)
    assert "not in [0, 1]" in usage_error(capsys, "match", dataset, outputs, "--threshold", "2")
    assert "--html" in usage_error(capsys, "match", dataset, outputs, "--html", dataset)


def test_a_number_too_large_for_a_float_fails_its_field_not_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    huge = tmp_path / "huge.jsonl"
    record = (
        '{"description": "Blue widget", "quantity": 1%s, "unit_price": 4.25, "currency": "USD"}'
    )
    huge.write_text(
        '{"case_id": "inv-001", "records": [%s]}\n' % (record % ("0" * 400)), encoding="utf-8"
    )
    code, out, _ = run(capsys, "match", str(INVOICES / "dataset.yaml"), str(huge), "--json", "-")
    case = next(c for c in json.loads(out)["cases"] if c["id"] == "inv-001")
    assert code == 0 and case["status"] == "ok" and case["n_generated"] == 1


def test_an_integer_python_will_not_read_is_an_error_naming_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = tmp_path / "out.jsonl"
    lines = [
        '{"case_id": "inv-001", "records": []}',
        '{"case_id": "inv-002", "records": [{"quantity": %s}]}' % ("9" * 5000),
    ]
    outputs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = usage_error(capsys, "match", str(INVOICES / "dataset.yaml"), str(outputs))
    assert f"{outputs}:2: invalid JSON: an integer of 5000 digits" in line


def test_an_error_in_a_json_outputs_file_names_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = tmp_path / "out.json"
    outputs.write_text('{\n  "inv-001": [],\n  "inv-002": 5\n}\n', encoding="utf-8")
    line = usage_error(capsys, "match", str(INVOICES / "dataset.yaml"), str(outputs))
    assert f"{outputs}:3: inv-002: expected a list" in line
    outputs.write_text('{"inv-001": [\n  {"sku": 1},\n  7\n]}\n', encoding="utf-8")
    line = usage_error(capsys, "match", str(INVOICES / "dataset.yaml"), str(outputs))
    assert f"{outputs}:3: inv-001[1]: expected an object" in line


@pytest.mark.parametrize("command", ["match", "cards"])
def test_report_written_lines_go_to_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    dataset, outputs = CARDS / "dataset.yaml", CARDS / "outputs" / "prompt_v2.jsonl"
    report, page = tmp_path / "r.json", tmp_path / "r.html"
    argv = [command, str(dataset), str(outputs), "--json", str(report), "--html", str(page)]
    code, out, err = run(capsys, *argv)
    assert code == 0 and report.exists() and page.exists()
    assert "written to" not in out  # stdout: the results only
    assert f"report written to {report}" in err and f"HTML report written to {page}" in err


@pytest.mark.parametrize("command", ["match", "cards"])
def test_the_json_and_html_reports_cannot_share_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    dataset, outputs = CARDS / "dataset.yaml", CARDS / "outputs" / "prompt_v2.jsonl"
    target = tmp_path / "report.out"
    for html in (str(target), str(tmp_path / "." / "report.out")):
        argv = [command, str(dataset), str(outputs), "--json", str(target), "--html", html]
        assert "--html" in usage_error(capsys, *argv)
        assert not target.exists()


def test_json_to_stdout_keeps_the_table_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "match", str(INVOICES / "dataset.yaml"), str(INVOICES / "outputs.jsonl"),
        "--json", "-",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["schema_version"] == 1 and data["kind"] == "records"
    assert set(data["totals"]["micro"]) >= {
        "recall", "precision", "f1", "n_expected", "n_generated", "n_matched",
    }  # fmt: skip
    assert "per field" in err


@pytest.mark.parametrize("outputs", ["prompt_v1.yaml", "prompt_v2.jsonl"])
@pytest.mark.parametrize("strategy", ["greedy", "optimal"])
@pytest.mark.parametrize("threshold", ["0.3", "0.6"])
def test_a_flashcard_dataset_gives_what_cards_gives(
    tmp_path: Path, outputs: str, strategy: str, threshold: str
) -> None:
    args = [
        str(CARDS / "dataset.yaml"), str(CARDS / "outputs" / outputs),
        "--strategy", strategy, "--threshold", threshold, "--quiet", "--json",
    ]  # fmt: skip
    assert main(["cards", *args, str(tmp_path / "cards.json")]) == 0
    assert main(["match", *args, str(tmp_path / "match.json")]) == 0
    cards = json.loads((tmp_path / "cards.json").read_text(encoding="utf-8"))
    match = json.loads((tmp_path / "match.json").read_text(encoding="utf-8"))
    assert match["totals"]["micro"] == cards["totals"]["micro"]
    assert match["totals"]["macro"] == cards["totals"]["macro"]
    for mine, theirs in zip(match["cases"], cards["cases"], strict=True):
        assert (mine["id"], mine["f1"]) == (theirs["id"], theirs["f1"])
        assert [(p["expected_index"], p["generated_index"], p["score"]) for p in mine["pairs"]] == [
            (p["expected_index"], p["generated_index"], p["score"]) for p in theirs["pairs"]
        ]


def test_compare_and_html_read_record_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset = tmp_path / "ds.yaml"
    dataset.write_text(
        "name: d\nfields: {sku: exact}\ncases:\n"
        "  - {id: '<i>c1</i>', text: t, expected: [{sku: A}, {sku: B}]}\n"
        "  - {id: c2, text: t, expected: [{sku: C}]}\n",
        encoding="utf-8",
    )
    good, worse = tmp_path / "good.jsonl", tmp_path / "worse.jsonl"
    good.write_text(
        '{"case_id": "<i>c1</i>", "records": [{"sku": "A"}, {"sku": "B"}]}\n'
        '{"case_id": "c2", "output": "[{\\"sku\\": \\"C\\"}]"}\n',
        encoding="utf-8",
    )
    worse.write_text('{"case_id": "<i>c1</i>", "records": [{"sku": "A"}]}\n', encoding="utf-8")
    base, cand, page = tmp_path / "base.json", tmp_path / "cand.json", tmp_path / "run.html"
    assert main(["match", str(dataset), str(good), "--json", str(base), "--html", str(page)]) == 0
    assert main(["match", str(dataset), str(worse), "--json", str(cand), "--quiet"]) == 0
    html = page.read_text(encoding="utf-8")
    assert "&lt;i&gt;c1&lt;/i&gt;" in html and "<i>c1</i>" not in html
    capsys.readouterr()
    compared = tmp_path / "cmp.html"
    code, out, _ = run(capsys, "compare", str(base), str(cand), "--html", str(compared))
    assert code == 1 and "micro.recall" in out  # recall fell from 1 to 1/3
    assert compared.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, out, _ = run(capsys, "compare", str(base), str(base), "--markdown", "-")
    assert code == 0 and out.startswith("### lexeval match: candidate vs baseline")


def test_match_saves_runs_and_gates_on_a_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "runs.sqlite")
    args = [str(INVOICES / "dataset.yaml"), str(INVOICES / "outputs.jsonl"), "--quiet"]
    assert main(["match", *args, "--save", "--store", store, "--label", "v1"]) == 0
    assert main(["runs", "bless", "latest", "main", "--store", store]) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--format", "json", "--store", store]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["kind"] == "match" and listed["label"] == "v1"
    assert listed["means"]["micro.recall"] == pytest.approx(7 / 11)
    # the same outputs pass the baseline gate; outputs missing a case drop recall: exit 1
    assert main(["match", *args, "--baseline", "main", "--store", store]) == 0
    fewer = tmp_path / "fewer.jsonl"
    lines = (INVOICES / "outputs.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    fewer.write_text("".join(lines[1:]), encoding="utf-8")
    gate = ["--baseline", "main", "--store", store, "--max-drop", "0.01", "--quiet"]
    assert main(["match", str(INVOICES / "dataset.yaml"), str(fewer), *gate]) == 1
    # other settings than the baseline's: exit 2 with one line
    assert main(["match", *args, "--threshold", "0.999", *gate]) == 2
    assert "signatures differ" in capsys.readouterr().err


def test_match_takes_a_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--language`` matches with the dataset's preset in that language, as
    ``match_records(..., language=)`` does in Python; the signature names it."""
    from lexeval.records import load_dataset, load_outputs, match_records

    dataset_path, outputs_path = INVOICES / "dataset.yaml", INVOICES / "outputs.jsonl"
    code, out, err = run(
        capsys, "match", str(dataset_path), str(outputs_path), "--language", "de", "--json", "-"
    )
    assert code == 0, err
    report = json.loads(out)
    dataset = load_dataset(str(dataset_path))
    expected = match_records(
        dataset, load_outputs(str(outputs_path), dataset.schema), language="de"
    )
    assert report == json.loads(expected.to_json([]))
    assert "|lang:de|" in report["signature"]
    english = json.loads(
        match_records(dataset, load_outputs(str(outputs_path), dataset.schema)).to_json([])
    )
    assert "|lang:en|" in english["signature"]
    line = usage_error(capsys, "match", str(dataset_path), str(outputs_path), "--language", "zz")
    assert "zz" in line

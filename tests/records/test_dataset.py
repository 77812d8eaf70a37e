"""Record datasets and outputs: formats, and errors that name the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexeval.io import InputError
from lexeval.records import flashcard_schema, load_dataset, load_outputs

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
name: demo
version: 2
threshold: 0.5
normalizer: plain
fields:
  name: keywords
  qty: {check: number, tolerance: 0.5}
  unit: {check: one_of, optional: true}
  code: {check: regex, ignore_case: true}
  tags: {check: set, weight: 0.5}
  summary: {check: metric, metric: rougeL, pass: 0.4}
weights: {name: 2}
cases:
  - id: c1
    text: t
    expected:
      - {name: [blue widget], qty: "1,200", unit: [pcs, pieces], code: "A-\\\\d+", tags: [x],
         summary: a blue widget}
      - {name: bolt, qty: 2, code: B, tags: [], summary: bolts}
"""


def write(tmp_path: Path, text: str, name: str = "ds.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_dataset_with_every_check(tmp_path: Path) -> None:
    ds = load_dataset(write(tmp_path, GOOD))
    assert (ds.name, ds.version, ds.threshold, ds.normalizer) == ("demo", "2", 0.5, None)
    assert ds.schema.names == ("name", "qty", "unit", "code", "tags", "summary")
    assert [f.weight for f in ds.schema.fields] == [2.0, 1.0, 1.0, 1.0, 0.5, 1.0]
    first, second = ds.cases[0].expected
    assert first["qty"] == 1200.0 and first["unit"] == ("pcs", "pieces")
    assert "unit" not in second and second["name"] == ("bolt",)
    assert ds.schema.field("summary").check.pass_at == 0.4
    assert "qty=number(tolerance=0.5)" in ds.schema.signature


def test_the_bundled_examples_load() -> None:
    invoices = load_dataset(ROOT / "examples" / "invoices" / "dataset.yaml")
    assert invoices.schema.names == ("description", "quantity", "unit_price", "currency")
    cards = load_dataset(ROOT / "examples" / "flashcards" / "dataset.yaml")
    assert cards.schema.name == "flashcards" and cards.threshold == 0.3
    assert cards.cases[0].expected[0] == {
        "front": ("photosynthesis", "where"),
        "back": ("chloroplast",),
        "card_type": "qa",
    }


def _replace(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _replace("name: keywords", "name: keyword"),
            "ds.yaml:6: fields.name.check: unknown check 'keyword' (known: exact, keywords, ",
        ),
        (
            _replace("qty: {check: number, tolerance: 0.5}", "qty: {check: number, tol: 0.5}"),
            "ds.yaml:7: fields.qty.tol: unknown field (allowed: ",
        ),
        (
            _replace("tolerance: 0.5", "tolerance: lots"),
            "ds.yaml:7: fields.qty.tolerance: expected a number, got a string",
        ),
        (
            _replace("{check: set, weight: 0.5}", "{check: set, weight: -1}"),
            "ds.yaml:10: fields.tags.weight: must be >= 0, got -1",
        ),
        (
            _replace("metric: rougeL", "metric: nope"),
            "ds.yaml:11: fields.summary: unknown metric 'nope'",
        ),
        (
            _replace("weights: {name: 2}", "weights: {nam: 2}"),
            "ds.yaml:12: weights.nam: unknown field (allowed: ",
        ),
        (
            _replace("      - {name: bolt, qty: 2,", "      - {name: bolt,"),
            "ds.yaml:19: cases[0].expected[1].qty: missing required field",
        ),
        (
            _replace("{name: bolt, qty: 2,", "{name: bolt, qty: two,"),
            "ds.yaml:19: cases[0].expected[1].qty: expected a number, got a string",
        ),
        (
            _replace("{name: bolt,", "{name: bolt, colour: red,"),
            "ds.yaml:19: cases[0].expected[1].colour: unknown field (allowed: ",
        ),
        (
            _replace("name: bolt,", "name: {a: 1},"),
            "ds.yaml:19: cases[0].expected[1].name: expected a list, got a mapping",
        ),
        (
            _replace("tags: [],", "tags: x,"),
            "ds.yaml:19: cases[0].expected[1].tags: expected a list, got a string",
        ),
        (
            _replace("code: B,", "code: '(',"),
            "ds.yaml:19: cases[0].expected[1].code: invalid regular expression",
        ),
        (_replace("threshold: 0.5", "threshold: 2"), "ds.yaml:3: threshold: must be in [0, 1]"),
        (
            _replace("normalizer: plain", "normalizer: fancy"),
            "ds.yaml:4: normalizer: unknown preset",
        ),
        (_replace("  - id: c1", "  - id: c1\n    extra: 1"), "ds.yaml:15: cases[0].extra: unknown"),
        (_replace("    text: t\n", ""), "ds.yaml:14: cases[0].text: missing required field"),
        ("name: d\nfields: 3\ncases: []\n", "ds.yaml:2: fields: expected a mapping"),
        ("name: d\ncases: []\n", "ds.yaml:2: cases: the list is empty"),
        ("", "ds.yaml: file is empty"),
    ],
)
def test_dataset_errors_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_dataset(write(tmp_path, text))
    assert str(caught.value).startswith(str(tmp_path / message)), str(caught.value)


def test_a_flashcard_dataset_is_checked_as_cards_are(tmp_path: Path) -> None:
    text = (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - {front_keywords: [a], back_keywords: [b], card_type: essay}\n"
    )
    with pytest.raises(InputError, match=r"ds.yaml:6: cases\[0\].expected_cards\[0\].card_type"):
        load_dataset(write(tmp_path, text))


def test_outputs_in_every_format(tmp_path: Path) -> None:
    schema = load_dataset(write(tmp_path, GOOD)).schema
    lines = [
        {"case_id": "c1", "records": [{"name": "a"}]},
        {"case_id": "c1", "name": "b", "qty": 2},
        {"case_id": "c2", "output": 'Here:\n```json\n[{"name": "c"}]\n```'},
        {"case_id": "c3", "output": "sorry, nothing"},
        {"case_id": "c4", "output": '{"items": [{"name": "d"}, {"name": "e"}]}'},
        {"case_id": "c5", "output": '[{"name": "f"}, 3]'},
        {"case_id": 6, "output": '{"name": "g", "qty": 1}'},
    ]
    path = write(tmp_path, "\n".join(json.dumps(x) for x in lines) + "\n", "out.jsonl")
    out = load_outputs(path, schema)
    assert out["c1"].records == ({"name": "a"}, {"name": "b", "qty": 2})
    assert out["c2"].records == ({"name": "c"},)
    assert (out["c3"].status, out["c3"].reason) == (
        "parse_error",
        "no JSON object or array in the reply",
    )
    assert [r["name"] for r in out["c4"].records] == ["d", "e"]
    assert out["c5"].status == "parse_error" and "record 1 is not a JSON object" in str(
        out["c5"].reason
    )
    assert out["6"].records == ({"name": "g", "qty": 1},)
    as_yaml = write(tmp_path, 'c1:\n  - {name: a}\nc2: \'I found [{"name": "b"}]\'\n', "o.yaml")
    loaded = load_outputs(as_yaml, schema)
    assert loaded["c1"].records == ({"name": "a"},) and loaded["c2"].records == ({"name": "b"},)
    as_json = write(tmp_path, json.dumps({"c1": [{"name": "a"}], "c2": "none"}), "o.json")
    assert load_outputs(as_json, schema)["c2"].status == "parse_error"


def test_flashcard_outputs_read_cards() -> None:
    out = load_outputs(ROOT / "examples/flashcards/outputs/prompt_v2.jsonl", flashcard_schema())
    first = out["bio-photosynthesis"].records[0]
    assert first["front"] == "In which organelle does photosynthesis occur?"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"case_id": "c1", "records": {"a": 1}}\n', "out.jsonl:1: records: expected a list"),
        ('{"case_id": "c1", "records": [1]}\n', "out.jsonl:1: records[0]: expected an object"),
        ('{"case_id": "c1"}\n{"records": []}\n', "out.jsonl:2: case_id: missing required field"),
        ('{"case_id": "c1", "output": 3}\n', "out.jsonl:1: output: expected a string"),
        ('{"case_id": "c1"}\n[1]\n', "out.jsonl:2: expected an object"),
        ('{"case_id": "c1"\n', "out.jsonl:1: invalid JSON"),
    ],
)
def test_a_malformed_outputs_file_is_an_error(tmp_path: Path, text: str, message: str) -> None:
    schema = load_dataset(write(tmp_path, GOOD)).schema
    with pytest.raises(InputError) as caught:
        load_outputs(write(tmp_path, text, "out.jsonl"), schema)
    assert str(caught.value).startswith(str(tmp_path / message)), str(caught.value)

"""lexeval.run.batch: reading records from JSONL, JSON, CSV and TSV, field mapping, flattening."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexeval.cards.dataset import DatasetError
from lexeval.metrics import TokenF1Metric
from lexeval.run.batch import (
    Record,
    detect_format,
    flatten_result,
    parse_records,
    read_records,
    score_records,
)


def test_every_format_gives_the_same_records(tmp_path: Path) -> None:
    texts = {
        "p.jsonl": '{"id": "a", "reference": "the cat", "prediction": "a cat"}\n\n'
        '{"id": "b", "reference": "dog", "prediction": "dog"}\n',
        "p.json": '[{"id": "a", "reference": "the cat", "prediction": "a cat"},\n'
        ' {"id": "b", "reference": "dog", "prediction": "dog"}]',
        "p.csv": 'id,reference,prediction\na,the cat,a cat\nb,dog,"dog"\n',
        "p.tsv": "id\treference\tprediction\na\tthe cat\ta cat\nb\tdog\tdog\n",
    }
    for name, text in texts.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        records = read_records(path)
        assert [(r.id, r.reference, r.output) for r in records] == [
            ("a", "the cat", "a cat"),
            ("b", "dog", "dog"),
        ], name
    lines = {name: [r.line for r in read_records(tmp_path / name)] for name in texts}
    assert lines == {"p.jsonl": [1, 3], "p.json": [1, 2], "p.csv": [2, 3], "p.tsv": [2, 3]}


def test_format_from_content_when_the_extension_says_nothing() -> None:
    assert detect_format("-", ' [{"a": 1}]') == "json"
    assert detect_format("data.txt", '{"a": 1}\n') == "jsonl"
    assert detect_format("-", "reference\tprediction\n") == "tsv"
    assert detect_format("-", "reference,prediction\n") == "csv"
    records = parse_records("<stdin>", "gold\tcandidate\nx\ty\n")
    assert records == [Record(2, None, "x", "y")]


def test_field_aliases_and_ambiguity() -> None:
    text = "input,reference,output\nq,r,o\n"
    with pytest.raises(DatasetError, match="'reference' and 'input' could both be the reference"):
        parse_records("f.csv", text)
    records = parse_records("f.csv", text, reference_field="reference")
    assert (records[0].reference, records[0].output) == ("r", "o")
    with pytest.raises(DatasetError, match="no field 'gold' for the reference; fields: input"):
        parse_records("f.csv", text, reference_field="gold")
    with pytest.raises(DatasetError, match="no output field among question, expected"):
        parse_records("f.csv", "question,expected\nq,r\n")
    with pytest.raises(DatasetError, match="must differ"):
        parse_records("f.csv", text, reference_field="output")
    custom = parse_records(
        "f.csv", "key,gold,model\nk1,r,o\n", output_field="model", id_field="key"
    )
    assert custom == [Record(2, "k1", "r", "o")]


def test_errors_name_file_line_and_field() -> None:
    with pytest.raises(DatasetError, match=r"^f\.jsonl:2: prediction: missing, or not a string$"):
        parse_records("f.jsonl", '{"reference": "a", "prediction": "b"}\n{"reference": "a"}\n')
    with pytest.raises(DatasetError, match=r"^f\.jsonl:1: invalid JSON"):
        parse_records("f.jsonl", '{"reference": \n')
    with pytest.raises(DatasetError, match=r"^f\.json: \[1\]\.reference: expected a string or"):
        parse_records(
            "f.json", '[{"reference": "a", "output": "b"}, {"reference": [], "output": "b"}]'
        )
    with pytest.raises(DatasetError, match=r"^f\.json: \[0\]: expected a JSON object"):
        parse_records("f.json", "[1]")
    with pytest.raises(DatasetError, match=r"^f\.csv:3: more cells than header fields"):
        parse_records("f.csv", "reference,output\na,b\na,b,c\n")
    with pytest.raises(DatasetError, match=r"^f\.csv:2: output: missing"):
        parse_records("f.csv", "reference,output\na\n")
    with pytest.raises(DatasetError, match="no records"):
        parse_records("f.csv", "reference,output\n")
    with pytest.raises(DatasetError, match=r"f\.jsonl:1: id: expected a string or an integer"):
        parse_records("f.jsonl", '{"id": 1.5, "reference": "a", "output": "b"}\n')


def test_several_references_in_json() -> None:
    records = parse_records("f.jsonl", '{"id": 7, "references": ["x y", "a"], "output": "a"}\n')
    assert records[0].reference == ["x y", "a"] and records[0].id == 7
    results = score_records({"f1": TokenF1Metric(compat="set")}, records)
    assert results["f1"][0].score == 1.0 and results["f1"][0].info["reference_index"] == 1


def test_flatten_result_keeps_every_scalar_and_the_evidence() -> None:
    result = TokenF1Metric(threshold=0.5, evidence_limit=20).measure("the cat sat", "the cat")
    row = flatten_result("f1", result)
    assert row["f1"] == result.score and row["f1_passed"] is True
    assert row["f1_counts_overlap"] == result.info["counts"]["overlap"]
    assert row["f1_matched"] == ["the", "cat"] and row["f1_missing"] == ["sit"]
    assert {k for k in row if not k.startswith("f1_counts")} == {
        "f1",
        "f1_passed",
        *(f"f1_{k}" for k in result.info if k != "counts"),
    }

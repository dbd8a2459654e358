"""The portfolio recall index: the journals and Markdown notes of every
registered project in one set of postings, so that ``mem recall --scope
all`` over a thousand projects reads what its words touch once, instead of
opening an index file per note file (:mod:`mem_core.retrieval.diskindex`).

An optimisation, never a second truth: delete it and nothing is lost.

* **Where**: ``<cache>/recall-index/portfolio/<key>/``, ``<key>`` a CRC-32
  of the registered projects (in order), which the manifest names too; a manifest and two index
  files named after the build (``notes-<build>.idx``, ``journal-<build>.idx``,
  in the format of :mod:`mem_core.retrieval.diskindex`, read by it, every
  piece checked against its CRC-32).
* **Units**: per registered project, its journal (unit ``journal``) and its
  six note files (unit ``notes``), each a run of documents in portfolio
  order. The manifest records every file's identity (device, inode, size,
  ``mtime_ns``, ``ctime_ns``; or that it was missing) and the identity of the
  folders above them (a folder that did not change gained no file).
* **Freshness**, at every recall: a unit is served from here only when every
  file of it has the identity it had when indexed and had been quiet for the
  racy window then (as in :mod:`mem_core.retrieval.diskindex`), no folder on
  the way is a symbolic link, and the journal has no archive. Any other unit
  is read by its source as a one-project recall reads it (through its own
  per-file index): stale is never trusted. A unit the sources would not read
  exactly from an index (an unsafe file, a corrupt journal line) is never
  indexed here. When more than an eighth of the units are stale the whole
  index is rebuilt (written to new files, then the manifest replaced
  atomically; a concurrent reader keeps the version it opened).
* **Exactness**: consecutive fresh units become one
  :class:`~mem_core.retrieval.query.CandidateBlock` whose candidates are
  made as the ``journal`` and ``notes`` sources make them; positions follow
  portfolio order, so scores and ties are those of the per-project path.
"""

from __future__ import annotations

import marshal
import os
import stat
import struct
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.cache import identity
from mem_core.files.io import MAX_BYTES, open_regular
from mem_core.files.layout import AGENTS_MEMORY_DIR, JOURNAL, MEMORY_DIR
from mem_core.files.markdown import NOTE_DIRS, NOTE_FILES
from mem_core.files.usercache import checked_name
from mem_core.retrieval.diskindex import (
    LEXICAL,
    Analyzer,
    DiskTermIndex,
    IndexCorrupt,
    IndexedSource,
    Indexer,
    IndexWriter,
    LazyCandidate,
    crc,
    expected,
    load,
    save,
    settled,
)
from mem_core.retrieval.index import TermIndex
from mem_core.retrieval.query import Candidate, CandidateBlock
from mem_core.settings import PROJECT_CONFIG

if TYPE_CHECKING:
    from typing import Any

    from mem_core.retrieval.query import Query

__all__ = ["PortfolioIndex", "Changed", "portfolio_dir", "REBUILD_SHARE"]

MANIFEST = "manifest"
#: the manifest's magic, then its body's length and CRC-32
MANIFEST_PREFIX = struct.Struct("<8sQI")
MANIFEST_MAGIC = b"MEMPIDX\x00"
MANIFEST_VERSION = 3
#: rebuild when more than this share of the units is stale
REBUILD_SHARE = 1 / 8
ARCHIVE = MEMORY_DIR + "/archive"
#: the folders whose identity the units of a project depend on, parents first (see :func:`_fresh`)
DIRS = ("", ".bmad", MEMORY_DIR, ".agents", AGENTS_MEMORY_DIR)
NOTE_PATHS = tuple(f"{d}/{name}" for d in NOTE_DIRS for name in NOTE_FILES)


class Changed(Exception):
    """A file served from the portfolio index changed while the recall ran:
    the recall is run again without it."""


class _NotesIndexer(Indexer):
    key = "portfolio-notes/1"
    columns = "I"  # the document's file (number in the manifest's file table)


class _JournalIndexer(Indexer):
    key = "portfolio-journal/1"
    columns = "QIdI"  # line offset, line length, event ms (as the journal source's), file
    lines = True


NOTES = _NotesIndexer()
JOURNALS = _JournalIndexer()


def portfolio_dir(index_dir: str, roots: Sequence[str], analyzer: Analyzer = LEXICAL) -> str:
    key = checked_name("\0".join([analyzer.key, *roots]))  # the manifest names the roots and space
    return os.path.join(index_dir, "portfolio", key)


def _identity_now(path: str, folder: bool) -> tuple[int, ...] | None | bool:
    """The identity of a folder (``folder``) or a regular file; ``None``
    when missing; ``False`` when it is something else (a symbolic link …)
    or cannot be examined."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return False
    if not (stat.S_ISDIR(st.st_mode) if folder else stat.S_ISREG(st.st_mode)):
        return False
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


#: what a recorded identity becomes when it was not settled at build time (never equal to one)
UNSETTLED = ()

#: the manifest's fields (a dict of plain values, ``marshal``): the build,
#: then the file table and the projects, each a dict of columns (one value
#: per file, per project) — columns, not records, so that a thousand
#: projects load in one ``marshal.loads`` without an object each
MANIFEST_FIELDS = ("version", "roots", "stores", "space", "build", "notes", "journal", "files", "projects")
#: per document file: its root, its path relative to the root, its identity when indexed
FILE_COLUMNS = ("root", "relative", "identity")
#: per project (see :func:`_fresh`)
PROJECT_COLUMNS = (
    "root",  # the project's root
    "folders",  # (path, identity) of each of DIRS
    "journal_checks",  # (path, identity, folder number) of each file the journal unit depends on
    "note_checks",  # the same for the notes unit
    "journal_unit",  # (servable, first document, end)
    "notes_unit",  # the same in the notes index
    "no_store",  # no structured-memory store in .bmad/memory/ when indexed
    "no_config",  # no mem.toml when indexed
)


class _Build:
    """The documents of the portfolio index as they are collected."""

    def __init__(self, started: int, analyzer: Analyzer) -> None:
        self.started = started
        self.files: dict[str, list[Any]] = {name: [] for name in FILE_COLUMNS}
        self.projects: dict[str, list[Any]] = {name: [] for name in PROJECT_COLUMNS}
        self.notes = IndexWriter(NOTES, analyzer)
        self.journal = IndexWriter(JOURNALS, analyzer)

    def file(self, root: str, relative: str, ident: Any) -> int:
        """Record a document file; its number in the file table."""
        for name, value in zip(FILE_COLUMNS, (root, relative, ident), strict=True):
            self.files[name].append(value)
        return len(self.files["root"]) - 1

    def recorded(self, ident: tuple[int, ...] | None | bool) -> Any:
        """An identity as the manifest keeps it: settled ones only."""
        if not isinstance(ident, tuple):
            return ident
        return ident if settled(ident, self.started) else UNSETTLED


def _read_file(root: str, relative: str) -> tuple[bytes, tuple[int, ...]] | None:
    """The bytes and identity of a source file read under the store's rules
    (``None``: missing); ``MemError`` when it is unsafe or changed while read."""
    from mem_core.files.paths import safe_file
    from mem_core.retrieval.diskindex import read_all, text_check

    path = safe_file(root, relative)
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemError(str(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            raise MemError("not a regular file of at most 2 MiB")
        ident = identity(st)
        data = read_all(fd)
        text_check(data)
        if len(data) != ident[2] or identity(os.fstat(fd)) != ident:
            raise MemError("changed while read")
        return data, ident
    finally:
        os.close(fd)


def _add_project(build: _Build, root: str, stores: Any) -> None:
    from mem_core.retrieval.indexers import JOURNAL_INDEXER, NOTE_INDEXER

    paths = [os.path.join(root, d) if d else root for d in DIRS]
    folders = [(path, _identity_now(path, True)) for path in paths]
    safe = all(ident is not False for _path, ident in folders)
    folder_of = {d: number for number, d in enumerate(DIRS)}

    def check(relative: str, ident: tuple[int, ...] | None) -> tuple[Any, ...]:
        return (os.path.join(root, relative), build.recorded(ident), folder_of[os.path.dirname(relative)])

    # the journal: one file, and no archive (with one the source reads the journal as it is)
    journal_checks: list[tuple[Any, ...]] = []
    ok = safe and _identity_now(os.path.join(root, ARCHIVE), True) is None
    lo = build.journal.count
    if ok:
        try:
            found = _read_file(root, JOURNAL)
        except MemError:
            found, ok = None, False
        if ok:
            journal_checks = [check(JOURNAL, found[1] if found else None), check(ARCHIVE, None)]
            if found is not None:
                docs = JOURNAL_INDEXER.build(found[0], 0).docs
                if docs is None:
                    ok = False
                else:
                    number = build.file(root, JOURNAL, found[1])
                    for doc in docs:
                        build.journal.add(doc, (*doc.cols, number))
    journal_unit = (ok, lo, build.journal.count)
    # the notes: the six note files
    note_checks: list[tuple[Any, ...]] = []
    ok = safe
    lo = build.notes.count
    pending: list[tuple[str, list[Any]]] = []
    if ok:
        for relative in NOTE_PATHS:
            try:
                found = _read_file(root, relative)
            except MemError:
                ok = False
                break
            note_checks.append(check(relative, found[1] if found else None))
            if found is not None:
                pending.append((relative, NOTE_INDEXER.build(found[0], 0).docs or []))
    if ok:
        for relative, docs in pending:
            number = build.file(root, relative, None)
            for doc in docs:
                build.notes.add(doc, (number,))
    notes_unit = (ok, lo, build.notes.count)
    # no structured-memory store (of the stores registered now) in .bmad/memory/
    directory = os.path.join(root, MEMORY_DIR)
    no_store = safe and not any(stores.get(name).exists(directory) for name in stores.names())
    no_config = safe and not os.path.lexists(os.path.join(root, PROJECT_CONFIG))
    recorded_folders = tuple((path, build.recorded(ident)) for path, ident in folders)
    values = (root, recorded_folders, tuple(journal_checks), tuple(note_checks), journal_unit, notes_unit,
              no_store, no_config)  # fmt: skip
    for name, value in zip(PROJECT_COLUMNS, values, strict=True):
        build.projects[name].append(value)


def build_index(directory: str, roots: Sequence[str], stores: Any, analyzer: Analyzer = LEXICAL) -> None:
    """Index the journals and notes of ``roots`` into ``directory`` (new
    files, then the manifest replaced atomically; older builds removed). A
    cache that cannot be written is no error."""
    started = time.time_ns()
    build = _Build(started, analyzer)
    for root in roots:
        _add_project(build, root, stores)
    build_id = f"{os.getpid()}-{started}"
    tag = f"portfolio:{build_id}"
    notes_name, journal_name = f"notes-{build_id}.idx", f"journal-{build_id}.idx"
    for name, writer, relative in ((notes_name, build.notes, "notes"), (journal_name, build.journal, "journal")):
        data = writer.encode(root=tag, relative=relative, identity=(0, 0, 0, 0, 0), built_ns=started, digest=b"",
                             size=0, covered=0)  # fmt: skip
        save(os.path.join(directory, name), data)
    values = (MANIFEST_VERSION, tuple(roots), _store_names(stores), analyzer.key, build_id, notes_name, journal_name,
              build.files, build.projects)  # fmt: skip
    body = marshal.dumps(dict(zip(MANIFEST_FIELDS, values, strict=True)))
    save(os.path.join(directory, MANIFEST), MANIFEST_PREFIX.pack(MANIFEST_MAGIC, len(body), crc(body)) + body)
    try:
        for name in os.listdir(directory):
            if name.endswith(".idx") and name not in (notes_name, journal_name):
                os.unlink(os.path.join(directory, name))
    except OSError:
        pass


def _store_names(stores: Any) -> tuple[str, ...]:
    """The registered memory stores, with their classes' modules."""
    return tuple(f"{name}={stores.get(name).__module__}" for name in stores.names())


class _Manifest:
    """A manifest read back (:data:`MANIFEST_FIELDS`)."""

    __slots__ = ("stores", "build", "notes", "journal", "files", "projects")

    def __init__(self, fields: dict[str, Any]) -> None:
        self.stores: tuple[str, ...] = fields["stores"]
        self.build: str = fields["build"]
        self.notes: str = fields["notes"]
        self.journal: str = fields["journal"]
        #: the file table's columns (:data:`FILE_COLUMNS`)
        self.files: dict[str, list[Any]] = fields["files"]
        #: the projects' columns (:data:`PROJECT_COLUMNS`)
        self.projects: dict[str, list[Any]] = fields["projects"]


def _read_manifest(directory: str, roots: Sequence[str], analyzer: Analyzer) -> _Manifest | None:
    """The manifest of ``directory`` if it is a valid one for ``roots``."""
    try:
        fd = open_regular(os.path.join(directory, MANIFEST))
    except (OSError, MemError):
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) < MANIFEST_PREFIX.size:
        return None
    magic, length, check = MANIFEST_PREFIX.unpack_from(data)
    body = data[MANIFEST_PREFIX.size :]
    if magic != MANIFEST_MAGIC or len(body) != length or crc(body) != check:
        return None
    try:
        fields = marshal.loads(body)
    except (ValueError, TypeError, EOFError):
        return None
    if not (isinstance(fields, dict) and tuple(fields) == MANIFEST_FIELDS):
        return None
    if fields["version"] != MANIFEST_VERSION or fields["roots"] != tuple(roots) or fields["space"] != analyzer.key:
        return None
    files, projects = fields["files"], fields["projects"]
    if not (isinstance(files, dict) and tuple(files) == FILE_COLUMNS):
        return None
    if not (isinstance(projects, dict) and tuple(projects) == PROJECT_COLUMNS):
        return None
    if len({len(column) for column in files.values()}) != 1 or {len(c) for c in projects.values()} != {len(roots)}:
        return None
    return _Manifest(fields)


def _fresh(projects: dict[str, list[Any]], k: int) -> tuple[bool, bool, bool, bool]:
    """Whether the journal and the notes of project ``k`` are as indexed,
    whether it still has no memory store, and whether it is served whole:
    both, a memory folder unchanged (so the project is there and readable)
    and still no config file (see the module). Raises ``ValueError`` … on a
    manifest that is not one (never trusted).

    A folder whose identity did not change gained, lost and renamed no
    entry: the root unchanged, ``.bmad`` and ``.agents`` are the folders
    indexed (not links), so they need no look; a memory folder unchanged
    holds no file it did not hold (a missing file is not looked for), and
    one whose parent is still missing is missing too."""
    folders = projects["folders"][k]
    lstat = os.lstat
    no = (False, False, False, False)
    root_path, root_recorded = folders[0]
    bmad_memory, agents_memory = folders[2][1], folders[4][1]
    try:
        st = lstat(root_path)
    except OSError:
        return no
    if not stat.S_ISDIR(st.st_mode):
        return no
    root_same = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == root_recorded
    same = [root_same, False, False, False, False]
    for number, parent in ((1, 0), (2, 1), (3, 0), (4, 3)):
        path, recorded = folders[number]
        parent_recorded = folders[parent][1]
        if same[parent] and parent_recorded is None:
            same[number] = recorded is None  # its parent is still missing: so is it
            continue
        if number in (1, 3) and root_same:
            same[number] = True  # the entry indexed (the folder, or still none): only its memory folder matters
            continue
        try:
            st = lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            same[number] = recorded is None
            continue
        except OSError:
            return no
        if not stat.S_ISDIR(st.st_mode):
            return no
        same[number] = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == recorded
    results = []
    units = (
        (projects["journal_checks"][k], projects["journal_unit"][k]),
        (projects["note_checks"][k], projects["notes_unit"][k]),
    )
    for checks, unit in units:
        fresh = bool(unit[0])
        if fresh:
            for path, recorded, folder in checks:
                if recorded is None:
                    if same[folder]:
                        continue  # a folder that did not change gained no file
                    try:
                        lstat(path)
                    except (FileNotFoundError, NotADirectoryError):
                        continue
                    except OSError:
                        pass
                    fresh = False
                    break
                try:
                    st = lstat(path)
                except OSError:
                    fresh = False
                    break
                if (
                    not stat.S_ISREG(st.st_mode)
                    or (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) != recorded
                ):
                    fresh = False
                    break
        results.append(fresh)
    present = (same[2] and bmad_memory is not None) or (same[4] and agents_memory is not None)
    # .bmad/memory unchanged: no store and no config file appeared in it
    whole = results[0] and results[1] and present and bool(projects["no_config"][k]) and same[2]
    return results[0], results[1], bool(projects["no_store"][k]) and same[2], whole


class _Range(TermIndex):
    """The documents ``lo … hi-1`` of a :class:`DiskTermIndex`, numbered
    from 0 (a ranker that takes every document of a block takes these)."""

    __slots__ = ("_base", "_lo", "_hi", "space")

    def __init__(self, base: DiskTermIndex, lo: int, hi: int) -> None:  # noqa: D107 - no TermIndex.__init__
        self._base = base
        self._lo = lo
        self._hi = hi
        self.space = base.space
        self.lengths = base.lengths[lo:hi]  # type: ignore[misc]
        self._holding = {}
        self._counts = {}
        self._groups = {}

    def __len__(self) -> int:
        return self._hi - self._lo

    @property
    def terms(self) -> tuple[Any, ...]:  # type: ignore[override]
        raise AttributeError("a portfolio index keeps no Terms; candidates carry none")

    def positions(self, tokens: Sequence[str]) -> Sequence[int]:
        lo, hi = self._lo, self._hi
        return [p - lo for p in self._base.positions(tokens) if lo <= p < hi]

    def holding(self, token: str) -> frozenset[int]:
        held = self._holding.get(token)
        if held is None:
            lo, hi = self._lo, self._hi
            held = self._holding[token] = frozenset(p - lo for p in self._base.holding(token) if lo <= p < hi)
        return held

    def counts(self, token: str) -> dict[int, Any]:
        counts = self._counts.get(token)
        if counts is None:
            lo, hi = self._lo, self._hi
            counts = self._counts[token] = {p - lo: c for p, c in self._base.counts(token).items() if lo <= p < hi}
        return counts

    def groups(self, token: str) -> tuple[tuple[Any, Any, frozenset[int]], ...]:
        groups = self._groups.get(token)
        if groups is None:
            lo, hi = self._lo, self._hi
            found = []
            for f, length, positions in self._base.groups(token):
                kept = frozenset(p - lo for p in positions if lo <= p < hi)
                if kept:
                    found.append((f, length, kept))
            groups = self._groups[token] = tuple(found)
        return groups


class PortfolioIndex:
    """The portfolio index of one ``--scope all`` recall: which units it
    serves, and their candidates (see the module)."""

    def __init__(
        self,
        manifest: _Manifest,
        notes: IndexedSource,
        journal: IndexedSource,
        runs: dict[tuple[str, str], tuple[int, int, bool]],
        no_store: set[str],
        whole: set[str],
        query: Query,
        owners: dict[int, str],
    ) -> None:
        self._manifest = manifest
        self._sources = {"notes": notes, "journal": journal}
        #: (source, root) -> (first document of its run, end of the run, whether it starts the run)
        self._runs = runs
        #: the projects known to hold no structured-memory store
        self._no_store = no_store
        #: the projects served whole (see :func:`_fresh`)
        self._whole = whole
        self._query = query
        self._owners = owners
        self._indexes: dict[str, DiskTermIndex] = {}
        self._fds: dict[int, int] = {}

    @classmethod
    def open(
        cls,
        index_dir: str,
        roots: Sequence[str],
        registered: Sequence[str],
        query: Query,
        owners: dict[int, str],
        stores: Any,
    ) -> PortfolioIndex | None:
        """The portfolio index of ``registered`` (built or rebuilt now when
        needed) for a recall over ``roots``, or ``None`` when it cannot be used."""
        if not registered:
            return None
        analyzer = query.analyzer or LEXICAL
        directory = portfolio_dir(index_dir, registered, analyzer)
        wanted = set(roots)
        none = (False, False, False, False)
        for attempt in range(2):
            manifest = _read_manifest(directory, registered, analyzer)
            if manifest is not None:
                projects = manifest.projects
                try:
                    state = [_fresh(projects, k) if root in wanted else none for k, root in enumerate(projects["root"])]
                    usable = sum(
                        bool(j[0]) + bool(n[0])
                        for j, n in zip(projects["journal_unit"], projects["notes_unit"], strict=True)
                    )
                except (ValueError, TypeError, IndexError, KeyError):
                    state = None
                if state is not None:
                    stale = usable - sum(j + n for j, n, _s, _w in state)
                    if stale <= usable * REBUILD_SHARE or attempt:
                        opened = cls._open_files(directory, manifest, analyzer)
                        if opened is not None:
                            same_stores = manifest.stores == _store_names(stores)
                            roots_of = projects["root"]
                            no_store = {root for root, st in zip(roots_of, state, strict=True) if st[2]}
                            whole = {root for root, st in zip(roots_of, state, strict=True) if st[3]}
                            runs = _runs(projects, state)
                            return cls(manifest, opened[0], opened[1], runs, no_store if same_stores else set(),
                                       whole, query, owners)  # fmt: skip
            if attempt == 0:
                build_index(directory, registered, stores, analyzer)
        return None

    @staticmethod
    def _open_files(
        directory: str, manifest: _Manifest, analyzer: Analyzer
    ) -> tuple[IndexedSource, IndexedSource] | None:
        tag = f"portfolio:{manifest.build}"
        notes = load(os.path.join(directory, manifest.notes), expected(NOTES, analyzer, tag, "notes"))
        if notes is None:
            return None
        journal = load(os.path.join(directory, manifest.journal), expected(JOURNALS, analyzer, tag, "journal"))
        if journal is None:
            notes.close()
            return None
        return IndexedSource(notes, None), IndexedSource(journal, None)

    def no_store(self, root: str) -> bool:
        """Whether the project ``root`` is known to hold no structured-memory
        store (its ``.bmad/memory/`` unchanged since it had none)."""
        return root in self._no_store

    def whole(self, root: str) -> bool:
        """Whether the journal and notes of ``root`` are served from here, its
        folder is there and readable and it has no config file."""
        return root in self._whole

    def parts(self, source: str, root: str) -> list[Any] | None:
        """The parts the portfolio index gives for the ``source`` of the
        project ``root``: ``None`` when the source must read it itself."""
        if source not in self._sources:
            return None
        found = self._runs.get((source, root))
        if found is None:
            return None
        lo, hi, starts = found
        if not starts:
            return []
        index = self._index(source)
        maker = self._note_maker() if source == "notes" else self._event_maker()
        view: TermIndex = index
        if (lo, hi) != (0, len(index)):
            view = _Range(index, lo, hi)
            maker = partial(_shifted, maker, lo)
        # every candidate weighs 1 for notes too, but the lexical ranker's
        # group scoring suits a block of many projects better than its
        # best-of-block search (the same scores either way)
        return [CandidateBlock(view, maker, tokens=self._query.match_tokens)]

    def _index(self, source: str) -> DiskTermIndex:
        found = self._indexes.get(source)
        if found is None:
            found = self._indexes[source] = DiskTermIndex(self._sources[source])
        return found

    def _note_maker(self) -> Callable[[int], Candidate]:
        from mem_core.retrieval.indexers import note_of_blob

        source = self._sources["notes"]
        roots, relatives = self._manifest.files["root"], self._manifest.files["relative"]
        owners = self._owners

        def load(i: int, number: int) -> tuple[str, Any]:
            heading, text = note_of_blob(source.blob(i))
            shown = relatives[number]
            note = Candidate.note(heading, text, source=shown.rsplit("/", 1)[-1], source_file=shown)
            return note.scored_text, note.fields

        def make(i: int) -> Candidate:
            number = source.column(0)[i]
            if not 0 <= number < len(roots):
                raise IndexCorrupt(source.path or "")
            candidate = LazyCandidate(partial(load, i, number), 1.0)
            owners[id(candidate)] = roots[number]
            return candidate

        return make

    def _event_maker(self) -> Callable[[int], Candidate]:
        from mem_core.retrieval.events import SignalsJSON, event_candidate, event_fields, event_of_line

        source = self._sources["journal"]
        roots = self._manifest.files["root"]
        owners = self._owners
        now_ms = self._query.now_ms
        starts, sizes, stamps, numbers = (source.column(n) for n in range(4))
        signals_json = SignalsJSON()

        def load(i: int) -> tuple[str, dict[str, Any]]:
            data = os.pread(self._fd(numbers[i]), sizes[i], starts[i])
            event = event_of_line(data) if len(data) == sizes[i] else None
            if event is None:
                raise Changed
            return event_fields(event, signals_json)

        def make(i: int) -> Candidate:
            number = numbers[i]
            if not 0 <= number < len(roots):
                raise IndexCorrupt(source.path or "")
            candidate = event_candidate(partial(load, i), stamps[i], now_ms)
            owners[id(candidate)] = roots[number]
            return candidate

        return make

    def _fd(self, number: int) -> int:
        """The journal ``number``, open, checked to be the file indexed."""
        fd = self._fds.get(number)
        if fd is None:
            files = self._manifest.files
            path = os.path.join(files["root"][number], files["relative"][number])
            try:
                fd = open_regular(path)
            except (OSError, MemError):
                raise Changed from None
            if identity(os.fstat(fd)) != files["identity"][number]:
                os.close(fd)
                raise Changed
            self._fds[number] = fd
        return fd

    def close(self) -> None:
        for fd in self._fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds.clear()
        for source in self._sources.values():
            source.close()


def _shifted(make: Callable[[int], Candidate], lo: int, position: int) -> Candidate:
    return make(lo + position)


def _runs(
    projects: dict[str, list[Any]], state: Sequence[tuple[bool, bool, bool, bool]]
) -> dict[tuple[str, str], tuple[int, int, bool]]:
    """Per fresh unit: the document range of the run of consecutive fresh
    units of its source it belongs to, and whether it is the run's first."""
    runs: dict[tuple[str, str], tuple[int, int, bool]] = {}
    roots = projects["root"]
    for source, column, units in (("journal", 0, projects["journal_unit"]), ("notes", 1, projects["notes_unit"])):
        k = 0
        n = len(roots)
        while k < n:
            if not state[k][column]:
                k += 1
                continue
            end = k
            while end + 1 < n and state[end + 1][column]:
                end += 1
            lo, hi = units[k][1], units[end][2]
            for j in range(k, end + 1):
                runs[(source, roots[j])] = (lo, hi, j == k)
            k = end + 1
    return runs

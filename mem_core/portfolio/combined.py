"""The portfolio recall index: the journals and Markdown notes of every
registered project in one set of postings, so that ``mem recall --scope
all`` over a thousand projects reads what its words touch once, instead of
opening an index file per note file (:mod:`mem_core.retrieval.diskindex`).

An optimisation, never a second truth: delete it and nothing is lost.

* **Where**: ``<cache>/recall-index/portfolio/<key>/``, ``<key>`` a SHA-1
  prefix of the registered projects (in order); a manifest and two index
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
  :class:`~mem_core.retrieval.interfaces.CandidateBlock` whose candidates are
  made as the ``journal`` and ``notes`` sources make them; positions follow
  portfolio order, so scores and ties are those of the per-project path.
"""

from __future__ import annotations

import marshal
import os
import stat
import time
from array import array
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.cache import identity
from mem_core.files.io import MAX_BYTES, open_regular
from mem_core.files.layout import AGENTS_MEMORY_DIR, JOURNAL, MEMORY_DIR
from mem_core.files.markdown import NOTE_DIRS, NOTE_FILES
from mem_core.files.usercache import name_key
from mem_core.retrieval.diskindex import (
    MAGIC,
    VERSION,
    DiskTermIndex,
    IndexCorrupt,
    IndexedSource,
    Indexer,
    LazyCandidate,
    _crc,
    _load,
    _settled,
    token_directory,
)
from mem_core.retrieval.index import TermIndex
from mem_core.retrieval.interfaces import Candidate, CandidateBlock
from mem_core.settings import PROJECT_CONFIG

if TYPE_CHECKING:
    from typing import Any

    from mem_core.portfolio.recall import Member
    from mem_core.retrieval.interfaces import Query

__all__ = ["PortfolioIndex", "Changed", "portfolio_dir", "REBUILD_SHARE"]

MANIFEST = "manifest"
MANIFEST_MAGIC = b"MEMPIDX\x00"
MANIFEST_VERSION = 2
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


def portfolio_dir(index_dir: str, roots: Sequence[str]) -> str:
    key = name_key("\0".join(roots))
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


class _Build:
    """The documents of the portfolio index as they are collected."""

    def __init__(self, started: int) -> None:
        self.started = started
        #: per document file: (root, path relative to it, identity)
        self.files: list[tuple[str, str, Any]] = []
        #: per project: (root, folders, journal files, note files, journal unit, notes unit, no store)
        self.projects: list[tuple[Any, ...]] = []
        self.notes = _Postings()
        self.journal = _Postings()

    def recorded(self, ident: tuple[int, ...] | None | bool) -> Any:
        """An identity as the manifest keeps it: settled ones only."""
        if not isinstance(ident, tuple):
            return ident
        return ident if _settled(ident, self.started) else UNSETTLED


class _Postings:
    """Documents and their postings, kept in arrays (a portfolio holds
    millions of postings: tuples would not fit in memory)."""

    def __init__(self) -> None:
        self.count = 0
        self.lengths = array("I")
        self.cols: list[array] = []
        self.blobs: list[bytes] = []
        self.tokens: dict[str, tuple[array, array]] = {}  # token -> (docs, counts)

    def add(self, counts: dict[str, int], length: int, cols: tuple[Any, ...], blob: bytes, typecodes: str) -> None:
        number = self.count
        self.count += 1
        if not self.cols:
            self.cols = [array(code) for code in typecodes]
        for column, value in zip(self.cols, cols, strict=True):
            column.append(value)
        self.lengths.append(length)
        self.blobs.append(blob)
        tokens = self.tokens
        for token, count in counts.items():
            found = tokens.get(token)
            if found is None:
                found = tokens[token] = (array("I"), array("I"))
            found[0].append(number)
            found[1].append(count)

    def encode(self, indexer: Indexer, tag: str, relative: str, built_ns: int) -> bytes:
        """The bytes of the index file, in :mod:`mem_core.retrieval.diskindex`'s format."""
        pieces: list[bytes] = []
        table: list[tuple[int, int, int]] = []
        at = 0

        def piece(data: bytes) -> None:
            nonlocal at
            pieces.append(data)
            table.append((at, len(data), _crc(data)))
            at += len(data)

        cols = self.cols or [array(code) for code in indexer.columns]
        for column in cols:
            piece(column.tobytes())
        piece(self.lengths.tobytes())
        offsets = array("Q", [0])
        total = 0
        for blob in self.blobs:
            total += len(blob)
            offsets.append(total)
        piece(offsets.tobytes())
        piece(array("I", [_crc(blob) for blob in self.blobs]).tobytes())
        piece(b"".join(self.blobs))
        lengths = self.lengths
        names = sorted(self.tokens)
        postings_at = at
        where, sizes, crcs = array("Q"), array("I"), array("I")
        for token in names:
            docs, counts = self.tokens[token]
            order = sorted(range(len(docs)), key=lambda k: (counts[k], lengths[docs[k]], docs[k]))
            groups = array("I")
            docs_of = array("I", [docs[k] for k in order])
            counts_of = array("I", [counts[k] for k in order])
            start = 0
            n = len(order)
            while start < n:
                count, length = counts_of[start], lengths[docs_of[start]]
                end = start + 1
                while end < n and counts_of[end] == count and lengths[docs_of[end]] == length:
                    end += 1
                groups.extend((count, length, end - start))
                start = end
            chunk = (
                array("I", [len(groups) // 3]).tobytes() + groups.tobytes() + docs_of.tobytes() + counts_of.tobytes()
            )
            where.append(at)
            sizes.append(len(chunk))
            crcs.append(_crc(chunk))
            pieces.append(chunk)
            at += len(chunk)
        postings_end = at
        directory, at = token_directory(names, where, sizes, crcs, at, table)
        pieces.extend(directory)
        header = marshal.dumps(
            (
                VERSION,
                indexer.key,
                indexer.columns,
                tag,
                relative,
                (0, 0, 0, 0, 0),
                built_ns,
                b"",
                0,
                0,
                self.count,
                tuple(table),
                (postings_at, postings_end),
            )
        )
        prefix = MAGIC + len(header).to_bytes(4, "little") + _crc(header).to_bytes(4, "little")
        return prefix + header + b"".join(pieces)


def _read_file(root: str, relative: str) -> tuple[bytes, tuple[int, ...]] | None:
    """The bytes and identity of a source file read under the store's rules
    (``None``: missing); ``MemError`` when it is unsafe or changed while read."""
    from mem_core.files.paths import safe_file
    from mem_core.retrieval.diskindex import _read_all, text_check

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
        data = _read_all(fd)
        text_check(data)
        if len(data) != ident[2] or identity(os.fstat(fd)) != ident:
            raise MemError("changed while read")
        return data, ident
    finally:
        os.close(fd)


def _add_project(build: _Build, root: str, stores: Any) -> None:
    from mem_plugins.sources.journal import JOURNAL_INDEXER
    from mem_plugins.sources.markdown import NOTE_INDEXER

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
                    build.files.append((root, JOURNAL, found[1]))
                    number = len(build.files) - 1
                    for doc in docs:
                        build.journal.add(doc.counts, doc.length, (*doc.cols, number), b"", JOURNALS.columns)
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
            build.files.append((root, relative, None))
            number = len(build.files) - 1
            for doc in docs:
                build.notes.add(doc.counts, doc.length, (number,), doc.blob, NOTES.columns)
    notes_unit = (ok, lo, build.notes.count)
    # no structured-memory store (of the stores registered now) in .bmad/memory/
    directory = os.path.join(root, MEMORY_DIR)
    no_store = safe and not any(stores.get(name).exists(directory) for name in stores.names())
    no_config = safe and not os.path.lexists(os.path.join(root, PROJECT_CONFIG))
    recorded_folders = tuple((path, build.recorded(ident)) for path, ident in folders)
    build.projects.append(
        (root, recorded_folders, tuple(journal_checks), tuple(note_checks), journal_unit, notes_unit, no_store,
         no_config)
    )  # fmt: skip


def build_index(directory: str, roots: Sequence[str], stores: Any) -> None:
    """Index the journals and notes of ``roots`` into ``directory`` (new
    files, then the manifest replaced atomically; older builds removed). A
    cache that cannot be written is no error."""
    from mem_core.retrieval.diskindex import _save

    started = time.time_ns()
    build = _Build(started)
    for root in roots:
        _add_project(build, root, stores)
    build_id = f"{os.getpid()}-{started}"
    tag = f"portfolio:{build_id}"
    notes_name, journal_name = f"notes-{build_id}.idx", f"journal-{build_id}.idx"
    _save(os.path.join(directory, notes_name), build.notes.encode(NOTES, tag, "notes", started))
    _save(os.path.join(directory, journal_name), build.journal.encode(JOURNALS, tag, "journal", started))
    body = marshal.dumps(
        (
            MANIFEST_VERSION,
            tuple(roots),
            _store_names(stores),
            build_id,
            notes_name,
            journal_name,
            tuple(build.files),
            tuple(build.projects),
        )
    )
    _save(
        os.path.join(directory, MANIFEST),
        MANIFEST_MAGIC + len(body).to_bytes(8, "little") + _crc(body).to_bytes(4, "little") + body,
    )
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
    __slots__ = ("stores", "build_id", "notes", "journal", "files", "projects")

    def __init__(self, fields: tuple[Any, ...]) -> None:
        (_v, _roots, self.stores, self.build_id, self.notes, self.journal, files, projects) = fields
        self.files: tuple[tuple[str, str, Any], ...] = files
        self.projects: tuple[tuple[Any, ...], ...] = projects


def _read_manifest(directory: str, roots: Sequence[str]) -> _Manifest | None:
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
    if len(data) < 20 or data[:8] != MANIFEST_MAGIC:
        return None
    length = int.from_bytes(data[8:16], "little")
    body = data[20:]
    if len(body) != length or _crc(body) != int.from_bytes(data[16:20], "little"):
        return None
    try:
        fields = marshal.loads(body)
    except (ValueError, TypeError, EOFError):
        return None
    if not (isinstance(fields, tuple) and len(fields) == 8 and fields[0] == MANIFEST_VERSION):
        return None
    if fields[1] != tuple(roots) or len(fields[7]) != len(roots):
        return None
    return _Manifest(fields)


def _fresh(project: tuple[Any, ...]) -> tuple[bool, bool, bool, bool]:
    """Whether the journal and the notes of a project are as indexed,
    whether it still has no memory store, and whether it is served whole:
    both, a memory folder unchanged (so the project is there and readable)
    and still no config file (see the module). Raises ``ValueError`` … on a
    manifest that is not one (never trusted).

    A folder whose identity did not change gained, lost and renamed no
    entry: the root unchanged, ``.bmad`` and ``.agents`` are the folders
    indexed (not links), so they need no look; a memory folder unchanged
    holds no file it did not hold (a missing file is not looked for), and
    one whose parent is still missing is missing too."""
    _root, folders, journal_checks, note_checks, journal_unit, notes_unit, no_store, no_config = project
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
    for checks, unit in ((journal_checks, journal_unit), (note_checks, notes_unit)):
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
    whole = results[0] and results[1] and present and bool(no_config) and same[2]
    return results[0], results[1], bool(no_store) and same[2], whole


class _Range(TermIndex):
    """The documents ``lo … hi-1`` of a :class:`DiskTermIndex` (positions
    stay those of the whole index)."""

    __slots__ = ("_base", "_lo", "_hi")

    def __init__(self, base: DiskTermIndex, lo: int, hi: int) -> None:  # noqa: D107 - no TermIndex.__init__
        self._base = base
        self._lo = lo
        self._hi = hi
        self.lengths = base.lengths  # type: ignore[misc]
        self._holding = {}
        self._counts = {}
        self._groups = {}

    def __len__(self) -> int:
        return len(self._base)

    @property
    def terms(self) -> tuple[Any, ...]:  # type: ignore[override]
        raise AttributeError("a portfolio index keeps no Terms; candidates carry none")

    def positions(self, tokens: Sequence[str]) -> Sequence[int]:
        lo, hi = self._lo, self._hi
        return [p for p in self._base.positions(tokens) if lo <= p < hi]

    def holding(self, token: str) -> frozenset[int]:
        held = self._holding.get(token)
        if held is None:
            lo, hi = self._lo, self._hi
            held = self._holding[token] = frozenset(p for p in self._base.holding(token) if lo <= p < hi)
        return held

    def counts(self, token: str) -> dict[int, int]:
        counts = self._counts.get(token)
        if counts is None:
            lo, hi = self._lo, self._hi
            counts = self._counts[token] = {p: c for p, c in self._base.counts(token).items() if lo <= p < hi}
        return counts

    def groups(self, token: str) -> tuple[tuple[int, int, frozenset[int]], ...]:
        groups = self._groups.get(token)
        if groups is None:
            lo, hi = self._lo, self._hi
            found = []
            for f, length, positions in self._base.groups(token):
                kept = frozenset(p for p in positions if lo <= p < hi)
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
        directory = portfolio_dir(index_dir, registered)
        wanted = set(roots)
        none = (False, False, False, False)
        for attempt in range(2):
            manifest = _read_manifest(directory, registered)
            if manifest is not None:
                try:
                    state = [_fresh(project) if project[0] in wanted else none for project in manifest.projects]
                    usable = sum(bool(project[4][0]) + bool(project[5][0]) for project in manifest.projects)
                except (ValueError, TypeError, IndexError, KeyError):
                    state = None
                if state is not None:
                    stale = usable - sum(j + n for j, n, _s, _w in state)
                    if stale <= usable * REBUILD_SHARE or attempt:
                        opened = cls._open_files(directory, manifest)
                        if opened is not None:
                            same_stores = manifest.stores == _store_names(stores)
                            no_store = {p[0] for p, st in zip(manifest.projects, state, strict=True) if st[2]}
                            whole = {p[0] for p, st in zip(manifest.projects, state, strict=True) if st[3]}
                            runs = _runs(manifest.projects, state)
                            return cls(manifest, opened[0], opened[1], runs, no_store if same_stores else set(),
                                       whole, query, owners)  # fmt: skip
            if attempt == 0:
                build_index(directory, registered, stores)
        return None

    @staticmethod
    def _open_files(directory: str, manifest: _Manifest) -> tuple[IndexedSource, IndexedSource] | None:
        tag = f"portfolio:{manifest.build_id}"
        notes = _load(os.path.join(directory, manifest.notes), NOTES, tag, "notes")
        if notes is None:
            return None
        journal = _load(os.path.join(directory, manifest.journal), JOURNALS, tag, "journal")
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

    def parts(self, source: str, member: Member) -> list[Any] | None:
        """The parts the portfolio index gives for ``member``'s ``source``:
        ``None`` when the source must read it itself."""
        if source not in self._sources:
            return None
        found = self._runs.get((source, member.root))
        if found is None:
            return None
        lo, hi, starts = found
        if not starts:
            return []
        index = self._index(source)
        view: TermIndex = index if (lo, hi) == (0, len(index)) else _Range(index, lo, hi)
        maker = self._note_maker() if source == "notes" else self._event_maker()
        # every candidate weighs 1 for notes too, but the lexical ranker's
        # group scoring suits a block of many projects better than its
        # best-of-block search (the same scores either way)
        return [CandidateBlock(view, maker, tokens=self._query.match_tokens)]

    def _index(self, source: str) -> DiskTermIndex:
        found = self._indexes.get(source)
        if found is None:
            found = self._indexes[source] = DiskTermIndex(self._sources[source])
        return found

    def _root_of(self, number: int) -> str:
        return self._manifest.files[number][0]

    def _note_maker(self) -> Callable[[int], Candidate]:
        source = self._sources["notes"]
        files = self._manifest.files
        owners = self._owners

        def load(i: int, number: int) -> tuple[str, Any]:
            blob = source.blob(i)
            size = int.from_bytes(blob[:4], "little")
            heading = blob[4 : 4 + size].decode("utf-8", "surrogatepass")
            text = blob[4 + size :].decode("utf-8", "surrogatepass")
            shown = files[number][1]
            note = Candidate.note(heading, text, source=shown.rsplit("/", 1)[-1], source_file=shown)
            return note.scored_text, note.fields

        def make(i: int) -> Candidate:
            number = source.column(0)[i]
            if not 0 <= number < len(files):
                raise IndexCorrupt(source.path or "")
            candidate = LazyCandidate(partial(load, i, number), 1.0)
            owners[id(candidate)] = self._root_of(number)
            return candidate

        return make

    def _event_maker(self) -> Callable[[int], Candidate]:
        from mem_core.js.jsonfmt import JSONError
        from mem_core.js.jsonfmt import loads as json_loads
        from mem_core.js.strings import js_trim
        from mem_plugins.sources.journal import _event_text, _SignalsJSON, event_candidate

        source = self._sources["journal"]
        files = self._manifest.files
        owners = self._owners
        now_ms = self._query.now_ms
        starts, sizes, stamps, numbers = (source.column(n) for n in range(4))
        signals_json = _SignalsJSON()

        def load(i: int) -> tuple[str, dict[str, Any]]:
            number = numbers[i]
            data = os.pread(self._fd(number), sizes[i], starts[i])
            if len(data) != sizes[i]:
                raise Changed
            try:
                event = json_loads(js_trim(data.decode("utf-8")))
            except (JSONError, UnicodeDecodeError):
                raise Changed from None
            if not isinstance(event, dict):
                raise Changed
            scored, ref = _event_text(event, signals_json)
            return scored, {"kind": "event", "source": "journal.ndjson", "ref": ref, "text": scored, "event": event}

        def make(i: int) -> Candidate:
            number = numbers[i]
            if not 0 <= number < len(files):
                raise IndexCorrupt(source.path or "")
            candidate = event_candidate(partial(load, i), stamps[i], now_ms)
            owners[id(candidate)] = self._root_of(number)
            return candidate

        return make

    def _fd(self, number: int) -> int:
        """The journal ``number``, open, checked to be the file indexed."""
        fd = self._fds.get(number)
        if fd is None:
            root, relative, recorded = self._manifest.files[number]
            path = os.path.join(root, relative)
            try:
                fd = open_regular(path)
            except (OSError, MemError):
                raise Changed from None
            if identity(os.fstat(fd)) != recorded:
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


def _runs(
    projects: Sequence[tuple[Any, ...]], state: Sequence[tuple[bool, bool, bool, bool]]
) -> dict[tuple[str, str], tuple[int, int, bool]]:
    """Per fresh unit: the document range of the run of consecutive fresh
    units of its source it belongs to, and whether it is the run's first."""
    runs: dict[tuple[str, str], tuple[int, int, bool]] = {}
    for source, column in (("journal", 0), ("notes", 1)):
        k = 0
        n = len(projects)
        while k < n:
            if not state[k][column]:
                k += 1
                continue
            end = k
            while end + 1 < n and state[end + 1][column]:
                end += 1
            lo, hi = projects[k][4 + column][1], projects[end][4 + column][2]
            for j in range(k, end + 1):
                runs[(source, projects[j][0])] = (lo, hi, j == k)
            k = end + 1
    return runs

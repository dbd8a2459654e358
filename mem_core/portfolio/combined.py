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

import hashlib
import marshal
import os
import stat
import time
import zlib
from array import array
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError
from mem_core.files.cache import identity
from mem_core.files.io import MAX_BYTES, open_regular
from mem_core.files.markdown import NOTE_DIRS, NOTE_FILES
from mem_core.retrieval.diskindex import (
    BUCKET,
    INDEX_DIR,
    MAGIC,
    VERSION,
    DiskTermIndex,
    IndexCorrupt,
    IndexedSource,
    Indexer,
    LazyCandidate,
    _bucket,
    _crc,
    _load,
    _settled,
)
from mem_core.retrieval.index import TermIndex
from mem_core.retrieval.interfaces import Candidate, CandidateBlock

if TYPE_CHECKING:
    from mem_core.portfolio.recall import Member
    from mem_core.retrieval.interfaces import Query

__all__ = ["PortfolioIndex", "Changed", "portfolio_dir", "REBUILD_SHARE"]

MANIFEST = "manifest"
MANIFEST_MAGIC = b"MEMPIDX\x00"
MANIFEST_VERSION = 1
#: rebuild when more than this share of the units is stale
REBUILD_SHARE = 1 / 8
JOURNAL = ".bmad/memory/journal.ndjson"
ARCHIVE = ".bmad/memory/archive"
#: the folders whose identity the units of a project depend on, parents first
DIRS = ("", ".bmad", ".bmad/memory", ".agents", ".agents/memory")
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
    key = hashlib.sha1("\0".join(roots).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return os.path.join(index_dir, "portfolio", key)


def _dir_identity(path: str) -> tuple[int, ...] | None | bool:
    """A folder's identity; ``None`` when missing; ``False`` when it is
    not a folder (a symbolic link, a file: never served from here)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


# -- building ------------------------------------------------------------------


class _Build:
    """The documents of the portfolio index as they are collected."""

    def __init__(self) -> None:
        self.files: list[tuple[str, str, tuple[int, ...] | None]] = []  # (path, shown, identity)
        self.dirs: dict[str, tuple[int, ...] | None | bool] = {}
        self.units: list[tuple[Any, ...]] = []
        self.notes = _Postings()
        self.journal = _Postings()

    def file_number(self, path: str, shown: str, ident: tuple[int, ...] | None) -> int:
        self.files.append((path, shown, ident))
        return len(self.files) - 1


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
            chunk = array("I", [len(groups) // 3]).tobytes() + groups.tobytes() + docs_of.tobytes() + counts_of.tobytes()
            where.append(at)
            sizes.append(len(chunk))
            crcs.append(_crc(chunk))
            pieces.append(chunk)
            at += len(chunk)
        postings_end = at
        nbuckets = max(1, len(names) // BUCKET)
        members: list[list[int]] = [[] for _ in range(nbuckets)]
        for number, token in enumerate(names):
            members[_bucket(token, nbuckets)].append(number)
        bucket_table = array("Q")
        for numbers in members:
            data = (
                array("I", [len(numbers)]).tobytes()
                + array("Q", [where[n] for n in numbers]).tobytes()
                + array("I", [sizes[n] for n in numbers]).tobytes()
                + array("I", [crcs[n] for n in numbers]).tobytes()
                + "\n".join(names[n] for n in numbers).encode("utf-8")
            )
            bucket_table.extend((at, len(data), _crc(data)))
            pieces.append(data)
            at += len(data)
        data = bucket_table.tobytes()
        table.append((at, len(data), _crc(data)))
        pieces.append(data)
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


def _add_project(build: _Build, root: str) -> None:
    from mem_plugins.sources.journal import JOURNAL_INDEXER
    from mem_plugins.sources.markdown import NOTE_INDEXER

    dirs = {d: _dir_identity(os.path.join(root, d) if d else root) for d in DIRS}
    for d, ident in dirs.items():
        build.dirs[os.path.join(root, d) if d else root] = ident
    safe = all(ident is not False for ident in dirs.values())
    # the journal
    ok = safe and _dir_identity(os.path.join(root, ARCHIVE)) is None
    files: list[int] = []
    lo = build.journal.count
    if ok:
        try:
            found = _read_file(root, JOURNAL)
        except MemError:
            found = None
            ok = False
        if ok:
            number = build.file_number(os.path.join(root, JOURNAL), JOURNAL, found[1] if found else None)
            files.append(number)
            if found is not None:
                docs = JOURNAL_INDEXER.build(found[0], 0).docs
                if docs is None:
                    ok = False
                else:
                    for doc in docs:
                        build.journal.add(doc.counts, doc.length, (*doc.cols, number), b"", JOURNALS.columns)
    if ok:  # no archive appeared: still absent at the next recall, or the journal is read as it is
        files.append(build.file_number(os.path.join(root, ARCHIVE), ARCHIVE, None))
    build.units.append(("journal", root, ok, tuple(files), lo, build.journal.count))
    # the notes
    ok = safe
    files = []
    lo = build.notes.count
    pending: list[tuple[int, list[Any]]] = []
    if ok:
        for relative in NOTE_PATHS:
            try:
                found = _read_file(root, relative)
            except MemError:
                ok = False
                break
            number = build.file_number(os.path.join(root, relative), relative, found[1] if found else None)
            files.append(number)
            if found is not None:
                pending.append((number, NOTE_INDEXER.build(found[0], 0).docs or []))
    if ok:
        for number, docs in pending:
            for doc in docs:
                build.notes.add(doc.counts, doc.length, (number,), doc.blob, NOTES.columns)
    build.units.append(("notes", root, ok, tuple(files), lo, build.notes.count))


def build_index(directory: str, roots: Sequence[str]) -> None:
    """Index the journals and notes of ``roots`` into ``directory`` (new
    files, then the manifest replaced atomically; older builds removed). A
    cache that cannot be written is no error."""
    from mem_core.retrieval.diskindex import _save

    started = time.time_ns()
    build = _Build()
    for root in roots:
        _add_project(build, root)
    build_id = f"{os.getpid()}-{started}"
    tag = f"portfolio:{build_id}"
    notes_name, journal_name = f"notes-{build_id}.idx", f"journal-{build_id}.idx"
    _save(os.path.join(directory, notes_name), build.notes.encode(NOTES, tag, "notes", started))
    _save(os.path.join(directory, journal_name), build.journal.encode(JOURNALS, tag, "journal", started))
    body = marshal.dumps(
        (
            MANIFEST_VERSION,
            tuple(roots),
            build_id,
            started,
            notes_name,
            journal_name,
            tuple(build.files),
            tuple(build.dirs.items()),
            tuple(build.units),
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


class _Manifest:
    __slots__ = ("build_id", "built_ns", "notes", "journal", "files", "dirs", "units")

    def __init__(self, fields: tuple[Any, ...]) -> None:
        (_v, _roots, self.build_id, self.built_ns, self.notes, self.journal, files, dirs, units) = fields
        self.files: tuple[tuple[str, str, tuple[int, ...] | None], ...] = files
        self.dirs: dict[str, Any] = dict(dirs)
        self.units: tuple[tuple[Any, ...], ...] = units


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
        if not (isinstance(fields, tuple) and len(fields) == 9 and fields[0] == MANIFEST_VERSION):
            return None
        if fields[1] != tuple(roots):
            return None
        manifest = _Manifest(fields)
        for unit in manifest.units:
            _source, _root, _ok, files, lo, hi = unit
            if not (0 <= lo <= hi) or any(not 0 <= f < len(manifest.files) for f in files):
                return None
        return manifest
    except (ValueError, TypeError, EOFError):
        return None


class _Checker:
    """Whether the files of a unit are as the manifest recorded them (one
    ``lstat`` per file and folder, folders checked once per recall)."""

    def __init__(self, manifest: _Manifest) -> None:
        self.manifest = manifest
        self.built = manifest.built_ns
        self._dirs: dict[str, tuple[bool, bool]] = {}  # path -> (safe, unchanged)

    def folder(self, path: str) -> tuple[bool, bool]:
        found = self._dirs.get(path)
        if found is None:
            recorded = self.manifest.dirs.get(path, False)
            now = _dir_identity(path)
            safe = now is not False
            if recorded is None:
                unchanged = now is None
            elif recorded is False:
                unchanged = False
            else:
                unchanged = now == recorded and _settled(recorded, self.built)
            found = self._dirs[path] = (safe, unchanged)
        return found

    def fresh(self, unit: tuple[Any, ...]) -> bool:
        _source, root, ok, files, _lo, _hi = unit
        if not ok:
            return False
        for d in DIRS:
            if not self.folder(os.path.join(root, d) if d else root)[0]:
                return False
        for number in files:
            path, _shown, recorded = self.manifest.files[number]
            if recorded is None:
                parent = os.path.dirname(path)
                if parent in self.manifest.dirs and self.folder(parent)[1]:
                    continue  # a folder that did not change gained no file
                try:
                    os.lstat(path)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except OSError:
                    return False
                return False
            try:
                st = os.lstat(path)
            except OSError:
                return False
            if not stat.S_ISREG(st.st_mode) or identity(st) != recorded or not _settled(recorded, self.built):
                return False
        return True


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
        fresh: dict[tuple[str, str], tuple[int, int, bool]],
        query: Query,
        owners: dict[int, str],
    ) -> None:
        self._manifest = manifest
        self._sources = {"notes": notes, "journal": journal}
        #: (source, root) -> (first document of its run, end of the run, whether it starts the run)
        self._fresh = fresh
        self._query = query
        self._owners = owners
        self._indexes: dict[str, DiskTermIndex] = {}
        self._fds: dict[int, int] = {}

    @classmethod
    def open(
        cls, index_dir: str, members: Sequence[Member], registered: Sequence[str], query: Query, owners: dict[int, str]
    ) -> PortfolioIndex | None:
        """The portfolio index of ``registered`` (built or rebuilt now when
        needed), or ``None`` when it cannot be used."""
        if not registered:
            return None
        directory = portfolio_dir(index_dir, registered)
        wanted = {m.root for m in members}
        for attempt in range(2):
            manifest = _read_manifest(directory, registered)
            if manifest is not None:
                checker = _Checker(manifest)
                state = [(unit, unit[1] in wanted and checker.fresh(unit)) for unit in manifest.units]
                usable = [fresh for unit, fresh in state if unit[2]]
                stale = usable.count(False)
                if stale <= len(usable) * REBUILD_SHARE or attempt:
                    opened = cls._open_files(directory, manifest)
                    if opened is not None:
                        return cls(manifest, opened[0], opened[1], _runs(state), query, owners)
            if attempt == 0:
                build_index(directory, registered)
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

    def parts(self, source: str, member: Member) -> list[Any] | None:
        """The parts the portfolio index gives for ``member``'s ``source``:
        ``None`` when the source must read it itself."""
        if source not in self._sources:
            return None
        found = self._fresh.get((source, member.root))
        if found is None:
            return None
        lo, hi, starts = found
        if not starts:
            return []
        index = self._index(source)
        view: TermIndex = index if (lo, hi) == (0, len(index)) else _Range(index, lo, hi)
        if source == "notes":
            return [CandidateBlock(view, self._note_maker(), tokens=self._query.match_tokens, unit_weight=True)]
        return [CandidateBlock(view, self._event_maker(), tokens=self._query.match_tokens)]

    def _index(self, source: str) -> DiskTermIndex:
        found = self._indexes.get(source)
        if found is None:
            found = self._indexes[source] = DiskTermIndex(self._sources[source])
        return found

    def _root_of(self, number: int) -> str:
        path, shown, _ident = self._manifest.files[number]
        return path[: len(path) - len(shown) - 1]

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
        from mem_core.clock import parse_ms
        from mem_core.js.jsmath import js_pow
        from mem_core.js.jsonfmt import JSONError
        from mem_core.js.jsonfmt import loads as json_loads
        from mem_core.js.strings import js_trim
        from mem_plugins.sources.journal import DAY_MS, HALF_LIFE_DAYS, _event_text, _SignalsJSON

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
            candidate: LazyCandidate
            if now_ms is None:
                candidate = LazyCandidate(partial(load, i), 1.0)
            else:

                def weight() -> float:
                    event_ms: float | None = stamps[i]
                    if event_ms != event_ms:  # NaN: not known without the event
                        event_ms = parse_ms(candidate.fields["event"].get("ts"))
                    if event_ms is None or not now_ms > event_ms:
                        return 1.0
                    return js_pow(0.5, (now_ms - event_ms) / DAY_MS / HALF_LIFE_DAYS)

                candidate = LazyCandidate(partial(load, i), weight)
            owners[id(candidate)] = self._root_of(number)
            return candidate

        return make

    def _fd(self, number: int) -> int:
        """The journal ``number``, open, checked to be the file indexed."""
        fd = self._fds.get(number)
        if fd is None:
            path, _shown, recorded = self._manifest.files[number]
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


def _runs(state: list[tuple[tuple[Any, ...], bool]]) -> dict[tuple[str, str], tuple[int, int, bool]]:
    """Per fresh unit: the document range of the run of consecutive fresh
    units of its source it belongs to, and whether it is the run's first."""
    runs: dict[tuple[str, str], tuple[int, int, bool]] = {}
    for source in ("journal", "notes"):
        units = [(unit, fresh) for unit, fresh in state if unit[0] == source]
        k = 0
        while k < len(units):
            if not units[k][1]:
                k += 1
                continue
            end = k
            while end + 1 < len(units) and units[end + 1][1]:
                end += 1
            lo, hi = units[k][0][4], units[end][0][5]
            for j in range(k, end + 1):
                runs[(source, units[j][0][1])] = (lo, hi, j == k)
            k = end + 1
    return runs

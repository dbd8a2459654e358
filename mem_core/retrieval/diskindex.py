"""The on-disk exact recall index: postings and document lengths of each
note file and of the journal, in the user's cache directory, so that a
one-shot ``mem recall`` (or ``mem hook``) on an unchanged corpus reads only
what the query's words touch.

It is an optimisation, never a second truth: delete it and nothing is lost.

* **Where**: ``<cache>/recall-index/<project key>/<file key>.idx``, where
  ``<cache>`` is the ``cache_dir`` setting, else the user cache directory
  of ``mem`` (platformdirs' ``user_cache_dir``; ``$XDG_CACHE_HOME/mem`` or
  ``~/.cache/mem`` on Linux, computed without importing platformdirs), and
  the keys are SHA-1 prefixes of the real path of the root (the project or
  the portfolio) and of the file's relative path. Never under
  ``.bmad/memory/``.
* **One index file per source file**, made of checksummed pieces: a header
  (``marshal`` of plain values, validated field by field before use, with
  its CRC-32 checked before it is loaded), the per-document columns
  (``array`` bytes), the token directory, and per token its postings
  grouped by (count in the document, document length). Every piece read is
  checked against its CRC-32; any mismatch, a foreign version, another
  file's index, a truncated file: the index is rebuilt, never trusted.
* **Validity**: the source file's identity (device, inode, size,
  ``mtime_ns``, ``ctime_ns``) and the SHA-1 of its bytes are recorded. An
  identity that matches, for a file that had been quiet for the racy window
  of :mod:`mem_core.files.cache` when it was indexed, is trusted without
  reading the file; otherwise the file is read and hashed. A journal that
  grew with its indexed bytes unchanged (the SHA-1 of the indexed prefix)
  is indexed from the last complete line only; any other change rebuilds
  that file's index.
* **Concurrency**: written to a temporary file in the same directory and
  renamed over (atomic); a reader holds one open file, so a concurrent
  replacement cannot mix two versions. A missing, partial or unwritable
  index costs a rebuild in memory, nothing else.

What documents a file holds, and how a result is made back from one, is
the source's business (an :class:`Indexer`); this module keeps, checks and
serves the postings. The answers are those of the unindexed path bit for
bit: the lexical ranker scores a :class:`DiskTermIndex` exactly as it
scores an in-memory :class:`~mem_core.retrieval.index.TermIndex`.
"""

from __future__ import annotations

import marshal
import os
import stat
import time
import zlib
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.cache import FINE_RACY_SECONDS, RACY_SECONDS, identity
from mem_core.files.io import GREW, MAX_BYTES, NOT_REGULAR, NOT_UTF8, open_regular
from mem_core.files.paths import os_error_message, safe_file
from mem_core.files.usercache import APP_NAME, cache_base, name_key, root_key  # noqa: F401 - APP_NAME re-exported
from mem_core.retrieval.index import TermIndex
from mem_core.retrieval.interfaces import Candidate
from mem_core.retrieval.text import Terms

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "IndexCorrupt",
    "LazyCandidate",
    "Doc",
    "Indexer",
    "Built",
    "IndexedSource",
    "DiskTermIndex",
    "cache_root",
    "open_indexed",
    "INDEX_DIR",
]

MAGIC = b"MEMRIDX\x00"
VERSION = 3
INDEX_DIR = "recall-index"
_PREFIX = 16  # magic, header length, header CRC
_HEADER_MAX = 1 << 20


class Doc:
    """One indexed document: its token counts and length (``Terms``), its
    numeric columns (as the indexer declares them) and an optional blob."""

    __slots__ = ("counts", "length", "cols", "blob")

    def __init__(self, terms: Terms, cols: tuple[float, ...] = (), blob: bytes = b"") -> None:
        self.counts = terms.counts
        self.length = terms.length
        self.cols = cols
        self.blob = blob


class Built:
    """What an indexer made of (part of) a file: its documents, or
    ``None`` when this version of the file cannot be indexed exactly (the
    unindexed path must serve it)."""

    __slots__ = ("docs",)

    def __init__(self, docs: list[Doc] | None) -> None:
        self.docs = docs


class Indexer:
    """What a source tells the index about its files (subclass it).

    ``key`` names the indexer and the version of its document layout (a
    change of either rebuilds every index); ``columns`` is the ``array``
    typecode of each numeric column; ``lines``: documents are lines of an
    append-only file, the first column being the line's byte offset, so the
    file can be indexed incrementally from its last complete line."""

    key: str = ""
    columns: str = ""
    lines: bool = False

    def build(self, data: bytes, base: int) -> Built:
        """The documents of ``data``, the file's bytes from offset ``base``
        (0, or just after a newline for a ``lines`` indexer)."""
        raise NotImplementedError


def cache_root(cache_dir: str | None, environ: Any = None) -> str:
    """The directory the recall index lives in (see the module)."""
    return os.path.join(cache_base(cache_dir, environ), INDEX_DIR)


def index_path(cache: str, root_real: str, relative: str, key: str) -> str:
    name = name_key(f"{key}\0{relative}")
    return os.path.join(cache, root_key(root_real), name + ".idx")


# -- the on-disk format ------------------------------------------------------


class _Corrupt(Exception):
    """The index file cannot be trusted (rebuild it)."""


class IndexCorrupt(Exception):
    """A piece of an index file read during a recall failed its check:
    ``path`` must be deleted and the recall run again without it."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


#: tokens per directory bucket
BUCKET = 128


def token_directory(
    tokens: Sequence[str],
    where: Sequence[int],
    sizes: Sequence[int],
    crcs: Sequence[int],
    offset: int,
    table: list[Any],
) -> tuple[list[bytes], int]:
    """The token directory written at ``offset`` after the postings: the
    tokens in buckets (by CRC-32 of the token) of about :data:`BUCKET`, each
    with its postings' offsets, sizes and CRCs, then the bucket table (its
    entry appended to ``table``). Returns the pieces and the offset after them."""
    nbuckets = max(1, len(tokens) // BUCKET)
    members: list[list[int]] = [[] for _ in range(nbuckets)]
    for number, token in enumerate(tokens):
        members[_bucket(token, nbuckets)].append(number)
    pieces: list[bytes] = []
    bucket_table = array("Q")
    for numbers in members:
        data = (
            array("I", [len(numbers)]).tobytes()
            + array("Q", [where[n] for n in numbers]).tobytes()
            + array("I", [sizes[n] for n in numbers]).tobytes()
            + array("I", [crcs[n] for n in numbers]).tobytes()
            + "\n".join(tokens[n] for n in numbers).encode("utf-8")
        )
        bucket_table.extend((offset, len(data), _crc(data)))
        pieces.append(data)
        offset += len(data)
    data = bucket_table.tobytes()
    table.append((offset, len(data), _crc(data)))
    pieces.append(data)
    return pieces, offset + len(data)


def _bucket(token: str, buckets: int) -> int:
    return zlib.crc32(token.encode("utf-8")) % buckets


def _crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


class _Postings:
    """A token's postings: document numbers grouped by (count, length)."""

    __slots__ = ("docs", "groups", "counts")

    def __init__(self, docs: array, groups: array, counts: array) -> None:
        self.docs = docs  # 'I': documents, group after group, ascending in a group
        self.groups = groups  # 'I': count, length, how many, per group
        self.counts = counts  # 'I': each document's count of the token, as ``docs``


def _encode(
    indexer: Indexer,
    root_real: str,
    relative: str,
    ident: tuple[int, ...],
    built_ns: int,
    digest: bytes,
    size: int,
    covered: int,
    docs: list[Doc] | None,
) -> bytes:
    """The bytes of an index file (``docs`` None: this version is not indexable)."""
    pieces: list[bytes] = []
    table: list[tuple[int, int, int]] = []

    def piece(data: bytes) -> None:
        offset = sum(len(p) for p in pieces)
        pieces.append(data)
        table.append((offset, len(data), _crc(data)))

    ndocs = -1 if docs is None else len(docs)
    docs = docs or []
    ncols = len(indexer.columns)
    for column in range(ncols):
        piece(array(indexer.columns[column], [doc.cols[column] for doc in docs]).tobytes())
    piece(array("I", [doc.length for doc in docs]).tobytes())
    blob_offsets = array("Q", [0])
    blobs = []
    at = 0
    for doc in docs:
        blobs.append(doc.blob)
        at += len(doc.blob)
        blob_offsets.append(at)
    piece(blob_offsets.tobytes())
    piece(array("I", [_crc(blob) for blob in blobs]).tobytes())
    piece(b"".join(blobs))
    by_token: dict[str, list[tuple[int, int, int]]] = {}
    for number, doc in enumerate(docs):
        length = doc.length
        for token, count in doc.counts.items():
            entry = (count, length, number)
            found = by_token.get(token)
            if found is None:
                by_token[token] = [entry]
            else:
                found.append(entry)
    tokens = sorted(by_token)
    postings_at = sum(len(p) for p in pieces)
    chunks: list[bytes] = []
    where = array("Q")
    sizes = array("I")
    crcs = array("I")
    offset = postings_at
    for token in tokens:
        entries = sorted(by_token[token])
        groups = array("I")
        docs_of = array("I", [number for _c, _l, number in entries])
        counts_of = array("I", [c for c, _l, _n in entries])
        start = 0
        while start < len(entries):
            count, length, _ = entries[start]
            end = start + 1
            while end < len(entries) and entries[end][0] == count and entries[end][1] == length:
                end += 1
            groups.extend((count, length, end - start))
            start = end
        chunk = array("I", [len(groups) // 3]).tobytes() + groups.tobytes() + docs_of.tobytes() + counts_of.tobytes()
        chunks.append(chunk)
        where.append(offset)
        sizes.append(len(chunk))
        crcs.append(_crc(chunk))
        offset += len(chunk)
    pieces.extend(chunks)
    postings_end = offset
    # the directory comes last, after the postings it points into: tokens
    # in buckets (by CRC-32 of the token) of about BUCKET tokens, so that a
    # query reads the buckets of its words only
    tail, offset = token_directory(tokens, where, sizes, crcs, offset, table)
    header = marshal.dumps(
        (
            VERSION,
            indexer.key,
            indexer.columns,
            root_real,
            relative,
            tuple(ident),
            built_ns,
            digest,
            size,
            covered,
            ndocs,
            tuple(table),
            (postings_at, postings_end),
        )
    )
    prefix = MAGIC + len(header).to_bytes(4, "little") + _crc(header).to_bytes(4, "little")
    return prefix + header + b"".join(pieces) + b"".join(tail)


class IndexedFile:
    """An index file, open for reading (validated header; pieces are read
    and checked on demand)."""

    def __init__(self, fd: int, header: tuple[Any, ...], body: int, path: str) -> None:
        self._fd = fd
        self.path = path
        (
            _version,
            self.key,
            self.columns,
            self.root,
            self.relative,
            ident,
            self.built_ns,
            self.digest,
            self.size,
            self.covered,
            self.count,
            table,
            _postings,
        ) = header
        self.identity: tuple[int, ...] = ident
        self._table: tuple[tuple[int, int, int], ...] = table
        self._body = body
        self._bucket_table: array | None = None
        self._loaded_buckets: dict[int, dict[str, tuple[int, int, int]]] = {}
        self._postings: dict[str, _Postings | None] = {}

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        try:
            self.close()
        except OSError:
            pass

    @property
    def indexable(self) -> bool:
        return self.count >= 0

    def _piece(self, number: int) -> bytes:
        offset, length, crc = self._table[number]
        return self._read(offset, length, crc)

    def _read(self, offset: int, length: int, crc: int) -> bytes:
        data = os.pread(self._fd, length, self._body + offset)
        if len(data) != length or _crc(data) != crc:
            raise _Corrupt
        return data

    def column(self, number: int) -> array:
        values = array(self.columns[number])
        values.frombytes(self._piece(number))
        if len(values) != max(self.count, 0):
            raise _Corrupt
        return values

    def lengths(self) -> array:
        values = array("I")
        values.frombytes(self._piece(len(self.columns)))
        if len(values) != max(self.count, 0):
            raise _Corrupt
        return values

    def blob(self, doc: int, offsets: array, crcs: array) -> bytes:
        """Document ``doc``'s blob, checked against its own CRC-32."""
        base, length, _crc_whole = self._table[len(self.columns) + 3]
        start, end = offsets[doc], offsets[doc + 1]
        if not 0 <= start <= end <= length:
            raise _Corrupt
        return self._read(base + start, end - start, crcs[doc])

    def blob_offsets(self) -> array:
        values = array("Q")
        values.frombytes(self._piece(len(self.columns) + 1))
        if len(values) != max(self.count, 0) + 1:
            raise _Corrupt
        return values

    def blob_crcs(self) -> array:
        values = array("I")
        values.frombytes(self._piece(len(self.columns) + 2))
        if len(values) != max(self.count, 0):
            raise _Corrupt
        return values

    def blobs(self) -> bytes:
        return self._piece(len(self.columns) + 3)

    def _buckets(self) -> array:
        found = self._bucket_table
        if found is None:
            found = array("Q")
            found.frombytes(self._piece(len(self.columns) + 4))
            if not found or len(found) % 3:
                raise _Corrupt
            self._bucket_table = found
        return found

    def _entry(self, token: str) -> tuple[int, int, int] | None:
        """Where ``token``'s postings are (offset, size, CRC-32), from its bucket."""
        table = self._buckets()
        number = _bucket(token, len(table) // 3)
        bucket = self._loaded_buckets.get(number)
        if bucket is None:
            self._entry_in(number)
            bucket = self._loaded_buckets[number]
        return bucket.get(token)

    def directory(self) -> list[str]:
        """Every token of the index (reads every bucket)."""
        table = self._buckets()
        for number in range(len(table) // 3):
            if number not in self._loaded_buckets:
                self._entry_in(number)
        return [token for bucket in self._loaded_buckets.values() for token in bucket]

    def _entry_in(self, number: int) -> None:
        """Read bucket ``number`` of the directory."""
        table = self._buckets()
        data = self._read(table[3 * number], table[3 * number + 1], table[3 * number + 2])
        n = int.from_bytes(data[:4], "little") if len(data) >= 4 else -1
        if n < 0:
            raise _Corrupt
        where, sizes, crcs = array("Q"), array("I"), array("I")
        at = 4
        for values, width in ((where, 8), (sizes, 4), (crcs, 4)):
            chunk = data[at : at + n * width]
            if len(chunk) != n * width:
                raise _Corrupt
            values.frombytes(chunk)
            at += n * width
        names = data[at:].decode("utf-8").split("\n") if n else []
        if len(names) != n:
            raise _Corrupt
        self._loaded_buckets[number] = dict(zip(names, zip(where, sizes, crcs, strict=True), strict=True))

    def postings(self, token: str) -> _Postings | None:
        if token in self._postings:
            return self._postings[token]
        entry = self._entry(token)
        found: _Postings | None = None
        if entry is not None:
            data = self._read(*entry)
            words = array("I")
            if len(data) % 4:
                raise _Corrupt
            words.frombytes(data)
            ngroups = words[0] if words else 0
            groups = words[1 : 1 + 3 * ngroups]
            rest = len(words) - 1 - 3 * ngroups
            docs = words[1 + 3 * ngroups : 1 + 3 * ngroups + rest // 2]
            counts = words[1 + 3 * ngroups + rest // 2 :]
            if len(groups) != 3 * ngroups or rest % 2 or sum(groups[2::3]) != len(docs):
                raise _Corrupt
            if docs and max(docs) >= self.count:
                raise _Corrupt
            found = _Postings(docs, groups, counts)
        self._postings[token] = found
        return found


def _validate(header: Any, key: str, columns: str, root_real: str, relative: str) -> bool:
    if not isinstance(header, tuple) or len(header) != 13:
        return False
    version, hkey, hcolumns, hroot, hrelative, ident, built, digest, size, covered, count, table, post = header
    if version != VERSION or hkey != key or hcolumns != columns or hroot != root_real or hrelative != relative:
        return False
    if not (isinstance(ident, tuple) and len(ident) == 5 and all(type(v) is int for v in ident)):
        return False
    if not all(type(v) is int for v in (built, size, covered, count)) or not isinstance(digest, bytes):
        return False
    if not (0 <= covered <= size and count >= -1):
        return False
    if not (isinstance(table, tuple) and len(table) == len(columns) + 5):
        return False
    for entry in table:
        if not (isinstance(entry, tuple) and len(entry) == 3 and all(type(v) is int and v >= 0 for v in entry)):
            return False
    return isinstance(post, tuple) and len(post) == 2 and all(type(v) is int for v in post)


def _load(path: str, indexer: Indexer, root_real: str, relative: str) -> IndexedFile | None:
    """The index file at ``path`` if it is one of ours for this file, else None."""
    try:
        fd = open_regular(path)  # a FIFO planted in the cache never blocks
    except (OSError, MemError):
        return None
    try:
        head = os.pread(fd, 65536, 0)
        if len(head) < _PREFIX or head[:8] != MAGIC:
            raise _Corrupt
        length = int.from_bytes(head[8:12], "little")
        crc = int.from_bytes(head[12:16], "little")
        if length > _HEADER_MAX:
            raise _Corrupt
        raw = head[_PREFIX : _PREFIX + length]
        if len(raw) < length:
            raw = os.pread(fd, length, _PREFIX)
        if len(raw) != length or _crc(raw) != crc:
            raise _Corrupt
        header = marshal.loads(raw)
        if not _validate(header, indexer.key, indexer.columns, root_real, relative):
            raise _Corrupt
        return IndexedFile(fd, header, _PREFIX + length, path)
    except (_Corrupt, ValueError, EOFError, TypeError, OSError):
        os.close(fd)
        return None


def _save(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; a cache that cannot be
    written is no error (the index is an optimisation)."""
    directory = os.path.dirname(path)
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


# -- a validated view of one source file -------------------------------------


class _Memory:
    """An index built in memory (not saved, or just saved): the same
    interface as :class:`IndexedFile`."""

    def __init__(self, indexer: Indexer, docs: list[Doc]) -> None:
        self.columns = indexer.columns
        self.count = len(docs)
        self._docs = docs
        self._postings: dict[str, _Postings | None] = {}
        self._by_token: dict[str, list[tuple[int, int, int]]] | None = None

    indexable = True

    def column(self, number: int) -> array:
        return array(self.columns[number], [doc.cols[number] for doc in self._docs])

    def lengths(self) -> array:
        return array("I", [doc.length for doc in self._docs])

    def blob_offsets(self) -> array:
        offsets = array("Q", [0])
        at = 0
        for doc in self._docs:
            at += len(doc.blob)
            offsets.append(at)
        return offsets

    def blob(self, doc: int) -> bytes:
        return self._docs[doc].blob

    def postings(self, token: str) -> _Postings | None:
        if token in self._postings:
            return self._postings[token]
        by_token = self._by_token
        if by_token is None:
            by_token = self._by_token = {}
            for number, doc in enumerate(self._docs):
                for tok, count in doc.counts.items():
                    by_token.setdefault(tok, []).append((count, doc.length, number))
        entries = sorted(by_token.get(token, ()))
        found = None
        if entries:
            groups = array("I")
            start = 0
            while start < len(entries):
                count, length, _ = entries[start]
                end = start + 1
                while end < len(entries) and entries[end][:2] == (count, length):
                    end += 1
                groups.extend((count, length, end - start))
                start = end
            found = _Postings(array("I", [e[2] for e in entries]), groups, array("I", [e[0] for e in entries]))
        self._postings[token] = found
        return found

    def close(self) -> None:
        pass


def _all_docs(index: IndexedFile, indexer: Indexer) -> list[Doc]:
    """Every document of a (validated) index file, back as :class:`Doc`."""
    count = index.count
    cols = [index.column(n) for n in range(len(indexer.columns))]
    lengths = index.lengths()
    offsets = index.blob_offsets()
    blobs = index.blobs()
    counts: list[dict[str, int]] = [{} for _ in range(count)]
    for token in index.directory():
        postings = index.postings(token)
        assert postings is not None
        at = 0
        groups = postings.groups
        for g in range(0, len(groups), 3):
            f, n = groups[g], groups[g + 2]
            for doc in postings.docs[at : at + n]:
                counts[doc][token] = f
            at += n
    docs = []
    for number in range(count):
        doc = Doc.__new__(Doc)
        doc.counts = counts[number]
        doc.length = lengths[number]
        doc.cols = tuple(col[number] for col in cols)
        doc.blob = blobs[offsets[number] : offsets[number + 1]]
        docs.append(doc)
    return docs


class IndexedSource:
    """One source file, validated against its index (or indexed now): what
    a source's candidates are made from. A piece of the index found corrupt
    while it is read raises :class:`IndexCorrupt`."""

    def __init__(self, index: IndexedFile | _Memory, fd: int | None) -> None:
        self.index = index
        #: the index file (None: built in memory)
        self.path: str | None = getattr(index, "path", None)
        #: the source file, open (for a ``lines`` indexer), else None
        self.fd = fd
        self._columns: dict[int, array] = {}
        self._blobs: tuple[array, array] | None = None

    def checked(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except _Corrupt:
            raise IndexCorrupt(self.path or "") from None

    def column(self, number: int) -> array:
        found = self._columns.get(number)
        if found is None:
            found = self._columns[number] = self.checked(lambda: self.index.column(number))
        return found

    def blob(self, doc: int) -> bytes:
        index = self.index
        if isinstance(index, _Memory):
            return index.blob(doc)
        blobs = self._blobs
        if blobs is None:
            blobs = self._blobs = self.checked(lambda: (index.blob_offsets(), index.blob_crcs()))
        offsets, crcs = blobs
        return self.checked(lambda: index.blob(doc, offsets, crcs))  # type: ignore[no-any-return]

    def read(self, offset: int, length: int) -> bytes:
        """Bytes of the source file (a ``lines`` indexer's)."""
        assert self.fd is not None
        data = os.pread(self.fd, length, offset)
        if len(data) != length:
            raise IndexCorrupt(self.path or "")
        return data

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.index.close()

    def __del__(self) -> None:
        try:
            self.close()
        except OSError:
            pass


class LazyCandidate(Candidate):
    """A candidate whose text and fields are read from the source file (or
    the index) only when something asks for them: the ranker scores from
    the index and weighs from the index's columns, so only the results
    returned are ever read. ``load()`` returns ``(scored_text, fields)``."""

    __slots__ = ("_load", "_loaded")

    _load: Callable[[], tuple[str, Any]]
    _loaded: tuple[str, Any] | None

    def __init__(self, load: Callable[[], tuple[str, Any]], weight: Any = 1.0) -> None:  # noqa: D107
        put = object.__setattr__
        put(self, "_load", load)
        put(self, "_loaded", None)
        put(self, "weight", weight)
        put(self, "terms", None)

    def _get(self) -> tuple[str, Any]:
        loaded = self._loaded
        if loaded is None:
            loaded = self._load()
            object.__setattr__(self, "_loaded", loaded)
        return loaded  # type: ignore[no-any-return]

    @property
    def scored_text(self) -> str:  # type: ignore[override]
        return self._get()[0]

    @property
    def fields(self) -> Any:  # type: ignore[override]
        return self._get()[1]


def _racy_window(ident: tuple[int, ...]) -> int:
    mtime, ctime = ident[3], ident[4]
    seconds = FINE_RACY_SECONDS if mtime % 1_000_000_000 and ctime % 1_000_000_000 else RACY_SECONDS
    return int(seconds * 1_000_000_000)


def _settled(ident: tuple[int, ...], built_ns: int) -> bool:
    return max(ident[3], ident[4]) < built_ns - _racy_window(ident)


def open_indexed(cache: str, root: str, relative: str, indexer: Indexer) -> IndexedSource | None:
    """The indexed form of ``root/relative``: from its index when that is
    valid for the file as it is, else indexed now (and saved). ``None``
    when the file does not exist or this version of it cannot be indexed
    (the unindexed path serves it). Unsafe files raise ``MemError`` with
    the messages of :func:`mem_core.files.read_text`."""
    path = safe_file(root, relative)
    try:
        fd = open_regular(path)  # a FIFO is refused, never waited on
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemError(os_error_message(exc, "open", path)) from None
    try:
        return _open(cache, root, relative, indexer, fd)
    except BaseException:
        os.close(fd)
        raise


def _open(cache: str, root: str, relative: str, indexer: Indexer, fd: int) -> IndexedSource | None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
        raise MemError(NOT_REGULAR)
    ident = identity(st)
    root_real = os.path.realpath(root)
    where = index_path(cache, root_real, relative, indexer.key)
    index = _load(where, indexer, root_real, relative)
    started = time.time_ns()
    if index is not None and index.identity == ident and _settled(ident, index.built_ns):
        return _serve(index, fd, indexer)
    data = _read_all(fd)
    import hashlib  # only when a file is read and hashed: a trusted index needs none

    digest = hashlib.sha1(data).digest()
    if index is not None and index.size == len(data) and index.digest == digest:
        if index.identity != ident or not _settled(index.identity, index.built_ns):
            # the same bytes: record the file's identity (settled now, perhaps)
            try:
                docs = _all_docs(index, indexer) if index.indexable else None
            except _Corrupt:
                docs = None
                index.close()
                index = None
            if index is not None:
                if _unchanged(fd, ident, data):
                    _save(where, _encode(indexer, root_real, relative, ident, started, digest, len(data),
                                         index.covered, docs))  # fmt: skip
                return _serve(index, fd, indexer)
        else:
            return _serve(index, fd, indexer)
    docs = None
    covered = 0
    if (
        index is not None
        and indexer.lines
        and index.indexable
        and len(data) > index.size
        and hashlib.sha1(data[: index.size]).digest() == index.digest
    ):
        try:
            old = _all_docs(index, indexer)
        except _Corrupt:
            old = None
        if old is not None:
            base = index.covered
            kept = [doc for doc in old if doc.cols[0] < base]
            text_check(data[base:])
            added = indexer.build(data[base:], base).docs
            if added is not None:
                docs = kept + added
                covered = _covered(data)
    if index is not None:
        index.close()
    if docs is None:
        text_check(data)
        docs = indexer.build(data, 0).docs
        covered = _covered(data) if indexer.lines else len(data)
    if _unchanged(fd, ident, data):  # else: changed while read, serve it but keep no index of it
        _save(where, _encode(indexer, root_real, relative, ident, started, digest, len(data), covered, docs))
    if docs is None:
        os.close(fd)
        return None
    return _source(_Memory(indexer, docs), fd, indexer)


def _unchanged(fd: int, ident: tuple[int, ...], data: bytes) -> bool:
    """Whether the open file still has the identity it had when ``data`` was read."""
    return len(data) == ident[2] and identity(os.fstat(fd)) == ident


def _source(index: IndexedFile | _Memory, fd: int, indexer: Indexer) -> IndexedSource:
    if indexer.lines:
        return IndexedSource(index, fd)
    os.close(fd)
    return IndexedSource(index, None)


def _serve(index: IndexedFile, fd: int, indexer: Indexer) -> IndexedSource | None:
    if not index.indexable:
        index.close()
        os.close(fd)
        return None
    return _source(index, fd, indexer)


def _covered(data: bytes) -> int:
    """The bytes up to and including the last newline."""
    return data.rfind(b"\n") + 1


def _read_all(fd: int) -> bytes:
    chunks = []
    total = 0
    while True:
        chunk = os.pread(fd, MAX_BYTES + 1 - total, total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_BYTES:
            raise MemError(GREW)
    return b"".join(chunks)


def text_check(data: bytes) -> None:
    """Refuse bytes that are not UTF-8 as the unindexed path does."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError(NOT_UTF8) from None


# -- what the lexical ranker scores --------------------------------------------


class DiskTermIndex(TermIndex):
    """The token index of one source file, from its :class:`IndexedSource`: the
    interface of :class:`~mem_core.retrieval.index.TermIndex` that rankers
    use (``lengths``, :meth:`positions`, :meth:`holding`, :meth:`counts`,
    :meth:`groups`), reading the postings of the tokens asked for only."""

    __slots__ = ("_source", "_count")

    def __init__(self, source: IndexedSource) -> None:  # noqa: D107 - no TermIndex.__init__: nothing to tokenize
        self._source = source
        self._count = source.index.count
        self.lengths = source.checked(source.index.lengths)  # type: ignore[misc]
        self._holding = {}
        self._counts = {}
        self._groups = {}

    def __len__(self) -> int:
        return self._count

    @property
    def terms(self) -> tuple[Terms, ...]:  # type: ignore[override]
        raise AttributeError("a DiskTermIndex keeps no Terms; candidates carry none")

    def _postings(self, token: str) -> _Postings | None:  # type: ignore[override]
        index = self._source.index
        return self._source.checked(lambda: index.postings(token))  # type: ignore[no-any-return]

    def positions(self, tokens: Sequence[str]) -> Sequence[int]:
        found = [set(p.docs) for p in map(self._postings, tokens) if p is not None]
        if not found:
            return ()
        return sorted(set().union(*found))

    def holding(self, token: str) -> frozenset[int]:
        held = self._holding.get(token)
        if held is None:
            postings = self._postings(token)
            held = self._holding[token] = frozenset(postings.docs) if postings is not None else frozenset()
        return held

    def counts(self, token: str) -> dict[int, int]:
        counts = self._counts.get(token)
        if counts is None:
            postings = self._postings(token)
            counts = self._counts[token] = (
                {} if postings is None else dict(zip(postings.docs, postings.counts, strict=True))
            )
        return counts

    def groups(self, token: str) -> tuple[tuple[int, int, frozenset[int]], ...]:
        groups = self._groups.get(token)
        if groups is None:
            found = []
            postings = self._postings(token)
            if postings is not None:
                at = 0
                table, docs = postings.groups, postings.docs
                for g in range(0, len(table), 3):
                    n = table[g + 2]
                    found.append((table[g], table[g + 1], frozenset(docs[at : at + n])))
                    at += n
            groups = self._groups[token] = tuple(found)
        return groups

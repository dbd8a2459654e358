"""The on-disk exact recall index: postings and document lengths of each
note file and of the journal, in the user's cache directory, so that a
one-shot ``mem recall`` (or ``mem hook``) on an unchanged corpus reads only
what the query's words touch.

It is an optimisation, never a second truth: delete it and nothing is lost.

* **Where**: ``<cache>/recall-index/<project key>/<file key>.idx``, where
  ``<cache>`` is the ``cache_dir`` setting, else the user cache directory
  of ``mem``, and the keys are CRC-32s (:func:`~mem_core.files.usercache.checked_name`)
  of the real path of the root (the project or the portfolio) and of the
  file's relative path, its indexer and its analyzer: the header names
  the root and the file, so two sharing a key only rebuild. Never under ``.bmad/memory/``.
* **Term spaces**: what a document's terms are is an :class:`Analyzer`'s
  business — :data:`LEXICAL` (the tokens of docs/contract.md §1, what ``lexical``
  and ``evidence`` score) or a ranker's own (``bm25``'s stemmed, weighted
  terms). Each space has its own index file, keyed by the analyzer's
  ``key``, which names its version: a changed tokenizer or stemmer rebuilds.
* **The format** (one writer, :class:`IndexWriter`; one reader,
  :class:`IndexFile`): the magic, the header's length and CRC-32, the header
  (:class:`Header`, named fields, ``marshal`` of a dict of plain values,
  validated field by field), then the named pieces the header locates, each
  with its CRC-32 (:data:`PIECES`): the per-document columns and lengths
  (``array`` bytes), the blobs, the postings of every token
  (:data:`POSTINGS`) and the token directory (:data:`BUCKET`). Any mismatch,
  a foreign version, another file's index, a truncated file: the index is
  rebuilt, never trusted. No pickle, nothing executable.
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
  index is built and read in memory, nothing else.

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
import struct
import time
import zlib
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.cache import FINE_RACY_SECONDS, RACY_SECONDS, identity
from mem_core.files.io import GREW, MAX_BYTES, NOT_REGULAR, NOT_UTF8, open_regular
from mem_core.files.paths import os_error_message, safe_file
from mem_core.files.usercache import cache_base, checked_name
from mem_core.retrieval.index import TermIndex
from mem_core.retrieval.query import Candidate
from mem_core.text import Terms

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Analyzer",
    "LEXICAL",
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
VERSION = 4
INDEX_DIR = "recall-index"
#: the magic, then the header's length and CRC-32
PREFIX = struct.Struct("<8sII")
_HEADER_MAX = 1 << 20
#: the named pieces of an index file after its columns (``col0`` …), in file order
PIECES = ("lengths", "blob_offsets", "blob_crcs", "blobs", "buckets")
#: a token's postings: the number of documents and of groups, then the
#: documents ('I'), their counts, and per group (documents of one count and
#: one length, in ascending order) its count, its length and its size ('I')
POSTINGS = struct.Struct("<II")
#: a bucket of the token directory: how many tokens, then their postings'
#: offsets ('Q'), sizes and CRC-32s ('I'), then the tokens joined by newlines
BUCKET = struct.Struct("<I")
#: tokens per directory bucket
BUCKET_TOKENS = 128
#: an entry of the bucket table: offset, size, CRC-32 of a bucket
BUCKET_ENTRY = struct.Struct("<QQQ")


class Analyzer:
    """What a document's terms are in an index: ``analyse(text, headed)``
    returns its term counts and its length (``headed``: the text's first
    line is a heading). ``key`` names the analysis and its version — change
    it with the tokenizer, the stemmer or the weights and every index of
    this space is rebuilt; ``typecode`` is the ``array`` type of counts and
    lengths (``"I"`` for whole counts, ``"d"`` for weighted ones)."""

    key: str = ""
    typecode: str = "I"

    def analyse(self, text: str, headed: bool) -> tuple[dict[str, Any], Any]:
        raise NotImplementedError


class _Lexical(Analyzer):
    """The tokens of docs/contract.md §1, counted (:class:`Terms`)."""

    key = "lexical/1"
    typecode = "I"

    def analyse(self, text: str, headed: bool) -> tuple[dict[str, Any], Any]:
        terms = Terms.of(text)
        return terms.counts, terms.length


LEXICAL = _Lexical()


class Doc:
    """One document of an indexer: the text it is scored on (its first line
    a heading when ``headed``), its numeric columns (as the indexer declares
    them) and an optional blob. Its terms are the analyzer's business."""

    __slots__ = ("text", "headed", "cols", "blob")

    def __init__(self, text: str, cols: tuple[float, ...] = (), blob: bytes = b"", *, headed: bool = False) -> None:
        self.text = text
        self.headed = headed
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


def cache_root(cache_dir: str | None) -> str:
    """The directory the recall index lives in (see the module)."""
    return os.path.join(cache_base(cache_dir), INDEX_DIR)


def index_path(cache: str, root_real: str, relative: str, key: str) -> str:
    """Where the index of ``root_real/relative`` is (``key``: its indexer's and analyzer's keys)."""
    # checksums, not hashes: the header names the root and the file it indexes (expected())
    return os.path.join(cache, checked_name(root_real), checked_name(f"{key}\0{relative}") + ".idx")


class Corrupt(Exception):
    """The index file cannot be trusted (rebuild it)."""


class IndexCorrupt(Exception):
    """A piece of an index file read during a recall failed its check:
    ``path`` must be deleted and the recall run again without it."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def _bucket(token: str, buckets: int) -> int:
    return zlib.crc32(token.encode("utf-8")) % buckets


# -- the header ----------------------------------------------------------------


def _ints(n: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, tuple) and len(v) == n and all(type(x) is int for x in v)


def _piece_table(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(name, str) and _ints(3)(entry) and min(entry) >= 0 for name, entry in value.items()
    )


#: the header's fields and the test each value must pass
HEADER_FIELDS: dict[str, Callable[[Any], bool]] = {
    "version": lambda v: v == VERSION,
    "indexer": lambda v: type(v) is str,  # the Indexer's key
    "columns": lambda v: type(v) is str,  # its columns' typecodes
    "space": lambda v: type(v) is str,  # the Analyzer's key
    "typecode": lambda v: v in ("I", "d"),  # the type of counts and lengths
    "root": lambda v: type(v) is str,  # the real path of the root (or a portfolio build's tag)
    "relative": lambda v: type(v) is str,  # the file, relative to the root
    "identity": _ints(5),  # the source file's (device, inode, size, mtime_ns, ctime_ns)
    "built_ns": lambda v: type(v) is int,  # when indexing started
    "digest": lambda v: type(v) is bytes,  # SHA-1 of the source's bytes (those indexed)
    "size": lambda v: type(v) is int and v >= 0,  # the source's size
    "covered": lambda v: type(v) is int and v >= 0,  # bytes indexed (a lines indexer: up to the last newline)
    "count": lambda v: type(v) is int and v >= -1,  # documents; -1: this version is not indexable
    "pieces": _piece_table,  # name -> (offset after the header, size, CRC-32)
}


class Header:
    """The header of an index file: :data:`HEADER_FIELDS`, by name."""

    __slots__ = tuple(HEADER_FIELDS)

    version: int
    indexer: str
    columns: str
    space: str
    typecode: str
    root: str
    relative: str
    identity: tuple[int, ...]
    built_ns: int
    digest: bytes
    size: int
    covered: int
    count: int
    pieces: dict[str, tuple[int, int, int]]

    def __init__(self, **fields: Any) -> None:
        for name in HEADER_FIELDS:
            setattr(self, name, fields[name])

    def replace(self, **changes: Any) -> Header:
        fields = {name: getattr(self, name) for name in HEADER_FIELDS}
        fields.update(changes)
        return Header(**fields)

    def encode(self) -> bytes:
        body = marshal.dumps({name: getattr(self, name) for name in HEADER_FIELDS})
        return PREFIX.pack(MAGIC, len(body), crc(body)) + body

    @classmethod
    def decode(cls, body: bytes) -> Header:
        try:
            fields = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            raise Corrupt from None
        if not (isinstance(fields, dict) and fields.keys() == HEADER_FIELDS.keys()):
            raise Corrupt
        for name, test in HEADER_FIELDS.items():
            if not test(fields[name]):
                raise Corrupt
        header = cls(**fields)
        names = {f"col{n}" for n in range(len(header.columns))} | set(PIECES)
        if header.pieces.keys() != names or header.covered > header.size:
            raise Corrupt
        return header

    def matches(self, expected: dict[str, Any]) -> bool:
        return all(getattr(self, name) == value for name, value in expected.items())


def expected(indexer: Indexer, analyzer: Analyzer, root: str, relative: str) -> dict[str, Any]:
    """The header fields an index file of ``root/relative`` must have."""
    return {
        "indexer": indexer.key,
        "columns": indexer.columns,
        "space": analyzer.key,
        "typecode": analyzer.typecode,
        "root": root,
        "relative": relative,
    }


# -- the writer ------------------------------------------------------------------


class IndexWriter:
    """Documents collected for an index file, kept in arrays (a portfolio
    holds millions of postings: tuples would not fit in memory), and the
    bytes of the file (:meth:`encode`)."""

    def __init__(self, indexer: Indexer, analyzer: Analyzer) -> None:
        self.indexer = indexer
        self.analyzer = analyzer
        self.count = 0
        self.lengths = array(analyzer.typecode)
        self.cols = [array(code) for code in indexer.columns]
        self.blobs: list[bytes] = []
        self.tokens: dict[str, tuple[array, array]] = {}  # token -> (documents, counts)

    def add(self, doc: Doc, cols: tuple[Any, ...] | None = None) -> None:
        """Add ``doc`` (with ``cols`` in place of its own columns)."""
        counts, length = self.analyzer.analyse(doc.text, doc.headed)
        self.add_counted(counts, length, doc.cols if cols is None else cols, doc.blob)

    def add_counted(self, counts: dict[str, Any], length: Any, cols: tuple[Any, ...], blob: bytes) -> None:
        number = self.count
        self.count += 1
        for column, value in zip(self.cols, cols, strict=True):
            column.append(value)
        self.lengths.append(length)
        self.blobs.append(blob)
        tokens = self.tokens
        code = self.analyzer.typecode
        for token, count in counts.items():
            found = tokens.get(token)
            if found is None:
                found = tokens[token] = (array("I"), array(code))
            found[0].append(number)
            found[1].append(count)

    def encode(self, **header: Any) -> bytes:
        """The bytes of the index file, its header made of ``header`` (every
        field of :data:`HEADER_FIELDS` but those the writer knows)."""
        pieces: list[bytes] = []
        table: dict[str, tuple[int, int, int]] = {}
        at = 0

        def piece(name: str, data: bytes) -> None:
            nonlocal at
            pieces.append(data)
            table[name] = (at, len(data), crc(data))
            at += len(data)

        for number, column in enumerate(self.cols):
            piece(f"col{number}", column.tobytes())
        piece("lengths", self.lengths.tobytes())
        offsets = array("Q", [0])
        total = 0
        for blob in self.blobs:
            total += len(blob)
            offsets.append(total)
        piece("blob_offsets", offsets.tobytes())
        piece("blob_crcs", array("I", [crc(blob) for blob in self.blobs]).tobytes())
        piece("blobs", b"".join(self.blobs))
        names = sorted(self.tokens)
        where, sizes, crcs = array("Q"), array("I"), array("I")
        for token in names:
            chunk = self._postings(token)
            where.append(at)
            sizes.append(len(chunk))
            crcs.append(crc(chunk))
            pieces.append(chunk)
            at += len(chunk)
        # the directory comes last, after the postings it points into: tokens
        # in buckets (by CRC-32 of the token), so that a query reads the
        # buckets of its words only
        nbuckets = max(1, len(names) // BUCKET_TOKENS)
        members: list[list[int]] = [[] for _ in range(nbuckets)]
        for number, token in enumerate(names):
            members[_bucket(token, nbuckets)].append(number)
        bucket_table = []
        for numbers in members:
            data = (
                BUCKET.pack(len(numbers))
                + array("Q", [where[n] for n in numbers]).tobytes()
                + array("I", [sizes[n] for n in numbers]).tobytes()
                + array("I", [crcs[n] for n in numbers]).tobytes()
                + "\n".join(names[n] for n in numbers).encode("utf-8")
            )
            bucket_table.append(BUCKET_ENTRY.pack(at, len(data), crc(data)))
            pieces.append(data)
            at += len(data)
        piece("buckets", b"".join(bucket_table))
        head = Header(
            version=VERSION,
            indexer=self.indexer.key,
            columns=self.indexer.columns,
            space=self.analyzer.key,
            typecode=self.analyzer.typecode,
            count=self.count,
            pieces=table,
            **header,
        )
        return head.encode() + b"".join(pieces)

    def _postings(self, token: str) -> bytes:
        """A token's postings record (:data:`POSTINGS`): its documents in
        groups of one (count, length), ascending in each group."""
        docs, counts = self.tokens[token]
        entries = sorted(zip(counts, map(self.lengths.__getitem__, docs), docs, strict=True))
        code = self.analyzer.typecode
        docs_of = array("I", [entry[2] for entry in entries])
        counts_of = array(code, [entry[0] for entry in entries])
        group_counts, group_lengths, group_sizes = array(code), array(code), array("I")
        start = 0
        n = len(entries)
        while start < n:
            key = entries[start][:2]
            end = start + 1
            while end < n and entries[end][:2] == key:
                end += 1
            group_counts.append(key[0])
            group_lengths.append(key[1])
            group_sizes.append(end - start)
            start = end
        return b"".join(
            (
                POSTINGS.pack(n, len(group_sizes)),
                docs_of.tobytes(),
                counts_of.tobytes(),
                group_counts.tobytes(),
                group_lengths.tobytes(),
                group_sizes.tobytes(),
            )
        )


def unindexable(indexer: Indexer, analyzer: Analyzer, **header: Any) -> bytes:
    """An index file saying that this version of the file cannot be indexed."""
    writer = IndexWriter(indexer, analyzer)
    writer.count = -1
    return writer.encode(**header)


# -- the reader ------------------------------------------------------------------


class Postings:
    """A token's postings, as :data:`POSTINGS` lays them out."""

    __slots__ = ("docs", "counts", "group_counts", "group_lengths", "group_sizes")

    def __init__(self, data: bytes, typecode: str, count: int) -> None:
        if len(data) < POSTINGS.size:
            raise Corrupt
        n, groups = POSTINGS.unpack_from(data)
        width = array(typecode).itemsize
        if len(data) != POSTINGS.size + n * (4 + width) + groups * (2 * width + 4):
            raise Corrupt
        at = POSTINGS.size
        parts = []
        for code, size in (("I", n), (typecode, n), (typecode, groups), (typecode, groups), ("I", groups)):
            values = array(code)
            values.frombytes(data[at : at + size * values.itemsize])
            at += size * values.itemsize
            parts.append(values)
        self.docs, self.counts, self.group_counts, self.group_lengths, self.group_sizes = parts
        if sum(self.group_sizes) != n or (n and max(self.docs) >= count):
            raise Corrupt


class IndexFile:
    """An index file, open for reading: its validated :class:`Header`;
    pieces are read and checked on demand, from an open file (``fd``) or
    from the bytes of one built in memory (``data``)."""

    def __init__(self, header: Header, body: int, *, fd: int = -1, data: bytes = b"", path: str | None = None) -> None:
        self.header = header
        self.path = path
        self.count = header.count
        self.columns = header.columns
        self._fd = fd
        self._data = data
        self._body = body
        self._bucket_table: list[tuple[int, int, int]] | None = None
        self._loaded_buckets: dict[int, dict[str, tuple[int, int, int]]] = {}
        self._postings: dict[str, Postings | None] = {}

    @classmethod
    def from_bytes(cls, data: bytes) -> IndexFile:
        header, body = _header(data[: PREFIX.size], lambda n: data[PREFIX.size : PREFIX.size + n])
        return cls(header, body, data=data)

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

    def _read(self, offset: int, length: int, check: int) -> bytes:
        at = self._body + offset
        data = os.pread(self._fd, length, at) if self._fd >= 0 else self._data[at : at + length]
        if len(data) != length or crc(data) != check:
            raise Corrupt
        return data

    def piece(self, name: str) -> bytes:
        return self._read(*self.header.pieces[name])

    def _array(self, name: str, code: str, size: int) -> array:
        values = array(code)
        data = self.piece(name)
        if len(data) != size * values.itemsize:
            raise Corrupt
        values.frombytes(data)
        return values

    def column(self, number: int) -> array:
        return self._array(f"col{number}", self.columns[number], max(self.count, 0))

    def lengths(self) -> array:
        return self._array("lengths", self.header.typecode, max(self.count, 0))

    def blob_offsets(self) -> array:
        return self._array("blob_offsets", "Q", max(self.count, 0) + 1)

    def blob_crcs(self) -> array:
        return self._array("blob_crcs", "I", max(self.count, 0))

    def blob(self, doc: int, offsets: array, crcs: array) -> bytes:
        """Document ``doc``'s blob, checked against its own CRC-32."""
        base, length, _whole = self.header.pieces["blobs"]
        start, end = offsets[doc], offsets[doc + 1]
        if not 0 <= start <= end <= length:
            raise Corrupt
        return self._read(base + start, end - start, crcs[doc])

    def _buckets(self) -> list[tuple[int, int, int]]:
        found = self._bucket_table
        if found is None:
            data = self.piece("buckets")
            if not data or len(data) % BUCKET_ENTRY.size:
                raise Corrupt
            found = self._bucket_table = list(BUCKET_ENTRY.iter_unpack(data))
        return found

    def _bucket_of(self, number: int) -> dict[str, tuple[int, int, int]]:
        """Bucket ``number`` of the directory: token -> (offset, size, CRC-32) of its postings."""
        found = self._loaded_buckets.get(number)
        if found is not None:
            return found
        data = self._read(*self._buckets()[number])
        if len(data) < BUCKET.size:
            raise Corrupt
        (n,) = BUCKET.unpack_from(data)
        where, sizes, crcs = array("Q"), array("I"), array("I")
        at = BUCKET.size
        for values in (where, sizes, crcs):
            chunk = data[at : at + n * values.itemsize]
            if len(chunk) != n * values.itemsize:
                raise Corrupt
            values.frombytes(chunk)
            at += n * values.itemsize
        names = data[at:].decode("utf-8").split("\n") if n else []
        if len(names) != n:
            raise Corrupt
        found = self._loaded_buckets[number] = dict(zip(names, zip(where, sizes, crcs, strict=True), strict=True))
        return found

    def directory(self) -> list[str]:
        """Every token of the index (reads every bucket)."""
        return [token for number in range(len(self._buckets())) for token in self._bucket_of(number)]

    def postings(self, token: str) -> Postings | None:
        if token in self._postings:
            return self._postings[token]
        entry = self._bucket_of(_bucket(token, len(self._buckets()))).get(token)
        found = None if entry is None else Postings(self._read(*entry), self.header.typecode, self.count)
        self._postings[token] = found
        return found

    def body(self) -> bytes:
        """Every piece, as written (checked piece by piece)."""
        end = max(offset + size for offset, size, _crc in self.header.pieces.values())
        for name in self.header.pieces:
            self.piece(name)
        for entry in self._buckets():
            self._read(*entry)
        return os.pread(self._fd, end, self._body) if self._fd >= 0 else self._data[self._body : self._body + end]

    def counted(self) -> list[tuple[dict[str, Any], Any, tuple[Any, ...], bytes]]:
        """Every document back as (counts, length, columns, blob)."""
        count = self.count
        cols = [self.column(n) for n in range(len(self.columns))]
        lengths = self.lengths()
        offsets = self.blob_offsets()
        blobs = self.piece("blobs")
        counts: list[dict[str, Any]] = [{} for _ in range(count)]
        for token in self.directory():
            postings = self.postings(token)
            assert postings is not None
            for doc, value in zip(postings.docs, postings.counts, strict=True):
                counts[doc][token] = value
        return [
            (counts[n], lengths[n], tuple(col[n] for col in cols), blobs[offsets[n] : offsets[n + 1]])
            for n in range(count)
        ]


def _header(prefix: bytes, body: Callable[[int], bytes]) -> tuple[Header, int]:
    """The header of an index file from its prefix (``body(n)``: its first
    ``n`` bytes after the prefix), and where its pieces start."""
    if len(prefix) < PREFIX.size:
        raise Corrupt
    magic, length, check = PREFIX.unpack_from(prefix)
    if magic != MAGIC or length > _HEADER_MAX:
        raise Corrupt
    raw = body(length)
    if len(raw) != length or crc(raw) != check:
        raise Corrupt
    return Header.decode(raw), PREFIX.size + length


def load(path: str, want: dict[str, Any]) -> IndexFile | None:
    """The index file at ``path`` if it is one whose header has the fields
    ``want`` (:func:`expected`), else None."""
    try:
        fd = open_regular(path)  # a FIFO planted in the cache never blocks
    except (OSError, MemError):
        return None
    try:
        head = os.pread(fd, 65536, 0)

        def body(n: int) -> bytes:
            raw = head[PREFIX.size : PREFIX.size + n]
            return raw if len(raw) == n else os.pread(fd, n, PREFIX.size)

        header, start = _header(head, body)
        if not header.matches(want):
            raise Corrupt
        return IndexFile(header, start, fd=fd, path=path)
    except (Corrupt, OSError):
        os.close(fd)
        return None


def save(path: str, data: bytes) -> None:
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


class IndexedSource:
    """One source file, validated against its index (or indexed now): what
    a source's candidates are made from. A piece of the index found corrupt
    while it is read raises :class:`IndexCorrupt`."""

    def __init__(self, index: IndexFile, fd: int | None) -> None:
        self.index = index
        #: the index file (None: built in memory)
        self.path: str | None = index.path
        #: the source file, open (for a ``lines`` indexer), else None
        self.fd = fd
        self._columns: dict[int, array] = {}
        self._blobs: tuple[array, array] | None = None

    @property
    def space(self) -> str:
        """The key of the index's :class:`Analyzer`."""
        return self.index.header.space

    def checked(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except Corrupt:
            raise IndexCorrupt(self.path or "") from None

    def column(self, number: int) -> array:
        found = self._columns.get(number)
        if found is None:
            found = self._columns[number] = self.checked(lambda: self.index.column(number))
        return found

    def blob(self, doc: int) -> bytes:
        index = self.index
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


def settled(ident: tuple[int, ...], built_ns: int) -> bool:
    """Whether a file of identity ``ident`` had been quiet for the racy window at ``built_ns``."""
    return max(ident[3], ident[4]) < built_ns - _racy_window(ident)


def open_indexed(
    cache: str, root: str, relative: str, indexer: Indexer, analyzer: Analyzer = LEXICAL
) -> IndexedSource | None:
    """The indexed form of ``root/relative`` in ``analyzer``'s space: from
    its index when that is valid for the file as it is, else indexed now
    (and saved). ``None`` when the file does not exist or this version of it
    cannot be indexed (the unindexed path serves it). Unsafe files raise
    ``MemError`` with the messages of :func:`mem_core.files.read_text`."""
    path = safe_file(root, relative)
    try:
        fd = open_regular(path)  # a FIFO is refused, never waited on
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemError(os_error_message(exc, "open", path)) from None
    try:
        return _open(cache, root, relative, indexer, analyzer, fd)
    except BaseException:
        os.close(fd)
        raise


def _open(cache: str, root: str, relative: str, indexer: Indexer, analyzer: Analyzer, fd: int) -> IndexedSource | None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
        raise MemError(NOT_REGULAR)
    ident = identity(st)
    root_real = os.path.realpath(root)
    where = index_path(cache, root_real, relative, f"{indexer.key}\0{analyzer.key}")
    index = load(where, expected(indexer, analyzer, root_real, relative))
    started = time.time_ns()
    if index is not None and index.header.identity == ident and settled(ident, index.header.built_ns):
        return _serve(index, fd, indexer)
    data = read_all(fd)
    import hashlib  # only when a file is read and hashed: a trusted index needs none

    digest = hashlib.sha1(data).digest()
    if index is not None:
        old = index.header
        if old.size == len(data) and old.digest == digest:
            # the same bytes: record the file's identity (settled now, perhaps)
            try:
                body = index.body()
            except Corrupt:
                body = None
            if body is not None:
                if _unchanged(fd, ident, data):
                    save(where, old.replace(identity=ident, built_ns=started).encode() + body)
                return _serve(index, fd, indexer)
    writer: IndexWriter | None = None
    covered = 0
    if (
        index is not None
        and indexer.lines
        and index.indexable
        and len(data) > index.header.size
        and hashlib.sha1(data[: index.header.size]).digest() == index.header.digest
    ):
        base = index.header.covered
        text_check(data[base:])
        added = indexer.build(data[base:], base).docs
        if added is not None:
            try:
                writer = IndexWriter(indexer, analyzer)
                for counted in index.counted():
                    if counted[2][0] < base:
                        writer.add_counted(*counted)
            except Corrupt:
                writer = None
            else:
                for doc in added:
                    writer.add(doc)
                covered = _covered(data)
    if index is not None:
        index.close()
    header = {"root": root_real, "relative": relative, "identity": ident, "built_ns": started, "digest": digest,
              "size": len(data)}  # fmt: skip
    if writer is None:
        text_check(data)
        docs = indexer.build(data, 0).docs
        covered = _covered(data) if indexer.lines else len(data)
        if docs is None:
            if _unchanged(fd, ident, data):
                save(where, unindexable(indexer, analyzer, covered=covered, **header))
            os.close(fd)
            return None
        writer = IndexWriter(indexer, analyzer)
        for doc in docs:
            writer.add(doc)
    encoded = writer.encode(covered=covered, **header)
    if _unchanged(fd, ident, data):  # else: changed while read, serve it but keep no index of it
        save(where, encoded)
    return _source(IndexFile.from_bytes(encoded), fd, indexer)


def _unchanged(fd: int, ident: tuple[int, ...], data: bytes) -> bool:
    """Whether the open file still has the identity it had when ``data`` was read."""
    return len(data) == ident[2] and identity(os.fstat(fd)) == ident


def _source(index: IndexFile, fd: int, indexer: Indexer) -> IndexedSource:
    if indexer.lines:
        return IndexedSource(index, fd)
    os.close(fd)
    return IndexedSource(index, None)


def _serve(index: IndexFile, fd: int, indexer: Indexer) -> IndexedSource | None:
    if not index.indexable:
        index.close()
        os.close(fd)
        return None
    return _source(index, fd, indexer)


def _covered(data: bytes) -> int:
    """The bytes up to and including the last newline."""
    return data.rfind(b"\n") + 1


def read_all(fd: int) -> bytes:
    """The bytes of an open file of at most :data:`MAX_BYTES` (``MemError`` if it grew past it)."""
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


# -- what the rankers score ----------------------------------------------------


class DiskTermIndex(TermIndex):
    """The term index of one source file, from its :class:`IndexedSource`: the
    interface of :class:`~mem_core.retrieval.index.TermIndex` that rankers
    use (``lengths``, :meth:`positions`, :meth:`holding`, :meth:`counts`,
    :meth:`groups`), reading the postings of the terms asked for only, in
    the space of the index's analyzer (:attr:`space`)."""

    __slots__ = ("_source", "_count", "space")

    def __init__(self, source: IndexedSource) -> None:  # noqa: D107 - no TermIndex.__init__: nothing to tokenize
        self._source = source
        self._count = source.index.count
        #: the key of the :class:`Analyzer` whose terms these are
        self.space = source.space
        self.lengths = source.checked(source.index.lengths)  # type: ignore[misc]
        self._holding = {}
        self._counts = {}
        self._groups = {}

    def __len__(self) -> int:
        return self._count

    @property
    def terms(self) -> tuple[Terms, ...]:  # type: ignore[override]
        raise AttributeError("a DiskTermIndex keeps no Terms; candidates carry none")

    def _postings(self, token: str) -> Postings | None:  # type: ignore[override]
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

    def counts(self, token: str) -> dict[int, Any]:
        counts = self._counts.get(token)
        if counts is None:
            postings = self._postings(token)
            counts = self._counts[token] = (
                {} if postings is None else dict(zip(postings.docs, postings.counts, strict=True))
            )
        return counts

    def groups(self, token: str) -> tuple[tuple[Any, Any, frozenset[int]], ...]:
        groups = self._groups.get(token)
        if groups is None:
            found = []
            postings = self._postings(token)
            if postings is not None:
                at = 0
                docs = postings.docs
                for count, length, size in zip(
                    postings.group_counts, postings.group_lengths, postings.group_sizes, strict=True
                ):
                    found.append((count, length, frozenset(docs[at : at + size])))
                    at += size
            groups = self._groups[token] = tuple(found)
        return groups

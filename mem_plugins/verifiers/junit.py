"""Outcome verifier ``junit``: work is accepted when a JUnit XML report in the
project shows every test passed, the report was written after the code it
covers last changed, and neither has changed since (see docs/verifiers.md).

Observe input::

    {"verifier": "junit", "report": "reports/junit.xml", "suite": "cache",
     "covers": ["src/cache"], "memory": {…}, "scope": ["src/cache"],
     "interpretation": "…"}

``suite`` (optional) keeps only the ``<testsuite>`` elements of that name;
``covers`` lists the project paths the tests exercise: it is the task scope
the receipt's ``scope`` must lie in. The receipt source is::

    {"kind": "junit", "runId": <report path>, "taskId": <suite or "*">,
     "attemptId": <sha256 of the report>, "tests": n, "skipped": k,
     "scope": <covers, sorted>, "scopeHashes": {path: sha256}}

``mem outcomes`` re-reads the report and the covered files: a regenerated
report (another attempt) makes the receipt ``stale-outcome-source``; a failing
report, or a covered file changed after the report, makes it ineligible.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import TYPE_CHECKING

from mem_core.plugin import (
    UNDEFINED,
    MemError,
    OutcomeVerifier,
    js_reorder,
    js_sorted,
    js_trim,
    open_regular,
    prop,
    safe_file,
)

if TYPE_CHECKING:
    from typing import Any, ClassVar

__all__ = ["JUnitVerifier", "MAX_REPORT_BYTES", "MAX_COVERED_FILES"]

MAX_REPORT_BYTES = 16 * 1024 * 1024
MAX_COVERED_FILES = 10_000
ALL_SUITES = "*"

REPORT = "JUnit: report must be a project-relative path to a JUnit XML file."
SUITE = "JUnit: suite must be a non-empty testsuite name other than '*'."
COVERS = "JUnit: covers must list 1-30 normalized project-relative paths."


def _fail(message: str) -> MemError:
    return MemError("JUnit: " + message)


def _covers(value: Any) -> list[str]:
    if not isinstance(value, list) or not 1 <= len(value) <= 30:
        raise MemError(COVERS)
    for item in value:
        if (
            not isinstance(item, str)
            or not item
            or "\\" in item
            or ":" in item
            or item.startswith("/")
            or any(part in ("", ".", "..") for part in item.split("/"))
        ):
            raise MemError(COVERS)
    return js_sorted(dict.fromkeys(value))


def _safe_file(project: str, relative: str) -> str:
    """:func:`safe_file`, its refusal a failed verification."""
    try:
        return safe_file(project, relative)
    except MemError as exc:
        raise _fail(exc.message) from None


def _read_report(project: str, report: str) -> tuple[bytes, int]:
    path = _safe_file(project, report)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _fail(f"Report {report} does not exist.") from None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_REPORT_BYTES:
        raise _fail("Report must be a regular file of at most 16 MiB.")
    try:
        fh = os.fdopen(open_regular(path), "rb")  # a FIFO swapped in never blocks
    except (MemError, OSError):
        raise _fail("Report must be a regular file of at most 16 MiB.") from None
    with fh:
        data = fh.read(MAX_REPORT_BYTES + 1)
    if len(data) > MAX_REPORT_BYTES:
        raise _fail("Report must be a regular file of at most 16 MiB.")
    return data, st.st_mtime_ns


def _counts(data: bytes, suite: str | None) -> tuple[int, int, int, int]:
    """(tests, skipped, failed, errors) of the selected test suites."""
    from xml.etree import ElementTree

    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise _fail("Report must not declare a DOCTYPE or entities.")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        raise _fail("Report is not well-formed XML.") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise _fail("Report is not a JUnit XML report (no testsuites or testsuite root).")
    suites = [s for s in root.iter("testsuite") if suite is None or s.get("name") == suite]
    if not suites:
        raise _fail(f"Report has no testsuite named {suite!r}." if suite else "Report has no testsuite.")
    cases: dict[int, Any] = {}
    suite_failures = 0
    for element in suites:
        for attribute in ("failures", "errors"):
            try:
                suite_failures += max(0, int(element.get(attribute, "0") or "0"))
            except ValueError:
                raise _fail(f"Report has a non-numeric {attribute} count.") from None
        for case in element.iter("testcase"):
            cases[id(case)] = case
    tests = len(cases)
    skipped = sum(1 for c in cases.values() if c.find("skipped") is not None)
    failed = sum(1 for c in cases.values() if c.find("failure") is not None)
    errors = sum(1 for c in cases.values() if c.find("error") is not None)
    if failed or errors or suite_failures:
        raise _fail(f"Not every test passed ({failed} failed, {errors} errors).")
    if tests - skipped <= 0:
        raise _fail("Report shows no executed test.")
    return tests, skipped, failed, errors


def _covered(project: str, covers: list[str]) -> dict[str, tuple[str, int]]:
    """``{path: (sha256, mtime_ns)}`` of every regular file under ``covers``."""
    found: dict[str, tuple[str, int]] = {}

    def visit(relative: str) -> None:
        path = _safe_file(project, relative)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(st.st_mode):
            for name in js_sorted(os.listdir(path)):
                visit(relative + "/" + name)
        elif stat.S_ISREG(st.st_mode):
            if len(found) >= MAX_COVERED_FILES:
                raise _fail(f"Covered paths exceed {MAX_COVERED_FILES} files.")
            with os.fdopen(open_regular(path), "rb") as fh:
                found[relative] = (hashlib.sha256(fh.read()).hexdigest(), st.st_mtime_ns)
        else:
            raise _fail(f"Covered path {relative} is not a regular file or directory.")

    for entry in covers:
        visit(entry)
    return {path: found[path] for path in js_sorted(found)}


def junit_source(project: str, report: Any, suite: Any, covers: Any) -> dict[str, Any]:
    """The receipt source for a passing, current JUnit report."""
    if not isinstance(report, str) or not js_trim(report) or len(report) > 1000:
        raise MemError(REPORT)
    if suite is not None and (not isinstance(suite, str) or not js_trim(suite) or suite == ALL_SUITES):
        raise MemError(SUITE)
    scope = _covers(covers)
    data, report_mtime = _read_report(project, report)
    tests, skipped, _, _ = _counts(data, suite)
    files = _covered(project, scope)
    newer = [path for path, (_, mtime) in files.items() if mtime > report_mtime]
    if newer:
        raise _fail(f"Stale evidence: {newer[0]} changed after the report was written.")
    return {
        "kind": JUnitVerifier.name,
        "runId": report,
        "taskId": suite if suite is not None else ALL_SUITES,
        "attemptId": hashlib.sha256(data).hexdigest(),
        "tests": tests,
        "skipped": skipped,
        "scope": scope,
        # the key order JSON.parse gives back when the receipt is read
        "scopeHashes": js_reorder({path: digest for path, (digest, _) in files.items()}),
    }


class JUnitVerifier(OutcomeVerifier):
    """All tests of a JUnit XML report passed, after the covered code last changed."""

    name: ClassVar[str] = "junit"
    help: ClassVar[str] = "a JUnit XML report in the project: every test passed, report newer than the covered files"

    def describe(self, project: str, request: dict[str, Any]) -> dict[str, Any]:
        suite = prop(request, "suite")
        return junit_source(
            project, prop(request, "report"), None if suite in (None, UNDEFINED) else suite, prop(request, "covers")
        )

    def recheck(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        task = prop(source, "taskId")
        return junit_source(project, prop(source, "runId"), None if task == ALL_SUITES else task, prop(source, "scope"))

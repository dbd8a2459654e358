"""The ``junit`` outcome verifier: a passing JUnit XML report, newer than the
code it covers, as evidence for a lesson (docs/verifiers.md)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from mem_core.errors import MemError
from mem_plugins.verifiers import junit
from mem_plugins.verifiers.junit import JUnitVerifier
from tests.conftest import tree_bytes

PASSING = """<?xml version="1.0" encoding="utf-8"?>
<testsuites>
  <testsuite name="cache" tests="3" failures="0" errors="0" skipped="1">
    <testcase classname="tests.test_cache" name="test_zero_is_kept"/>
    <testcase classname="tests.test_cache" name="test_false_is_kept"/>
    <testcase classname="tests.test_cache" name="test_slow"><skipped message="slow"/></testcase>
  </testsuite>
  <testsuite name="queue" tests="1"><testcase classname="tests.test_queue" name="test_retry"/></testsuite>
</testsuites>
"""


def _at(path: Path, seconds: int) -> None:
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9))


@pytest.fixture
def proj(project: Path) -> Path:
    (project / "src/cache").mkdir(parents=True)
    (project / "src/cache/core.py").write_text("def get(key): ...\n")
    (project / "src/queue.py").write_text("retry = 3\n")
    (project / "reports").mkdir()
    (project / "reports/junit.xml").write_text(PASSING)
    for path in (project / "src/cache/core.py", project / "src/queue.py"):
        _at(path, 1_000)
    _at(project / "reports/junit.xml", 2_000)
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text("### Cache contract\nPreserve false and zero cache values.\n")
    return project


def describe(project: Path, **request: object) -> dict:
    base = {"report": "reports/junit.xml", "covers": ["src/cache"]}
    return JUnitVerifier().describe(str(project), {**base, **request})


def refused(project: Path, message: str, **request: object) -> None:
    with pytest.raises(MemError) as info:
        describe(project, **request)
    assert info.value.message == message


def test_a_passing_report_is_described(proj: Path) -> None:
    report = (proj / "reports/junit.xml").read_bytes()
    assert describe(proj) == {
        "kind": "junit",
        "runId": "reports/junit.xml",
        "taskId": "*",
        "attemptId": hashlib.sha256(report).hexdigest(),
        "tests": 4,
        "skipped": 1,
        "scope": ["src/cache"],
        "scopeHashes": {"src/cache/core.py": hashlib.sha256(b"def get(key): ...\n").hexdigest()},
    }
    assert describe(proj, suite="queue", covers=["src/queue.py", "src/cache", "src/queue.py"])["scope"] == [
        "src/cache",
        "src/queue.py",
    ]
    assert describe(proj, suite="queue")["tests"] == 1


def test_recheck_reproduces_the_source_until_something_changes(proj: Path) -> None:
    verifier = JUnitVerifier()
    source = describe(proj, suite="cache")
    assert verifier.recheck(str(proj), source) == source
    (proj / "reports/junit.xml").write_text(PASSING.replace("test_slow", "test_slower"))  # a new test run
    assert verifier.recheck(str(proj), source)["attemptId"] != source["attemptId"]
    (proj / "src/cache/core.py").write_text("changed\n")
    _at(proj / "src/cache/core.py", int(time.time()) + 100)  # after the new report
    with pytest.raises(
        MemError, match="^JUnit: Stale evidence: src/cache/core.py changed after the report was written.$"
    ):
        verifier.recheck(str(proj), source)


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (PASSING.replace('name="test_retry"/>', 'name="test_retry"><failure message="boom"/></testcase>'),
         "JUnit: Not every test passed (1 failed, 0 errors)."),
        (PASSING.replace('name="test_retry"/>', 'name="test_retry"><error/></testcase>'),
         "JUnit: Not every test passed (0 failed, 1 errors)."),
        (PASSING.replace('errors="0"', 'errors="2"'), "JUnit: Not every test passed (0 failed, 0 errors)."),
        (PASSING.replace('failures="0"', 'failures="x"'), "JUnit: Report has a non-numeric failures count."),
        ('<testsuite name="s"><testcase name="a"><skipped/></testcase></testsuite>', "JUnit: Report shows no executed test."),
        ('<testsuite name="s"/>', "JUnit: Report shows no executed test."),
        ("<testsuites><testsuite name='s'>", "JUnit: Report is not well-formed XML."),
        ("<html/>", "JUnit: Report is not a JUnit XML report (no testsuites or testsuite root)."),
        ("<testsuites/>", "JUnit: Report has no testsuite."),
        ('<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuite name="s"><testcase name="&a;"/></testsuite>',
         "JUnit: Report must not declare a DOCTYPE or entities."),
    ],
)  # fmt: skip
def test_a_report_that_does_not_show_every_test_passing_is_refused(proj: Path, xml: str, message: str) -> None:
    (proj / "reports/junit.xml").write_text(xml)
    refused(proj, message)


def test_input_fields(proj: Path) -> None:
    refused(proj, junit.REPORT, report=None)
    refused(proj, junit.REPORT, report=" ")
    refused(proj, junit.SUITE, suite="*")
    refused(proj, junit.SUITE, suite="")
    refused(proj, junit.COVERS, covers=[])
    refused(proj, junit.COVERS, covers="src")
    refused(proj, junit.COVERS, covers=["../src"])
    refused(proj, junit.COVERS, covers=["src/"])
    refused(proj, "JUnit: Report has no testsuite named 'ghost'.", suite="ghost")
    refused(proj, "JUnit: Report reports/none.xml does not exist.", report="reports/none.xml")
    refused(proj, "JUnit: Memory path must be a normalized project-relative path.", report="../junit.xml")
    refused(proj, "JUnit: Report must be a regular file of at most 16 MiB.", report="reports")
    (proj / "reports/link.xml").symlink_to(proj / "reports/junit.xml")
    refused(proj, "JUnit: Memory paths cannot follow symbolic links or junctions.", report="reports/link.xml")
    (proj / "src/cache/link.py").symlink_to(proj / "src/queue.py")
    refused(proj, "JUnit: Memory paths cannot follow symbolic links or junctions.")


def test_code_newer_than_the_report_is_stale(proj: Path) -> None:
    _at(proj / "src/cache/core.py", 2_001)
    refused(proj, "JUnit: Stale evidence: src/cache/core.py changed after the report was written.")
    assert describe(proj, covers=["src/queue.py"])["scope"] == ["src/queue.py"]


def _observe(mem, proj: Path, **extra: object) -> object:
    data = {"verifier": "junit", "report": "reports/junit.xml", "suite": "cache", "covers": ["src/cache"],
            "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
            "scope": ["src/cache/core.py"], "interpretation": "The cache tests pin this contract.", **extra}  # fmt: skip
    (proj / "in.json").write_text(json.dumps(data))
    return mem("observe", "--input", "in.json", "-d", str(proj))


def test_observe_and_outcomes_with_junit_end_to_end(mem, proj: Path, now: str) -> None:
    run = _observe(mem, proj)
    assert run.code == 0, run.err
    [line] = (proj / ".bmad/memory/outcomes.ndjson").read_text().splitlines()
    receipt = json.loads(line)
    assert run.out == f"mem observe: {receipt['id']} recorded; lesson causality remains unmeasured.\n"
    assert receipt["source"]["kind"] == "junit" and receipt["scope"] == ["src/cache/core.py"]
    assert mem("outcomes", "-d", str(proj)).out == f"{receipt['id']}: accepted-current\n"
    # the same report cannot back a second receipt; a scope outside the covered code is refused
    before = tree_bytes(proj)
    run = _observe(mem, proj)
    assert (run.code, run.err) == (1, "mem observe: Duplicate outcome: this task attempt already supplied a receipt.\n")
    assert tree_bytes(proj) == before
    (proj / ".bmad/memory/outcomes.ndjson").rename(proj / "kept.ndjson")
    run = _observe(mem, proj, scope=["src/queue.py"])
    assert (run.code, run.err) == (1, "mem observe: Outcome scope exceeds the accepted task scope.\n")
    (proj / "kept.ndjson").rename(proj / ".bmad/memory/outcomes.ndjson")
    # a regenerated report is another attempt; covered code changed after it makes the receipt ineligible
    original = (proj / "reports/junit.xml").read_text()
    (proj / "reports/junit.xml").write_text(original.replace("test_slow", "test_slow2"))
    assert mem("outcomes", "-d", str(proj)).out == f"{receipt['id']}: stale-outcome-source\n"
    (proj / "reports/junit.xml").write_text(original)
    _at(proj / "reports/junit.xml", 2_000)
    assert mem("outcomes", "-d", str(proj)).out == f"{receipt['id']}: accepted-current\n"
    (proj / "src/cache/core.py").write_text("changed\n")
    assert mem("outcomes", "-d", str(proj)).out == (
        f"{receipt['id']}: unavailable-or-ineligible-source: "
        "JUnit: Stale evidence: src/cache/core.py changed after the report was written.\n"
    )

"""Replay the differential vectors of ``cases.json`` against ``mem``, in-process.

Every case was run through ``bmad-plus mem`` (the reference, rebuilt outside
this repository, see README.md) and its stdout, stderr, exit code and the files
it left are recorded here. ``mem`` must reproduce them byte for byte, except:

* cases marked ``xfail``: a known ``mem`` bug (the reason names it); they must
  fail today (``xfail_strict``), so a fix shows up as an XPASS to un-mark;
* cases with ``improve``: the spec marks the reference's behaviour as a defect
  (**(improve)**); what ``mem`` must do instead is asserted from ``improve.mem``.

Cases on ``layout: srv`` use the Nexus fixture project, which is bound to
``/srv/example-project``: marked ``srv``, they run in a private mount
namespace whose ``/srv`` is a temporary file system (tests/test_srv_namespace.py),
and are skipped when ``/usr/bin/dash`` is not the binary the fixture's check
recorded.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import BMAD_PROJECT, SRV, in_srv_namespace

HERE = Path(__file__).resolve().parent
DOC = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))
CASES = DOC["cases"]
DEFAULT_ENV = DOC["default_env"]
SKIPPED_LINE = re.compile(r"^mem recall: skipped \S.*: .+$")


# ── layout ──────────────────────────────────────────────────────────────────


def _spec_bytes(spec: dict) -> bytes:
    if "text" in spec:
        text = spec["text"]
        if spec.get("subst"):
            text = text.replace("{HOST}", os.uname().nodename)
        return text.encode("utf-8")
    if "b64" in spec:
        return base64.b64decode(spec["b64"])
    fill = spec["fill"]
    unit = fill["unit"].encode("utf-8")
    return unit * (fill["size"] // len(unit)) + fill.get("tail", "").encode("utf-8")


def _lay_out(root: Path, files: dict) -> None:
    for rel, spec in files.items():
        path = root / rel
        if spec is None:
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.is_dir():
                shutil.rmtree(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if "dir" in spec:
            path.mkdir(parents=True, exist_ok=True)
        elif "symlink" in spec:
            os.symlink(spec["symlink"], path)
        else:
            path.write_bytes(_spec_bytes(spec))


def _copy_fixture(dest: Path) -> None:
    shutil.copytree(BMAD_PROJECT, dest, symlinks=True)
    for root, dirs, files in os.walk(dest):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
    os.chmod(dest, 0o755)


def _snapshot(root: Path) -> dict:
    found: dict = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = ("symlink", os.readlink(path))
            elif path.is_dir():
                found[rel] = ("dir", None)
            else:
                found[rel] = ("file", path.read_bytes())
    return found


def _fixture_hash_ok() -> bool:
    run = json.loads((BMAD_PROJECT / ".bmad-plus/nexus/runs/one.json").read_text(encoding="utf-8"))
    check = run["run"]["plan"]["tasks"][0]["checks"][0]
    try:
        real = os.path.realpath(check["command"])
        return hashlib.sha256(Path(real).read_bytes()).hexdigest() == check["commandHash"]
    except OSError:
        return False


@contextlib.contextmanager
def _srv_project():
    if not in_srv_namespace():
        pytest.fail("srv cases run inside a private mount namespace (tests/test_srv_namespace.py)")
    if not BMAD_PROJECT.is_dir():
        pytest.fail("tests/fixtures (the reference fixtures) is missing")
    if not _fixture_hash_ok():
        pytest.skip("the fixture's check binary (/usr/bin/dash) differs on this machine")
    if SRV.exists():
        shutil.rmtree(SRV)
    _copy_fixture(SRV)
    try:
        yield SRV
    finally:
        shutil.rmtree(SRV, ignore_errors=True)


# ── replay ──────────────────────────────────────────────────────────────────


def _subst(text: str, places: dict[str, str]) -> str:
    for key, real in places.items():
        text = text.replace("{" + key + "}", real)
    return text


def _arg(item, places: dict[str, str]) -> str:
    if isinstance(item, dict):  # raw argv bytes, as Python's sys.argv would hold them
        return os.fsdecode(base64.b64decode(item["b64"]))
    return _subst(item, places)


def _expected_after(case: dict, places: dict[str, str]) -> dict:
    out: dict = {}
    for rel, spec in case["files_after"].items():
        if spec is None:
            out[rel] = None
        elif "dir" in spec:
            out[rel] = ("dir", None)
        elif "symlink" in spec:
            out[rel] = ("symlink", spec["symlink"])
        elif "appended" in spec:
            initial = _spec_bytes(case["files"][rel])
            out[rel] = ("file", initial + _subst(spec["appended"], places).encode("utf-8"))
        elif "text" in spec:
            out[rel] = ("file", _subst(spec["text"], places).encode("utf-8"))
        else:
            out[rel] = ("file", base64.b64decode(spec["b64"]))
    return out


def _changes(before: dict, after: dict) -> dict:
    return {rel: after.get(rel) for rel in set(before) | set(after) if before.get(rel) != after.get(rel)}


def _replay(case: dict, mem, tmp_path: Path):
    work = tmp_path / "w"
    work.mkdir()
    with contextlib.ExitStack() as stack:
        if case["layout"] == "srv":
            project = stack.enter_context(_srv_project())
            root = project
        else:
            project = work / "p"
            root = work
            if case.get("base") == "bmad-plus-project":
                if not BMAD_PROJECT.is_dir():
                    pytest.fail("tests/fixtures (the reference fixtures) is missing")
                _copy_fixture(project)
            else:
                project.mkdir()
        places = {"P": str(project), "W": str(work)}
        _lay_out(root, case.get("files", {}))
        before = _snapshot(root)
        runs = []
        for step in case["steps"]:
            env = dict(DEFAULT_ENV)
            env.update({k: _subst(v, places) for k, v in step.get("env", {}).items()})
            argv = [_arg(a, places) for a in step["argv"]]
            runs.append(mem(*argv, cwd=Path(_subst(step.get("cwd", "{P}"), places)), env=env))
        changes = _changes(before, _snapshot(root))
    return runs, changes, places


def _outputs(runs) -> list[dict]:
    return [{"code": r.code, "stdout": r.out_bytes, "stderr": r.err_bytes} for r in runs]


def _params():
    for case in CASES:
        marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if "xfail" in case else []
        if case["layout"] == "srv":
            marks.append(pytest.mark.srv)
        yield pytest.param(case, id=case["id"], marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_conformance(case: dict, mem, tmp_path: Path) -> None:
    runs, changes, places = _replay(case, mem, tmp_path)
    expected_runs = [
        {
            "code": e["code"],
            "stdout": _subst(e["stdout"], places).encode("utf-8"),
            "stderr": _subst(e["stderr"], places).encode("utf-8"),
        }
        for e in case["expect"]
    ]
    improve = case.get("improve")
    if improve is None:
        assert _outputs(runs) == expected_runs
        assert changes == _expected_after(case, places)
        return
    # the spec marks the reference's behaviour as a defect: check what mem must do instead
    want = improve["mem"]
    for run, before in zip(runs[:-1], expected_runs[:-1], strict=True):
        assert _outputs([run])[0] == before
    last = runs[-1]
    assert last.code == want["code"]
    if "files_after" in want:  # an improvement that goes on (a stale lock taken over)
        assert changes == _expected_after(want, places)
    else:
        assert changes == {}, "an improved refusal or skip changes nothing"
    if "stdout" in want:
        assert last.out == _subst(want["stdout"], places)
    if "stderr" in want:
        assert last.err == _subst(want["stderr"], places)
    if "stdout_without_unsafe" in want:
        reference = _subst(want["stdout_without_unsafe"], places)
        if "--json" in case["steps"][-1]["argv"]:
            got = json.loads(last.out)
            skipped = got.pop("skipped", None)
            assert got == json.loads(reference), "results as if the unsafe source were absent"
            assert skipped, "the skipped source is listed under 'skipped'"
            assert last.err == ""
        else:
            assert last.out == reference, "results as if the unsafe source were absent"
            lines = last.err.splitlines()
            assert lines and all(SKIPPED_LINE.match(line) for line in lines), last.err


def test_vectors_are_consistent() -> None:
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert len(case["expect"]) == len(case["steps"])
        assert not ("xfail" in case and "improve" in case)

"""``mem`` and a Node.js writer following ``bmad-plus mem``'s lock protocol
on one project (docs/contract.md §8): the Node side creates ``writer.lock`` with
``open(…, 'wx')``, writes its owner, appends one journal line, and removes
the lock if it still holds its owner — as the reference does. Mixed with
``mem write`` processes, nothing is lost and nothing is torn. Skipped
without ``node``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.reliability.conftest import MEMORY, spawn_mem, store_problems

pytestmark = pytest.mark.reliability

NODE_WRITER = r"""
const fs = require('fs'), os = require('os'), path = require('path'), crypto = require('crypto');
const [dir, agent, count] = process.argv.slice(2);
const mem = path.join(dir, '.bmad', 'memory');
fs.mkdirSync(mem, {recursive: true});
const lock = path.join(mem, 'writer.lock'), journal = path.join(mem, 'journal.ndjson');
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
for (let i = 0; i < Number(count); i++) {
  const owner = JSON.stringify({pid: process.pid, hostname: os.hostname(), token: crypto.randomUUID()});
  const deadline = Date.now() + 2000;
  for (;;) {
    try { const fd = fs.openSync(lock, 'wx'); fs.writeSync(fd, owner); fs.fsyncSync(fd); fs.closeSync(fd); break; }
    catch (e) { if (e.code !== 'EEXIST' || Date.now() > deadline) { console.error('lock: ' + e.code); process.exit(1); } sleep(10); }
  }
  try {
    const ts = new Date().toISOString(), task = 'node ' + i;
    const id = crypto.createHash('sha256').update(ts + '\0' + agent + '\0' + task).digest('hex').slice(0, 12);
    const line = JSON.stringify({ts, agent, cli: null, model: null, task, outcome: null, signals: {}, artifactHashes: [], id}) + '\n';
    const fd = fs.openSync(journal, 'a'); fs.writeSync(fd, line); fs.fsyncSync(fd); fs.closeSync(fd);
    console.log(id);
  } finally {
    try { if (fs.readFileSync(lock, 'utf8') === owner) fs.unlinkSync(lock); } catch (e) {}
  }
}
"""


@pytest.mark.parametrize("per_writer", [pytest.param(25), pytest.param(100, marks=pytest.mark.slow)])
def test_mem_and_node_writers_share_the_lock(tmp_path: Path, per_writer: int) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    project = tmp_path / "p"
    project.mkdir()
    script = tmp_path / "writer.js"
    script.write_text(NODE_WRITER)
    nodes = [
        subprocess.Popen(
            [node, str(script), str(project), f"node{n}", str(per_writer)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(4)
    ]
    ids: list[str] = []
    failures: list[str] = []
    for round_ in range(per_writer // 5):
        batch = [
            spawn_mem("write", "--agent", f"mem{n}", "--task", f"r{round_}", "--json", cwd=project) for n in range(4)
        ]
        for proc in batch:
            out, err = proc.communicate(timeout=60)
            if proc.returncode == 0:
                ids.append(json.loads(out)["written"]["id"])
            else:
                failures.append(err.decode(errors="replace"))
    for proc in nodes:
        out, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            failures.append(err.decode(errors="replace"))
        ids.extend(out.decode().split())
    journal = [json.loads(line) for line in (project / MEMORY / "journal.ndjson").read_text().splitlines()]
    found = [event["id"] for event in journal]
    lost = [i for i in ids if i not in found]
    print(
        f"mem + node writers: {len(ids)} acknowledged, {len(journal)} lines, lost {len(lost)}, failures {len(failures)}"
    )
    assert failures == []
    assert lost == []
    assert len(journal) == len(ids)
    assert store_problems(project) == []

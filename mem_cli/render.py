"""Every text renderer of ``mem``: a result object in, the text ``mem``
prints out (JSON output is the result's own ``to_json()``).

The five actions print exactly what ``bmad-plus mem`` prints (mem-cli.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.js.numtext import js_number, to_fixed
from mem_core.js.values import js_string
from mem_core.text import one_line

if TYPE_CHECKING:
    from typing import Any

    from mem_core.api.adapters import AdapterChange, AdapterReport
    from mem_core.api.decisions import DecisionResult
    from mem_core.api.evidence import ObserveResult, OutcomesResult
    from mem_core.api.reinforce import ReinforceResult
    from mem_core.api.views import PromotionsResult, ScoresResult
    from mem_core.api.write import WriteResult
    from mem_core.doctor import DoctorReport
    from mem_core.humans.api import HumanResult, HumansResult, RevokeResult
    from mem_core.kernel.report import PluginsReport
    from mem_core.memories.results import (
        ContextSummary,
        ExportResult,
        ForgetResult,
        HistoryResult,
        ImportResult,
        MemoriesResult,
        Memory,
        MigrateResult,
        MindsResult,
        RememberResult,
        RestoreResult,
        VerifyResult,
    )
    from mem_core.retrieval.results import RecallResult

__all__ = [
    "recall_skipped",
    "recall",
    "write",
    "reinforce",
    "observe",
    "outcomes",
    "remember",
    "memories",
    "forget",
    "verify",
    "context",
    "history",
    "restore",
    "minds",
    "exported",
    "imported",
    "migrated",
    "plugins",
    "scores",
    "promotions",
    "decision",
    "human_init",
    "humans",
    "human_revoke",
]


def escape(text: str) -> str:
    """Stored text on one line, invisible characters escaped (mem_core.textsafe,
    imported when a memory is shown)."""
    from mem_core.textsafe import escape as escaped

    return escaped(text)


# -- the five actions ---------------------------------------------------------------


def recall_skipped(result: RecallResult) -> list[str]:
    """The stderr lines of a recall: one per file that could not be read."""
    return [f"mem recall: skipped {skipped['path']}: {skipped['reason']}" for skipped in result.skipped]


def recall_hints(result: RecallResult) -> list[str]:
    """The stderr lines of a recall that found nothing and can say why."""
    return [f"mem recall: hint: {hint}" for hint in result.hints]


def _places(names: list[str], brain: bool) -> str:
    """`` (project: a)``, `` (projects: a, b; brain)``, `` (brain)``."""
    parts = [("project: " if len(names) == 1 else "projects: ") + ", ".join(names)] if names else []
    return f" ({'; '.join([*parts, 'brain'] if brain else parts)})"


def recall(result: RecallResult) -> str:
    """``mem recall``: the ranked matches (mem-cli.md §2). Beyond the
    project (``--scope portfolio``, ``all``), each match names where it
    lives, and a section whose text is the same in several places is shown
    once, with every place (:attr:`RecallResult.places`)."""
    if not result.results:
        return f'mem recall: no matches for "{result.query}" (scope: {result.scope})'
    hits: list[tuple[Any, list[str], bool]] = [(hit, [], False) for hit in result.results]
    if result.places:
        shown: dict[tuple[Any, ...], int] = {}
        hits = []
        for hit, (place, in_brain) in zip(result.results, result.places, strict=True):
            fields = hit.fields
            key = (fields["kind"], fields["source"], fields["ref"], fields["text"])
            if fields["kind"] == "event" or key not in shown:
                shown[key] = len(hits)
                hits.append((hit, [], False))
            _hit, names, brain = hits[shown[key]]
            label = one_line(js_string(result.labels.get(place, place))) if place else None
            if label is not None and label not in names:
                names.append(label)
            hits[shown[key]] = (_hit, names, brain or in_brain)
    lines = [f'mem recall: {len(hits)} match(es) for "{result.query}" (scope: {result.scope})']
    for i, (hit, names, brain) in enumerate(hits, 1):
        fields = hit.fields
        source, ref = js_string(fields["source"]), js_string(fields["ref"])
        origin = f"event {source}#{ref}" if fields["kind"] == "event" else f"{fields['kind']} {source} § {ref}"
        if result.places:
            origin += _places(names, brain)
        trust = hit.extra.get("trust") if hit.extra else None
        if trust:  # the hybrid ranking says what each result is worth as evidence
            origin += f" [{trust}]"
        lines.append(f"  {i}. [{to_fixed(hit.score, 3)}] {origin}")
        text = one_line(js_string(fields["text"]))
        if fields["kind"] == "memory":  # stored content never forges a mark (notes print as the reference does)
            text = escape(text)
        lines.append(f"     {text}")
    return "\n".join(lines)


def write(result: WriteResult) -> str:
    """``mem write``: the event appended (§3)."""
    event = result.written
    lines = [
        f"mem write: event {event['id']} appended ({event['ts']})",
        f"  agent={event['agent']} cli={event['cli'] or '-'} model={event['model'] or '-'} "
        f"outcome={event['outcome'] or '-'}",
    ]
    if event["task"]:
        lines.append(f"  task: {one_line(event['task'])}")
    return "\n".join(lines)


def reinforce(result: ReinforceResult) -> Iterator[str]:
    """``mem reinforce`` (§4), line by line. A line that cannot be formatted
    (a stored score without a numeric elo) raises :class:`MemError` with the
    message ``bmad-plus mem`` gives, after the lines before it — the update
    itself is already written, as with the reference."""
    from mem_core.api.reinforce import PROMOTION_MEAN, PROMOTION_MIN_UPDATES

    next_score = result.next
    yield f'mem reinforce: pattern "{result.pattern_id}"'
    from mem_core.js.jsonfmt import dumps  # (text output imports json only where it shows some)

    yield f"  reward   {to_fixed(result.reward, 3)} (from {dumps(result.signals)})"
    yield (
        f"  elo      {js_to_fixed(result.previous_elo, 1, 'prevElo')}"
        f" -> {js_to_fixed(next_score['elo'], 1, 'next.elo')}"
    )
    yield (
        f"  mean     {to_fixed(next_score['mean'], 3)} (alpha={to_fixed(next_score['alpha'], 2)}, "
        f"beta={to_fixed(next_score['beta'], 2)}, updates={js_string(next_score['updates'])})"
    )
    if result.promotion is not None:
        promotion = result.promotion
        yield f"  promotion PROPOSED ({promotion['id']}): {promotion['fromStatus']} -> {promotion['toStatus']}"
        yield "  awaiting human/Shield approval — never auto-applied (governance guard)"
    else:
        yield f"  promotion: none proposed (needs mean >= {PROMOTION_MEAN} and >= {PROMOTION_MIN_UPDATES} updates)"


def js_to_fixed(value: Any, digits: int, expression: str) -> str:
    """``<expression>.toFixed(digits)`` on a value read from a file: a number is
    formatted; anything else fails with V8's message."""
    from mem_core.api.reinforce import UNDEFINED

    if value is UNDEFINED or value is None:
        kind = "undefined" if value is UNDEFINED else "null"
        raise MemError(f"Cannot read properties of {kind} (reading 'toFixed')")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MemError(f"{expression}.toFixed is not a function")
    return to_fixed(value, digits)


def observe(result: ObserveResult) -> str:
    """``mem observe``: the receipt recorded (§5)."""
    return f"mem observe: {result.id} recorded; lesson causality remains unmeasured."


def outcomes(result: OutcomesResult) -> str:
    """``mem outcomes``: ``<id>: accepted-current`` or ``<id>: <reason>`` per
    receipt (§6)."""
    from mem_core.js.record import UNDEFINED
    from mem_core.js.record import js_string as record_string

    lines = [
        f"{record_string(r.get('id', UNDEFINED))}: {'accepted-current' if r['eligible'] else r['reason']}"
        for r in result.results
    ]
    return "\n".join(lines) or "mem outcomes: no observations."


# -- structured memories (structured-memory.md) -------------------------------------


def remember(result: RememberResult) -> str:
    memory = result.memory
    status = "created" if result.created else "updated" if result.changed else "unchanged"
    return (
        f"mem remember: {status} {memory.ref} ({memory.id}) in mind {escape(memory.mind_id)}, {result.store} store\n"
        f"  {_details(memory)}"
    )


def memories(result: MemoriesResult) -> str:
    where = f"in mind {escape(result.mind)} ({result.store} store)"
    n = len(result.memories)
    if result.search is not None:
        search = escape(result.search)
        head = f'{n} match(es) for "{search}"' if n else f'no matches for "{search}"'
    elif result.expiring is not None:
        head = f"{n} expiring within {result.expiring}" if n else f"none expiring within {result.expiring}"
    else:
        head = f"{n} memor{'y' if n == 1 else 'ies'}" if n else "no memories"
    if result.total is not None and result.total > n:  # --limit kept fewer than were found
        found = result.total
        head = f"{n} of {found} " + (
            "match(es)" if result.search is not None else f"memor{'y' if found == 1 else 'ies'}"
        )
        head += " shown" if result.expiring is None else f" expiring within {result.expiring} shown"
    lines = [f"mem memories: {head} {where}"]
    for number, memory in enumerate(result.memories, 1):
        marks = f"[{memory.mark}]"
        if memory.expired(result.now):
            marks += " [expired]"
        lines.append(f"  {number}. {memory.ref} ({memory.priority.upper()}) {marks}")
        lines.append(f"     {escape(one_line(memory.content))}")
        lines.append(f"     {_details(memory, listing=True)}")
    return "\n".join(lines)


def _details(memory: Memory, listing: bool = False) -> str:
    """``key=value`` details of a memory (a listing's first line already
    shows the priority and the verification)."""
    tags = escape(",".join(memory.tags)) or "-"
    rest = f"confidence={js_number(memory.confidence)} expires={memory.expires_at or '-'} tags={tags}"
    if listing:
        return f"source={memory.source} {rest} id={memory.id}"
    verified = "true" if memory.verified else "false"
    return f"priority={memory.priority} source={memory.source} verified={verified} {rest}"


def forget(result: ForgetResult) -> str:
    memory = result.memory
    return f"mem forget: forgot {memory.ref} ({memory.id}) from mind {escape(memory.mind_id)}, {result.store} store"


def verify(result: VerifyResult) -> str:
    memory = result.memory
    where = f"mind {escape(memory.mind_id)}, {result.store} store"
    how = "signed" if memory.verification == "signed" else "terminal confirmation"
    if result.changed:
        return f"mem verify: verified {memory.ref} ({memory.id}) in {where} [{how}]"
    return f"mem verify: {memory.ref} ({memory.id}) was already verified ({where}) [{how}]"


def context(result: ContextSummary) -> str:
    """The summary text itself (it is part of the result: an LLM reads it)."""
    return result.text


#: how ``mem memories history`` names each action
_DID = {"create": "created", "update": "updated", "verify": "verified", "restore": "restored", "delete": "forgotten"}


def history(result: HistoryResult) -> str:
    """``mem memories history``: one block per version, oldest first."""
    last = result.entries[-1].memory
    n = len(result.entries)
    lines = [
        f"mem memories history: {n} version{'' if n == 1 else 's'} of {last.ref} ({last.id}) "
        f"in mind {escape(last.mind_id)}, {result.store} store"
    ]
    for entry in result.entries:
        memory = entry.memory  # judged by the memory's signatures now (mem_core.memories.trust)
        lines.append(f"  {entry.version}. {_DID[entry.action]} {entry.at} ({memory.priority.upper()}) [{memory.mark}]")
        lines.append(f"     {escape(one_line(memory.content))}")
        lines.append(f"     {_details(memory, listing=True)}")
    return "\n".join(lines)


def restore(result: RestoreResult) -> str:
    memory = result.memory
    where = f"mind {escape(memory.mind_id)}, {result.store} store"
    if not result.changed:
        return f"mem memories restore: {memory.ref} ({memory.id}) holds version {result.version} already ({where})"
    return (
        f"mem memories restore: restored version {result.version} of {memory.ref} ({memory.id}) in {where}\n"
        f"  {_details(memory)}"
    )


def minds(result: MindsResult) -> str:
    """``mem minds``: every mind of the store with its count."""
    if not result.minds:
        return f"mem minds: no minds in the {result.store} store yet"
    n = len(result.minds)
    lines = [f"mem minds: {n} mind{'' if n == 1 else 's'} in the {result.store} store"]
    shown = [(escape(name), count) for name, count in result.minds]
    width = max(len(name) for name, _ in shown)
    for name, count in shown:
        lines.append(f"  {name.ljust(width)}  {_memories(count)}")
    return "\n".join(lines)


def _memories(count: int) -> str:
    return f"{count} memor{'y' if count == 1 else 'ies'}"


def exported(result: ExportResult) -> str:
    return (
        f"mem memories export: wrote {_memories(result.memories)} ({result.forgotten} forgotten, "
        f"{result.history} versions, {result.signatures} signatures) of the {result.store} store to {result.file}"
    )


def imported(result: ImportResult) -> str:
    lines = [
        f"mem memories import: imported {_memories(result.imported)} ({result.forgotten} forgotten, "
        f"{result.signatures} signatures) from {result.file} into the {result.store} store"
    ]
    if result.already:
        different = f" ({result.different} differ from the file)" if result.different else ""
        lines.append(f"  {result.already} already there, left as they are{different}")
    if result.unverified:
        lines.append(f"  {result.unverified} marked verified in the file read unverified: no signature proves them")
    return "\n".join(lines)


def migrated(result: MigrateResult) -> str:
    lines = [
        f"mem memories migrate: copied the {result.store} store from {result.source_backend} to "
        f"{result.target_backend}: {_memories(result.memories)}, {result.forgotten} forgotten, "
        f"{result.history} versions, {result.signatures} signatures",
        f"  checked: counts, content hashes and history match (sha256 {result.digest})",
        f'  now using {result.target_backend} ({result.target}): store = "{result.target_backend}" in {result.config}',
    ]
    if result.unverified:
        lines.append(f"  {result.unverified} verified memories read unverified in the copy: no signature proves them")
    if result.note:
        lines.append(f"  note: {result.note}")
    lines.append(
        f"  the {result.source_backend} store is left as it was; delete it when you no longer need it: "
        + ", ".join(result.delete)
    )
    return "\n".join(lines)


# -- human keys ---------------------------------------------------------------------


def human_init(result: HumanResult) -> str:
    human = result.human
    return (
        f"mem human: made the key {human.name} ({human.fingerprint})\n"
        f"  private key (encrypted with your passphrase): {result.private_key_file}\n"
        f"  public key, trusted ({', '.join(human.trusted)}): {result.public_key_file}\n"
        "  From now on only a trusted human key verifies here: memories confirmed at a terminal before "
        "read unverified until you verify them again."
    )


def humans(result: HumansResult) -> str:
    if not result.humans:
        return "mem human: no human keys (mem human init makes yours)"
    lines = [f"mem human: {len(result.humans)} human key(s)"]
    for human in result.humans:
        trusted = f"trusted: {', '.join(human.trusted)}" if human.trusted else "not trusted here"
        local = ", private key on this machine" if human.local else ""
        lines.append(f"  {human.name} {human.fingerprint} ({trusted}{local})")
    return "\n".join(lines)


def human_revoke(result: RevokeResult) -> str:
    lines = [f"mem human: revoked {result.name} ({', '.join(result.fingerprints)})"]
    lines.extend(f"  removed {path}" for path in result.removed)
    return "\n".join(lines)


# -- plugins ------------------------------------------------------------------------


def plugins(report: PluginsReport) -> str:
    lines = [f"mem plugins: {len(report.plugins)} plugin(s)"]
    for row in report.plugins:
        provides = ", ".join(f"{p['kind']} {p['name']}" for p in row["provides"]) or "-"
        version = f" {row['version']}" if row["version"] else ""
        lines.append(f"  {row['name']} ({row['origin']}: {row['provider']}{version}): {provides}")
        if row["error"]:
            lines.append(f"    BROKEN: {row['error']}")
    return "\n".join(lines)


# -- adapters -----------------------------------------------------------------------


def adapters_list(report: AdapterReport) -> str:
    lines = [f"mem adapters: {len(report.rows)} adapter(s), {report.target.scope} scope"]
    for row in report.rows:
        detected = "detected" if row["detected"] else "not detected"
        lines.append(f"  {row['name']} ({row['title']}): {detected}, installed: {row['installed']}")
        lines.append(f"    {', '.join(row['files'])}")
    return "\n".join(lines)


def adapters_change(result: AdapterChange) -> str:
    """A dry run: the diff. Otherwise what changed, then what the user must still do."""
    verb = "would change" if result.dry_run else "changed"
    if result.dry_run:
        lines = [result.diff.rstrip("\n")] if result.diff else []
    else:
        lines = []
    names = ", ".join(row["name"] for row in result.adapters)
    if not result.files:
        lines.append(f"mem adapters {result.action}: {names}: nothing to change")
    else:
        lines.append(f"mem adapters {result.action}: {names}: {verb} {len(result.files)} file(s)")
        lines += [f"  {row['change']} {row['path']}" for row in result.files]
    for row in result.adapters:
        lines += [f"  {row['name']}: {done}" for done in row.get("done", [])]
        lines += [f"  {row['name']}: {note}" for note in row["notes"]]
    return "\n".join(lines)


def adapters_status(report: AdapterReport) -> str:
    if not report.rows:
        return f"mem adapters: none installed ({report.target.scope} scope); see `mem adapters list`"
    lines = []
    for row in report.rows:
        lines.append(f"{row['name']} ({row['title']}): installed: {row['installed']}")
        lines.append(f"  files: {', '.join(row['files'])}")
        if row["missing"]:
            lines.append(f"  missing: {', '.join(row['missing'])}")
        command = row.get("command")
        if command and command["problem"]:
            lines.append(
                f"  error: `{command['line']} --version` does not run ({command['problem']}): {command['fix']}"
            )
        elif command:
            lines.append(f"  command: {command['line']} (runs)")
        lines += [f"  error: {problem}" for problem in row.get("problems", [])]
        lines += [f"  to do: {note}" for note in row["notes"]]
    return "\n".join(lines)


def _fixed(value: Any, digits: int) -> str:
    return "-" if not isinstance(value, (int, float)) else to_fixed(value, digits)


def _shown(text: Any) -> str:
    """A stored text on one line, control characters escaped (it is data)."""
    from mem_core.js.jsonfmt import dumps

    return dumps(text)[1:-1] if isinstance(text, str) else js_string(text)


def scores(result: ScoresResult) -> str:
    if not result.scores:
        return "mem scores: no pattern scores yet (`mem reinforce --pattern <heading>` records them)"
    n = result.count
    lines = [f"mem scores: {n} pattern{'' if n == 1 else 's'}, highest Elo first"]
    rows = [
        (_fixed(r.elo, 1), _fixed(r.mean, 3), js_string(r.updates), _shown(r.last_update or "-"), _shown(r.pattern))
        for r in result.scores
    ]
    header = ("elo", "mean", "updates", "last update", "pattern")
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(4)]
    for row in (header, *rows):
        cells = [row[0].rjust(widths[0]), row[1].rjust(widths[1]), row[2].rjust(widths[2]), row[3].ljust(widths[3])]
        lines.append(("  " + "  ".join(cells) + "  " + row[4]).rstrip())
    return "\n".join(lines)


def promotions(result: PromotionsResult) -> str:
    lines = _proposed(result)
    if result.decisions:
        lines.append(f"decided: {len(result.decisions)}")
        for row in result.decisions:
            who = f" by {_shown(row.by)}" if row.by is not None else ""
            when = f" at {_shown(row.at)}" if row.at is not None else ""
            how = f" ({_shown(row.decided_with)})" if row.decided_with is not None else ""
            lines.append(f"  {row.id} {_shown(row.pattern)}: {row.status}{who}{when}{how}")
            if row.reason is not None:
                lines.append(f"     reason: {_shown(row.reason)}")
    return "\n".join(lines)


def decision(result: DecisionResult) -> str:
    """``mem promotions accept|reject``: the decision recorded."""
    record = result.record
    who = record.get("approvedBy") or record.get("rejectedBy")
    return (f"mem promotions: {record['id']} {_shown(record['patternId'])} {record['status']} by {_shown(who)} "
            f"at {_shown(record.get('approvedAt') or record.get('rejectedAt'))} ({record['decidedWith']})")  # fmt: skip


def _proposed(result: PromotionsResult) -> list[str]:
    if not result.promotions:
        return ["mem promotions: none proposed (a pattern needs mean >= 0.7 over >= 3 updates)"]
    n = result.count
    lines = [f"mem promotions: {n} proposed, awaiting a human or Shield decision"]
    for number, row in enumerate(result.promotions, 1):
        lines.append(f"  {number}. {row.id} {_shown(row.pattern)} (proposed {_shown(row.ts)})")
        lines.append(f"     {_shown(row.reason)}")
        now = row.current
        if now is None:
            lines.append("     now: no score (the pattern is no longer in pattern-scores.json)")
        else:
            lines.append(
                f"     now: elo {_fixed(now['elo'], 1)}, mean {_fixed(now['mean'], 3)}, "
                f"updates {js_string(now['updates'])}, last update {_shown(now['lastTs'] or '-')}"
            )
        evidence = ", ".join(_shown(item) for item in row.evidence) or "-"
        lines.append(f"     evidence: {evidence}")
    return lines


def doctor(report: DoctorReport) -> str:
    """``mem doctor``: one line per check, ``<status>  <name>: <detail>``."""
    from mem_cli.output import one_line

    return "\n".join(f"{check.status:<5} {one_line(check.name)}: {one_line(check.detail)}" for check in report.checks)


def portfolio_proposals(value: dict[str, Any]) -> str:
    """``mem portfolio proposals``: the lessons to move to the brain; those
    the brain holds already (``inBrain``) are named on one line, not proposed."""
    from mem_cli.output import one_line as shown

    found = [item for item in value["proposals"] if not item["inBrain"]]
    held = [item for item in value["proposals"] if item["inBrain"]]
    if not found:
        lines = ["mem portfolio proposals: none (no lesson has current receipts in two or more projects)"]
        if held:
            lines[0] = "mem portfolio proposals: none new (every lesson backed in two or more projects is in the brain)"
    else:
        lines = [f"mem portfolio proposals: {len(found)} lesson(s) for the brain (nothing is moved)"]
    for number, item in enumerate(found, 1):
        lines.append(shown(f"  {number}. lessons.md § {item['heading']}"))
        for backing in item["projects"]:
            lines.append(shown(f"     {backing['project']}: receipts {', '.join(backing['receiptIds'])}"))
    if held:
        headings = ", ".join(f"§ {item['heading']}" for item in held)
        lines.append(shown(f"  in the brain already (same text): {headings}"))
    return "\n".join(lines)

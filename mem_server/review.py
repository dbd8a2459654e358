"""The review pages: what the agents stored, decided by a human in a browser
(docs/server.md, "Review in the browser").

Server-rendered HTML (Jinja2, every value escaped: stored text is untrusted,
an agent wrote it) under ``/review``, with no script at all — the
Content-Security-Policy allows none — so every action is a plain form.

* **Who.** Only a human session: the ``mem_review`` cookie (``HttpOnly``,
  ``SameSite=Strict``, ``Secure`` over HTTPS) holds the session token a login
  opened. A page without one redirects to the login form; an action without
  one, and any page or action with an agent key (in the cookie or in an
  ``Authorization`` header), is 403.
* **Forms.** Every form carries the session's CSRF secret (the login form: a
  one-time value also kept in a cookie); a post without it changes nothing
  (403).
* **Actions** call the ``mem_core`` functions the command line calls —
  ``verify``, ``remember`` then ``verify`` (edit), ``forget``,
  :func:`~mem_core.api.decisions.decide` — with the server's humans
  as the only trusted keys, and append to the audit log. A verification is
  the human key's own signature: the form asks its passphrase and the key on
  the server's host signs (as ``mem verify`` does); where that key is not on
  the host, ``mem verify`` at the human's terminal is the way.
"""

from __future__ import annotations

import hmac
import secrets
import urllib.parse
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from mem_core.errors import MemError
from mem_server.credentials import AgentKey, HumanSession, Refused
from mem_server.replica import Call, Server, SessionHuman, about, memory_at

__all__ = ["review_routes", "CSP", "COOKIE", "render_queue", "queue_data"]

PREFIX = "/review"
COOKIE = "mem_review"
LOGIN_COOKIE = "mem_review_login"
#: no script, no frame, no plugin; styles and images from this server only
CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")  # fmt: skip
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # same-origin: a form post then names its origin (with no-referrer a browser sends "null")
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
FORM_MAX = 128 * 1024
SESSION_SECONDS = 12 * 3600
#: the queue and the lists show at most this many items of a kind
SHOWN_MAX = 2000
#: what a finished action says on the page it returns to (never stored text)
DONE = {
    "verified": "Verified: the memory carries your signature.",
    "edited": "Edited and verified.",
    "forgotten": "Forgotten (its history keeps a tombstone).",
    "accepted": "Promotion accepted.",
    "rejected": "Promotion rejected.",
}


class Page(Exception):
    """A response decided before the page is built: a redirect or a refusal."""

    def __init__(self, response: Response) -> None:
        self.response = response


# -- templates --------------------------------------------------------------------------


_ENV: Any = None


def environment() -> Any:
    """The Jinja2 environment: autoescape on for every template."""
    global _ENV
    if _ENV is None:
        from jinja2 import Environment, PackageLoader, StrictUndefined

        _ENV = Environment(loader=PackageLoader("mem_server", "templates"), autoescape=True,
                           undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)  # fmt: skip
        _ENV.filters["short"] = lambda text, n=280: text if len(text) <= n else text[: n - 1] + "…"
    return _ENV


TEMPLATES = ("queue.html", "journal.html", "charts.html", "receipts.html", "memories.html", "search.html",
             "memory.html", "login.html", "error.html")  # fmt: skip


def warm() -> None:
    """What a replica does once, when it starts, so that no page request
    pays for it: compile every template (Jinja2 keeps them for the process)
    and import what the pages read with (the records' pydantic models)."""
    import mem_core.api.evidence  # noqa: F401
    import mem_core.api.memories  # noqa: F401
    import mem_core.api.views  # noqa: F401
    import mem_core.reinforcement.models  # noqa: F401

    env = environment()
    for name in (*TEMPLATES, "base.html", "_memory.html"):
        env.get_template(name)


def render(name: str, status: int = 200, **values: Any) -> HTMLResponse:
    html = environment().get_template(name).render(prefix=PREFIX, **values)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def _refused(status: int, message: str, who: HumanSession | None = None) -> HTMLResponse:
    return render("error.html", status, message=message, human=who, csrf="")


# -- who asks ------------------------------------------------------------------------------


def _credential(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, value = header.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else ""
    return request.cookies.get(COOKIE)


def _human(server: Server, request: Request, now: str, *, action: bool) -> HumanSession:
    """The human session asking; a page without one goes to the login form,
    an action is refused; an agent key is always refused."""
    from mem_server.credentials import authenticate

    token = _credential(request)
    try:
        with server.db.transaction() as cursor:
            who = authenticate(cursor, token, now)
    except Refused as refused:
        if action:
            raise Page(_refused(403, f"log in as a human first ({refused}); nothing was changed.")) from None
        raise Page(RedirectResponse(f"{PREFIX}/login", status_code=303, headers=HEADERS)) from None
    if isinstance(who, AgentKey):
        raise Page(_refused(403, "only a human may use the review pages; an agent key never can."))
    return who


def _form(data: bytes) -> dict[str, str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Page(_refused(400, "the form is not UTF-8; nothing was changed.")) from None
    fields: dict[str, str] = {}
    for name, value in urllib.parse.parse_qsl(text, keep_blank_values=True, max_num_fields=32):
        fields.setdefault(name, value)
    return fields


async def _body(request: Request) -> bytes:
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > FORM_MAX:
            raise Page(_refused(413, f"the form is larger than {FORM_MAX} bytes; nothing was changed."))
    return bytes(data)


def _check_csrf(expected: str, given: str | None, who: HumanSession | None = None) -> None:
    if not expected or not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise Page(_refused(403, "the form's CSRF token is missing or wrong: reload the page; nothing was changed.",
                            who))  # fmt: skip


def _same_origin(request: Request) -> None:
    """A browser names the page a post comes from: it must be this server's
    host (the scheme aside: behind a TLS-terminating proxy the browser says
    https and the request arrives over http, with the proxy passing Host)."""
    origin = request.headers.get("origin")
    if origin is None:
        return
    if urllib.parse.urlsplit(origin).netloc != request.headers.get("host", ""):
        raise Page(_refused(403, "a form posted from another site; nothing was changed."))


# -- what the pages show ---------------------------------------------------------------------


def _minds(server: Server) -> list[str]:
    from mem_core.api.memories import list_minds

    names = {name for name, _count in list_minds(directory=server.config.project, kernel=server.kernel).minds}
    return sorted(names | {server.default_mind})


def _memories(server: Server, now: str, **filters: Any) -> list[dict[str, Any]]:
    """Every mind's memories the filters select, judged, as JSON objects."""
    from mem_core.api.memories import list_memories

    found: list[dict[str, Any]] = []
    for mind in _minds(server):
        result = list_memories(mind=mind, directory=server.config.project, kernel=server.kernel, now=now, **filters)
        found += [memory.to_json() for memory in result.memories]
    return found


def _stored_by(server: Server) -> dict[str, str]:
    """Who (which key or human) last wrote each memory, from the audit log."""
    with server.db.transaction() as cursor:
        rows = cursor.run(
            "SELECT target, actor FROM mem_srv_audit WHERE action IN ('memory.create', 'memory.update') ORDER BY seq"
        )
    return {target.removeprefix("memory:"): actor for target, actor in rows}


def _journal(project: str) -> list[dict[str, Any]]:
    from mem_core.files import JOURNAL
    from mem_core.files.io import read_file_bytes
    from mem_core.retrieval.events import event_of_line

    data = read_file_bytes(project, JOURNAL, missing=True) or b""
    events = []
    for line in data.split(b"\n"):
        if line.strip():
            event = event_of_line(line)
            if event is not None:
                events.append(event)
    return events


def _text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def queue_data(server: Server, now: str) -> dict[str, Any]:
    """The review queue: unverified memories newest first, proposed
    promotions with their evidence, receipts that are no longer evidence."""
    from mem_core.api.evidence import inspect_outcomes
    from mem_core.api.views import proposed_promotions

    project = server.config.project
    memories = _memories(server, now, verified=False, include_expired=True)
    memories.sort(key=lambda m: (m["updated_at"] or "", m["created_at"] or ""), reverse=True)
    by = _stored_by(server)
    for memory in memories:
        memory["stored_by"] = by.get(memory["id"], "-")
    events = {_text(e.get("id")): e for e in _journal(project)}
    # a pattern proposed again since (each reinforcement past the threshold
    # proposes) is one decision: its latest proposal is shown
    latest = {row.pattern: row for row in proposed_promotions(project).promotions}
    promotions = []
    for row in latest.values():
        promotion = row.to_dict()
        promotion["events"] = [(ref, events.get(ref)) for ref in row.evidence]
        promotions.append(promotion)
    receipts = [r for r in inspect_outcomes(project, kernel=server.kernel) if not r.get("eligible")]
    return {"memories": memories[:SHOWN_MAX], "memory_count": len(memories), "promotions": promotions,
            "receipts": receipts}  # fmt: skip


def render_queue(server: Server, who: HumanSession, now: str, done: str | None = None) -> HTMLResponse:
    return render("queue.html", human=who, csrf=who.csrf, done=DONE.get(done or ""), now=now,
                  **queue_data(server, now))  # fmt: skip


def _journal_view(server: Server, agent: str, outcome: str) -> dict[str, Any]:
    events = _journal(server.config.project)
    agents = sorted({_text(e.get("agent")) for e in events})
    outcomes = sorted({_text(e.get("outcome")) for e in events if e.get("outcome")})
    shown = [e for e in events if (not agent or _text(e.get("agent")) == agent)
             and (not outcome or _text(e.get("outcome")) == outcome)]  # fmt: skip
    shown.reverse()  # newest first, then failures before everything else (a stable sort)
    shown.sort(key=lambda e: 0 if e.get("outcome") == "failure" else 1)
    by_agent: dict[tuple[str, str], dict[str, int]] = {}
    for event in events:
        counts = by_agent.setdefault((_text(event.get("agent")), _text(event.get("cli")) or "-"), {})
        name = _text(event.get("outcome")) or "none"
        counts[name] = counts.get(name, 0) + 1
    return {"events": shown[:SHOWN_MAX], "total": len(shown), "agents": agents, "outcomes": outcomes,
            "agent": agent, "outcome": outcome, "by_agent": sorted(by_agent.items())}  # fmt: skip


def _points(server: Server) -> dict[str, list[tuple[str, float, float]]]:
    """Each pattern's (time, Elo, mean) over time, one point per update: the
    reinforcements the audit log recorded, the scores the proposals kept,
    and the score now."""
    import json
    import math

    from mem_core.api.reinforce import read_pattern_scores, read_promotions
    from mem_core.js.numbers import js_to_number

    def number(value: Any) -> float | None:
        n = js_to_number(value)
        return None if math.isnan(n) or math.isinf(n) else float(n)

    # keyed by (time, updates): a score is one update of its pattern
    found: dict[str, dict[tuple[str, float], tuple[float, float]]] = {}

    def add(pattern: str, at: Any, updates: Any, elo: Any, mean: Any) -> None:
        e, m, u = number(elo), number(mean), number(updates)
        if isinstance(at, str) and e is not None and m is not None:
            found.setdefault(pattern, {})[(at, u if u is not None else 0.0)] = (e, m)

    with server.db.transaction() as cursor:
        rows = cursor.run("SELECT at, target, detail FROM mem_srv_audit WHERE action = 'reinforce' ORDER BY seq")
    for at, target, detail in rows:
        try:
            values = json.loads(detail)
        except ValueError:
            continue
        if isinstance(values, dict) and "elo" in values:
            add(target.removeprefix("pattern:"), values.get("at", at), values.get("updates"), values.get("elo"),
                values.get("mean"))  # fmt: skip
    project = server.config.project
    for record in read_promotions(project):
        if record.score is not None:
            add(record.patternId, record.score.lastTs or record.ts, record.score.updates, record.score.elo,
                record.score.mean)  # fmt: skip
    for pattern, score in read_pattern_scores(project).items():
        add(pattern, score.lastTs, score.updates, score.elo, score.mean)
    return {p: [(at, e, m) for (at, _u), (e, m) in sorted(points.items())] for p, points in sorted(found.items())}


def chart(points: list[tuple[str, float, float]], which: int, width: int = 320, height: int = 120) -> dict[str, Any]:
    """One line chart's geometry (``which``: 1 Elo, 2 mean) for the template
    to draw as SVG: the polyline's points, the axis range, the labels."""
    values = [float(p[which]) for p in points]
    low, high = (0.0, 1.0) if which == 2 else (min(values + [1200.0]) - 10, max(values + [1200.0]) + 10)
    pad = 28
    span = high - low or 1.0
    count = len(values)
    xy = []
    for i, value in enumerate(values):
        x = pad + (width - pad - 8) * (i / (count - 1) if count > 1 else 0.5)
        y = 8 + (height - 28) * (1 - (value - low) / span)
        xy.append((round(x, 1), round(y, 1)))
    return {"points": " ".join(f"{x},{y}" for x, y in xy), "dots": xy, "low": low, "high": high,
            "width": width, "height": height, "first": points[0][0] if points else "",
            "last": points[-1][0] if points else "", "now": values[-1] if values else None}  # fmt: skip


# -- the routes -------------------------------------------------------------------------------


Handler = Callable[["Server", Request, str], Any]


def review_routes(server: Server) -> list[Route]:
    """The review pages and actions of one replica (their templates compiled
    now, at start-up, not by the first request)."""
    from starlette.concurrency import run_in_threadpool

    from mem_core.clock import now_iso

    warm()

    def page(work: Callable[[Request, HumanSession, str], Response]) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            now = now_iso()
            try:
                who = await run_in_threadpool(_human, server, request, now, action=False)
                return await run_in_threadpool(work, request, who, now)
            except Page as page:
                return page.response
            except MemError as error:
                return _refused(400, str(error))

        return handle

    def action(work: Callable[[Request, HumanSession, dict[str, str], str], str]) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            from mem_core.humans.keys import serving_trust
            from mem_server.credentials import trust_list

            now = now_iso()
            who: HumanSession | None = None
            try:
                _same_origin(request)
                who = await run_in_threadpool(_human, server, request, now, action=True)
                fields = _form(await _body(request))
                _check_csrf(who.csrf, fields.get("csrf"), who)

                def run() -> str:
                    with server.db.transaction() as cursor:
                        trust = trust_list(cursor, server.key)
                    with serving_trust(trust):
                        return work(request, who, fields, now)  # type: ignore[arg-type]

                back = await run_in_threadpool(run)
                return RedirectResponse(back, status_code=303, headers=HEADERS)
            except Page as page:
                return page.response
            except Refused as refused:
                return _refused(refused.status, str(refused), who)
            except MemError as error:
                return _refused(400, str(error), who)

        return handle

    def audit(who: HumanSession, action: str, target: str, detail: dict[str, Any], now: str) -> None:
        from mem_server import audit as log

        with server.db.transaction() as cursor:
            log.append(cursor, who.actor, action, target, {**detail, "via": "review"}, now)

    # -- pages

    def queue(request: Request, who: HumanSession, now: str) -> Response:
        return render_queue(server, who, now, request.query_params.get("done"))

    def journal(request: Request, who: HumanSession, now: str) -> Response:
        view = _journal_view(server, request.query_params.get("agent", "")[:256],
                             request.query_params.get("outcome", "")[:64])  # fmt: skip
        return render("journal.html", human=who, csrf=who.csrf, **view)

    def charts(request: Request, who: HumanSession, now: str) -> Response:
        patterns = [(name, chart(points, 1), chart(points, 2), len(points)) for name, points in _points(server).items()]
        return render("charts.html", human=who, csrf=who.csrf, patterns=patterns)

    def receipts(request: Request, who: HumanSession, now: str) -> Response:
        from mem_core.api.evidence import inspect_outcomes

        groups: dict[str, list[dict[str, Any]]] = {}
        for receipt in inspect_outcomes(server.config.project, kernel=server.kernel):
            status = "eligible" if receipt.get("eligible") else _text(receipt.get("reason")).split(":")[0]
            groups.setdefault(status, []).append(receipt)
        return render("receipts.html", human=who, csrf=who.csrf, groups=sorted(groups.items()))

    def memories(request: Request, who: HumanSession, now: str) -> Response:
        from mem_core.memories.kinds import CATEGORIES, PRIORITIES

        query = request.query_params
        chosen = {name: query.get(name, "")[:64] for name in ("category", "priority", "verified", "expiring")}
        filters: dict[str, Any] = {}
        if chosen["category"]:
            filters["category"] = chosen["category"]
        if chosen["priority"]:
            filters["priority"] = chosen["priority"]
        if chosen["verified"] in ("yes", "no"):
            filters["verified"] = chosen["verified"] == "yes"
        if chosen["expiring"]:
            filters["expiring"] = chosen["expiring"]
        shown = _memories(server, now, **filters)
        every = _memories(server, now, include_expired=True)
        counts: dict[str, dict[str, int]] = {}
        for memory in every:
            row = counts.setdefault(memory["category"], {})
            row[memory["priority"]] = row.get(memory["priority"], 0) + 1
            row["verified"] = row.get("verified", 0) + (1 if memory["verified"] else 0)
        soon = _memories(server, now, expiring="7d")
        return render("memories.html", human=who, csrf=who.csrf, memories=shown[:SHOWN_MAX], total=len(shown),
                      chosen=chosen, categories=CATEGORIES, priorities=PRIORITIES, counts=sorted(counts.items()),
                      soon=soon)  # fmt: skip

    def search(request: Request, who: HumanSession, now: str) -> Response:
        from mem_core.api.recall import recall

        text = request.query_params.get("q", "")[:1000]
        results: list[dict[str, Any]] = []
        if text.strip():
            results = recall(text, directory=server.config.project, kernel=server.kernel, limit=50, now=now,
                             index=False).to_json()["results"]  # fmt: skip
        return render("search.html", human=who, csrf=who.csrf, q=text, results=results)

    def memory(request: Request, who: HumanSession, now: str) -> Response:
        from mem_core.api.memories import memory_history

        found = _memory(server, request.path_params["id"])
        history = memory_history(found["id"], mind=found["mind_id"], directory=server.config.project,
                                 kernel=server.kernel).to_json()  # fmt: skip
        return render("memory.html", human=who, csrf=who.csrf, memory=found, history=history["history"],
                      done=DONE.get(request.query_params.get("done", "")))  # fmt: skip

    # -- actions

    def verify(request: Request, who: HumanSession, fields: dict[str, str], now: str) -> str:
        from mem_core.api.memories import verify as run

        found = _memory(server, request.path_params["id"])
        key = _unlock(who, fields.get("passphrase", ""))
        done = run(found["id"], mind=found["mind_id"], signer=key, interactive=False,
                   directory=server.config.project, kernel=server.kernel, now=now)  # fmt: skip
        if done.changed:
            audit(who, "memory.verify", f"memory:{found['id']}", about(found) | _signed(key), now)
        return _back(fields, "verified")

    def edit(request: Request, who: HumanSession, fields: dict[str, str], now: str) -> str:
        from mem_core.api.memories import remember
        from mem_core.api.memories import verify as run

        found = _memory(server, request.path_params["id"])
        key = _unlock(who, fields.get("passphrase", ""))  # before anything changes
        content = fields.get("content", "")
        done = remember(found["category"], found["key"], content, mind=found["mind_id"], interactive=False,
                        directory=server.config.project, kernel=server.kernel, now=now)  # fmt: skip
        if done.changed:
            audit(who, "memory.update", f"memory:{found['id']}", about(done.memory.to_json()), now)
        checked = run(found["id"], mind=found["mind_id"], signer=key, interactive=False,
                      directory=server.config.project, kernel=server.kernel, now=now)  # fmt: skip
        if checked.changed:
            audit(who, "memory.verify", f"memory:{found['id']}", about(done.memory.to_json()) | _signed(key), now)
        return _back(fields, "edited")

    def forget(request: Request, who: HumanSession, fields: dict[str, str], now: str) -> str:
        from mem_core.api.memories import forget as run

        found = _memory(server, request.path_params["id"])
        run(found["id"], mind=found["mind_id"], signer=SessionHuman(who), interactive=False,  # type: ignore[arg-type]
            directory=server.config.project, kernel=server.kernel, now=now)  # fmt: skip
        audit(who, "memory.delete", f"memory:{found['id']}", about(found), now)
        return _back(fields, "forgotten", detail=False)

    def decide(request: Request, who: HumanSession, fields: dict[str, str], now: str) -> str:
        from mem_core.api.decisions import decide as run

        decision = fields.get("decision", "")
        done = run(request.path_params["id"][:64], decision, fields.get("reason"), directory=server.config.project,
                   session=who.human, now=now)  # fmt: skip
        record = done.record
        audit(who, f"promotion.{decision}", f"promotion:{record['id']}",
              {"pattern": record["patternId"], "status": record["status"], "reason": record["decisionReason"]}, now)  # fmt: skip
        return f"{PREFIX}?done={'accepted' if decision == 'accept' else 'rejected'}"

    # -- login and logout

    def login_form(request: Request) -> Response:
        value = secrets.token_urlsafe(24)
        response = render("login.html", human=None, csrf=value, error=None)
        response.set_cookie(LOGIN_COOKIE, value, max_age=600, path=PREFIX, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")  # fmt: skip
        return response

    async def login_page(request: Request) -> Response:
        return login_form(request)

    async def login(request: Request) -> Response:
        try:
            _same_origin(request)
            fields = _form(await _body(request))
            _check_csrf(request.cookies.get(LOGIN_COOKIE, ""), fields.get("csrf"))
            token = await run_in_threadpool(_log_in, server, fields, now_iso())
        except Page as page:
            return page.response
        except (Refused, MemError) as error:
            value = secrets.token_urlsafe(24)
            refused = render("login.html", 403, human=None, csrf=value, error=str(error))
            refused.set_cookie(LOGIN_COOKIE, value, max_age=600, path=PREFIX, httponly=True, samesite="strict",
                               secure=request.url.scheme == "https")  # fmt: skip
            return refused
        response = RedirectResponse(PREFIX, status_code=303, headers=HEADERS)
        response.set_cookie(COOKIE, token, max_age=SESSION_SECONDS, path=PREFIX, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")  # fmt: skip
        response.delete_cookie(LOGIN_COOKIE, path=PREFIX)
        return response

    def logout(request: Request, who: HumanSession, fields: dict[str, str], now: str) -> str:
        with server.db.transaction() as cursor:
            cursor.run("UPDATE mem_srv_sessions SET revoked_at = ? WHERE id = ?", (now, who.id))
        return f"{PREFIX}/login"

    async def stylesheet(request: Request) -> Response:
        from importlib.resources import files

        css = files("mem_server").joinpath("templates/review.css").read_bytes()
        return Response(css, media_type="text/css", headers={**HEADERS, "Cache-Control": "max-age=3600"})

    return [
        Route(PREFIX, page(queue)),
        Route(f"{PREFIX}/login", login_page, methods=["GET"]),
        Route(f"{PREFIX}/login", login, methods=["POST"]),
        Route(f"{PREFIX}/logout", action(logout), methods=["POST"]),
        Route(f"{PREFIX}/review.css", stylesheet),
        Route(f"{PREFIX}/journal", page(journal)),
        Route(f"{PREFIX}/charts", page(charts)),
        Route(f"{PREFIX}/receipts", page(receipts)),
        Route(f"{PREFIX}/memories", page(memories)),
        Route(f"{PREFIX}/search", page(search)),
        Route(f"{PREFIX}/memory/{{id}}", page(memory)),
        Route(f"{PREFIX}/memory/{{id}}/verify", action(verify), methods=["POST"]),
        Route(f"{PREFIX}/memory/{{id}}/edit", action(edit), methods=["POST"]),
        Route(f"{PREFIX}/memory/{{id}}/forget", action(forget), methods=["POST"]),
        Route(f"{PREFIX}/promotion/{{id}}/decide", action(decide), methods=["POST"]),
    ]


def _memory(server: Server, memory_id: str) -> dict[str, Any]:
    """The current memory ``memory_id`` names (any mind: a human reads them all)."""
    call = Call(None, {"id": memory_id[:80]}, {}, {}, "", server)
    try:
        return memory_at(call)
    except Refused as refused:
        raise Page(_refused(refused.status, str(refused))) from None


def _unlock(who: HumanSession, passphrase: str) -> Any:
    """The session's human key, on this host, unlocked with ``passphrase``."""
    from mem_core.humans.keys import HumanKey

    if not passphrase:
        raise MemError("verify needs your human key's passphrase (its signature is the verification); "
                       "nothing was changed.")  # fmt: skip
    key = HumanKey.load(who.human, passphrase)
    if key.fingerprint != who.fingerprint:
        raise MemError(f"the human key {who.human} on this host is not the key of your session; nothing was changed.")
    return key


def _signed(key: Any) -> dict[str, Any]:
    return {"by": key.name, "fingerprint": key.fingerprint}


def _back(fields: dict[str, str], done: str, *, detail: bool = True) -> str:
    """Where a finished action returns: the review page it came from (a path
    of these pages only, never another site), else the queue; a memory
    forgotten has no page to return to."""
    back = fields.get("back", "").partition("?")[0]
    foreign = not back.startswith(PREFIX) or "//" in back or "\\" in back
    if foreign or not detail and back.startswith(f"{PREFIX}/memory/"):
        back = PREFIX
    return f"{back}?done={done}"


def _log_in(server: Server, fields: dict[str, str], now: str) -> str:
    """A session token for the login form: a session token pasted (from
    ``mem human login``), or the name and passphrase of a human key on this
    host, which signs the server's challenge as ``mem human login`` does."""
    import base64

    from mem_core.humans.keys import HumanKey, parse_name
    from mem_server.credentials import authenticate, login, login_payload, new_challenge

    token = fields.get("token", "").strip()
    if token:
        with server.db.transaction() as cursor:
            who = authenticate(cursor, token, now)
        if not isinstance(who, HumanSession):
            raise Refused(403, "only a human may use the review pages; an agent key never can.")
        return token
    name = parse_name(fields.get("name", ""))
    passphrase = fields.get("passphrase", "")
    if not passphrase:
        raise MemError("give your human key's passphrase (or a session token from mem human login)")
    key = HumanKey.load(name, passphrase)
    challenge = new_challenge(server.db, name, now=now)
    signature = base64.b64encode(key.sign(login_payload(challenge))).decode("ascii")
    _session, token = login(server.db, server.key, name, challenge, signature, now=now)
    return token

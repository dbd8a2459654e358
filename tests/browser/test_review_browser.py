"""The review pages in a real browser (Chromium, headless): a human logs in
and decides — verify, edit and verify, forget, accept, reject — and the
command line, over the same store, sees each decision; stored script never
runs; an agent key or no credential opens no page and does no action; a
forged form without the CSRF token changes nothing; axe-core finds no
serious or critical accessibility violation."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from tests.server.kit import snapshot
from tests.server.review_kit import ACTIONS, PAGES, PASSPHRASE, SCRIPT, Seeded, mem_cli

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402


def click(driver: Any, element: Any) -> None:
    """Click what submits a form or follows a link, and wait for the next
    page to be loaded whole: the old page goes stale as soon as the new one
    starts, and an element found while it is still loading could belong to
    no document by the time it is clicked (Chromium: "Node with given id
    does not belong to the document")."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait = WebDriverWait(driver, 30)
    wait.until(expected_conditions.staleness_of(page))
    wait.until(lambda browser: browser.execute_script("return document.readyState") == "complete")


def log_in(driver: Any, seeded: Seeded) -> None:
    driver.get(f"{seeded.url}/review")
    assert driver.current_url.endswith("/review/login")  # no session: the login form
    driver.find_element(By.ID, "name").send_keys("ada")
    driver.find_element(By.ID, "passphrase").send_keys(PASSPHRASE)
    click(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    assert driver.current_url == f"{seeded.url}/review", driver.page_source[:2000]
    assert driver.find_element(By.TAG_NAME, "h1").text == "Review queue"


def in_card(driver: Any, card_id: str, css: str) -> Any:
    return driver.find_element(By.ID, card_id).find_element(By.CSS_SELECTOR, css)


def done(driver: Any) -> str:
    return str(driver.find_element(By.CSS_SELECTOR, "p.done").text)


def paths(seeded: Seeded, template: str) -> str:
    return template.format(id=seeded.memories["k1"]["id"], pid=seeded.promotions["Rate limit"])


def test_a_human_decides_and_the_command_line_sees_it(driver: Any, seeded: Seeded, artifacts: Path) -> None:
    log_in(driver, seeded)
    ids = {key: memory["id"] for key, memory in seeded.memories.items()}
    driver.save_screenshot(str(artifacts / "review-queue.png"))
    # the stored script is shown as text, and it never ran
    assert SCRIPT in driver.find_element(By.ID, f"m-{ids['k0']}").text
    assert driver.execute_script("return window.pwned === undefined") is True
    assert driver.title == "Review queue · mem"

    driver.find_element(By.ID, "passphrase").send_keys(PASSPHRASE)
    click(driver, in_card(driver, f"m-{ids['k1']}", "button.verify"))
    assert done(driver) == "Verified: the memory carries your signature."

    click(driver, in_card(driver, f"m-{ids['k2']}", "a.button"))
    content = driver.find_element(By.ID, "content")
    content.clear()
    content.send_keys("the build needs node 22")
    driver.find_element(By.ID, "edit-pp").send_keys(PASSPHRASE)
    click(driver, driver.find_element(By.CSS_SELECTOR, "#edit ~ form button[type=submit]"))
    assert done(driver) == "Edited and verified."
    assert "verified" in driver.find_element(By.CSS_SELECTOR, ".memory .badge").text

    driver.get(f"{seeded.url}/review")
    click(driver, in_card(driver, f"m-{ids['k3']}", "button.danger"))
    assert done(driver) == "Forgotten (its history keeps a tombstone)."

    rate, cache = seeded.promotions["Rate limit"], seeded.promotions["Cache <shortcut>"]
    in_card(driver, f"p-{rate}", "input[name=reason]").send_keys("held for a month")
    click(driver, in_card(driver, f"p-{rate}", "button[value=accept]"))
    assert done(driver) == "Promotion accepted."
    in_card(driver, f"p-{cache}", "input[name=reason]").send_keys("too few runs")
    click(driver, in_card(driver, f"p-{cache}", "button[value=reject]"))
    assert done(driver) == "Promotion rejected."
    assert not driver.find_elements(By.CSS_SELECTOR, "article.promotion")

    listed = {m["key"]: m for m in mem_cli(seeded.team, "memories", "--mind", "alpha")["memories"]}
    assert (listed["k1"]["verified"], listed["k1"]["verification"]) == (True, "signed")
    assert (listed["k2"]["verified"], listed["k2"]["content"]) == (True, "the build needs node 22")
    assert "k3" not in listed and listed["k0"]["verified"] is False
    decisions = {d["pattern"]: d for d in mem_cli(seeded.team, "promotions")["decisions"]}
    assert (decisions["Rate limit"]["status"], decisions["Rate limit"]["by"]) == ("APPROVED", "ada")
    assert decisions["Rate limit"]["reason"] == "held for a month"
    assert (decisions["Cache <shortcut>"]["status"], decisions["Cache <shortcut>"]["reason"]) == (
        "REJECTED", "too few runs")  # fmt: skip

    driver.get(f"{seeded.url}/review/charts")
    assert len(driver.find_elements(By.CSS_SELECTOR, "figure.chart svg")) == 4
    driver.save_screenshot(str(artifacts / "review-charts.png"))
    driver.get(f"{seeded.url}/review/journal")
    driver.save_screenshot(str(artifacts / "review-journal.png"))
    assert driver.execute_script("return window.pwned === undefined") is True


def forge(driver: Any, action: str, fields: dict[str, str]) -> None:
    """What another page could make the browser send: a form posted to the
    action (built by the test through WebDriver, as no page here runs script)."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.execute_script(
        "const form = document.createElement('form'); form.method = 'post'; form.action = arguments[0];"
        "for (const [name, value] of Object.entries(arguments[1])) {"
        "  const input = document.createElement('input'); input.type = 'hidden'; input.name = name;"
        "  input.value = value; form.appendChild(input); }"
        "document.body.appendChild(form); form.submit();",
        action,
        fields,
    )
    WebDriverWait(driver, 30).until(expected_conditions.staleness_of(page))


def test_no_credential_or_an_agent_key_is_refused_everywhere(driver: Any, seeded: Seeded) -> None:
    before = snapshot(seeded.team)
    for template in PAGES:
        driver.get(f"{seeded.url}{paths(seeded, template)}")
        assert driver.current_url == f"{seeded.url}/review/login", template
    for template, fields in ACTIONS:
        driver.get(f"{seeded.url}/review/login")
        forge(driver, paths(seeded, template), fields)
        assert driver.find_element(By.TAG_NAME, "h1").text == "Refused", template
    # an agent key where the session would be
    driver.get(f"{seeded.url}/review/login")
    driver.add_cookie({"name": "mem_review", "value": seeded.agent, "path": "/review"})
    for template in PAGES:
        driver.get(f"{seeded.url}{paths(seeded, template)}")
        assert "an agent key never can" in driver.find_element(By.CSS_SELECTOR, "p.error").text, template
    for template, fields in ACTIONS:
        forge(driver, paths(seeded, template), {**fields, "csrf": "guess"})
        assert driver.find_element(By.TAG_NAME, "h1").text == "Refused", template
    assert snapshot(seeded.team) == before


def test_a_forged_post_without_the_csrf_token_changes_nothing(driver: Any, seeded: Seeded) -> None:
    log_in(driver, seeded)
    before = snapshot(seeded.team)
    for template, fields in ACTIONS:
        driver.get(f"{seeded.url}/review")
        forge(driver, paths(seeded, template), fields)
        assert "CSRF token is missing or wrong" in driver.find_element(By.CSS_SELECTOR, "p.error").text, template
    assert snapshot(seeded.team) == before
    listed = {m["key"]: m for m in mem_cli(seeded.team, "memories", "--mind", "alpha")["memories"]}
    assert not any(m["verified"] for m in listed.values()) and len(listed) == 4


def axe_source() -> str:
    """axe-core as the ``axe-selenium-python`` package ships it (no download)."""
    axe = pytest.importorskip("axe_selenium_python")
    return resources.files(axe).joinpath("node_modules/axe-core/axe.min.js").read_text(encoding="utf-8")


def test_no_serious_accessibility_violation(driver: Any, seeded: Seeded, artifacts: Path) -> None:
    source = axe_source()
    pages = ["/review/login"]
    driver.get(f"{seeded.url}/review/login")
    found: dict[str, list[dict[str, Any]]] = {}
    for index, path in enumerate([*pages, *(paths(seeded, t) for t in PAGES)]):
        if index == 1:
            log_in(driver, seeded)
        driver.get(f"{seeded.url}{path}")
        driver.execute_script(source)
        result = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done(String(e)));"
        )
        assert isinstance(result, list), result
        serious = [v for v in result if v.get("impact") in ("serious", "critical")]
        if serious:
            found[path] = [{"id": v["id"], "impact": v["impact"], "nodes": [n["html"] for n in v["nodes"][:3]]}
                           for v in serious]  # fmt: skip
    (artifacts / "axe-serious.json").write_text(json.dumps(found, indent=2))
    assert found == {}

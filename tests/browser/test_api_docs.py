"""The portal API's Swagger UI (/api/v1/docs/) in Chromium: it renders its description from the
site's own files (no CDN), and "Try it out" logs in, authorizes with the token it got and
reads the account."""

import json

import pytest
from selenium.webdriver.common.by import By

from tests.accounts.factories import PASSWORD, UserFactory

DOCS = "/api/v1/docs/"


def try_it_out(browser, method: str, path: str) -> str:
    """Open the operation's block and press "Try it out"; answers the block's CSS id."""
    summary = browser.wait_for(f".opblock-{method} .opblock-summary-path[data-path='{path}']")
    block = summary.find_element(By.XPATH, "./ancestor::div[contains(@class, 'opblock ')]")
    where = f"#{block.get_attribute('id')}"
    browser.click(f"{where} .opblock-summary-control")
    browser.click(f"{where} button.try-out__btn")
    return where


def execute(browser, where: str) -> tuple[str, str]:
    """Press Execute; answers the status and the body the UI shows."""
    browser.click(f"{where} button.execute")
    answer = f"{where} .live-responses-table tr.response"
    status = browser.wait_for(f"{answer} .response-col_status").text.strip()
    return status, browser.wait_for(f"{answer} .response-col_description pre").text


@pytest.mark.slow(
    reason="the Swagger UI works out the portal's whole description in the page and draws it "
    "again on each step: about half a second a step, a dozen steps"
)
def test_swagger_ui_renders_and_try_it_out_logs_in(browser):
    user = UserFactory(email="dev@example.com")
    browser.open(DOCS)
    browser.wait_for(".swagger-ui .info .title", text="Emporion License Portal API")
    assert browser.page_answer(DOCS).status == 200
    scripts = [a for a in browser.answers() if a.kind == "Script"]
    assert scripts  # the UI's bundle, from the site itself
    assert all(a.url.startswith(browser.base_url) and a.status == 200 for a in scripts)

    login = try_it_out(browser, "post", "/api/v1/portal/auth/login")
    body = browser.wait_for(f"{login} textarea.body-param__text", visible=True)
    browser.paste(body, json.dumps({"email": user.email, "password": PASSWORD}))
    status, answer = execute(browser, login)
    assert status == "200", answer
    token = json.loads(answer)["access_token"]

    browser.click(".auth-wrapper button.authorize")
    bearer = ".modal-ux .auth-container:has(input[aria-label='auth-bearer-value'])"
    browser.wait_for(f"{bearer} input", visible=True).send_keys(token)
    browser.click(f"{bearer} button.authorize")
    authorized = browser.wait_for(".modal-ux .auth-container", text="Authorized")
    assert "bearerAuth" in authorized.text
    browser.click(".modal-ux button.btn-done")

    me = try_it_out(browser, "get", "/api/v1/portal/auth/me")
    status, answer = execute(browser, me)
    assert status == "200", answer
    assert json.loads(answer)["email"] == "dev@example.com"
    assert browser.received("GET", "/api/v1/portal/auth/me").origin is None  # same-origin GET

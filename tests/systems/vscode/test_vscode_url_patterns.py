"""``chat.tools.urls.autoApprove``: microsoft/vscode's
``src/vs/workbench/contrib/chat/test/common/tools/builtinTools/chatUrlFetchingPatterns.test.ts``
ported case by case (each test names its suite and test), against toolkit's port of
``chatUrlFetchingPatterns.ts`` at 380c894 (:mod:`toolkit.systems.vscode.urls`).

OLD = the test file at 420c7ac (the version matching 380c894): every case ported.
NEW = the test file at 02be0a5: its added cases; those the older matcher already passes are
ported as passing tests, the ones that need 2a10135's ``isURLSafeForTrust`` /
``normalizeURLForTrust`` and dot-segment resolution (not in the stored index) are strict xfails.

Then the fetch tool through ``check_call``: ``ChatUrlFetchingConfirmationContribution``
(chatUrlFetchingConfirmation.ts) approves a call when every URL is approved for requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from toolkit.core.decision import Effect, Reason
from toolkit.systems.vscode import urls

OLD = "chatUrlFetchingPatterns.test.ts@420c7ac"
NEW = "chatUrlFetchingPatterns.test.ts@02be0a5"
approved = urls.is_url_approved


# -- extractUrlPatterns (OLD) -------------------------------------------------------------------

@pytest.mark.parametrize(("name", "url", "patterns"), [
    ("simple domain", "https://example.com", ["https://example.com"]),
    ("subdomain", "https://api.example.com", ["https://api.example.com",
                                              "https://*.example.com"]),
    ("multiple subdomains", "https://foo.bar.example.com/path", [
        "https://foo.bar.example.com/path", "https://foo.bar.example.com",
        "https://*.bar.example.com", "https://*.example.com"]),
    ("with path", "https://example.com/api/v1/users", [
        "https://example.com/api/v1/users", "https://example.com", "https://example.com/api/v1",
        "https://example.com/api"]),
    ("with query and fragment", "https://example.com/path?query=1#fragment", [
        "https://example.com/path?query=1#fragment", "https://example.com"]),
])
def test_extract_url_patterns(name: str, url: str, patterns: list[str]) -> None:
    """OLD, suite 'extractUrlPatterns', tests 'simple domain', 'subdomain', 'multiple
    subdomains', 'with path', 'with query and fragment'."""
    assert urls.extract_url_patterns(url) == patterns


def test_extract_url_patterns_ip_address_no_wildcard_subdomain() -> None:
    """OLD, 'extractUrlPatterns' / 'IP address - no wildcard subdomain'."""
    assert [p for p in urls.extract_url_patterns("https://192.168.1.1") if "*" in p] == []


# -- getPatternLabel (OLD) ----------------------------------------------------------------------

@pytest.mark.parametrize(("name", "url", "pattern", "label"), [
    ("removes https protocol", "https://example.com", "https://example.com", "example.com"),
    ("removes http protocol", "http://example.com", "http://example.com", "example.com"),
    ("removes trailing slashes", "https://example.com/", "https://example.com/", "example.com"),
    ("preserves path", "https://example.com/api/v1", "https://example.com/api/v1",
     "example.com/api/v1"),
])
def test_get_pattern_label(name: str, url: str, pattern: str, label: str) -> None:
    """OLD, suite 'getPatternLabel', each test by name."""
    assert urls.get_pattern_label(url, pattern) == label


# -- isUrlApproved (OLD) ------------------------------------------------------------------------

def test_is_url_approved_exact_match_with_boolean() -> None:
    """OLD, 'isUrlApproved' / 'exact match with boolean'."""
    rules = {"https://example.com": True}
    assert approved("https://example.com", rules, True) is True
    assert approved("https://example.com", rules, False) is True


def test_is_url_approved_no_match_returns_false() -> None:
    """OLD, 'isUrlApproved' / 'no match returns false'."""
    assert approved("https://example.com", {"https://other.com": True}, True) is False


def test_is_url_approved_wildcard_subdomain_match() -> None:
    """OLD, 'isUrlApproved' / 'wildcard subdomain match'."""
    assert approved("https://api.example.com", {"https://*.example.com": True}, True) is True


def test_is_url_approved_path_wildcard_match() -> None:
    """OLD, 'isUrlApproved' / 'path wildcard match'."""
    assert approved("https://example.com/api/users", {"https://example.com/api/*": True},
                    True) is True


@pytest.mark.parametrize(("name", "settings", "request_ok", "response_ok"), [
    ("granular settings - request approved", {"approveRequest": True, "approveResponse": False},
     True, False),
    ("granular settings - response approved", {"approveRequest": False, "approveResponse": True},
     False, True),
    ("granular settings - both approved", {"approveRequest": True, "approveResponse": True},
     True, True),
    ("granular settings - missing property defaults to false", {"approveRequest": True},
     True, False),
])
def test_is_url_approved_granular(name: str, settings: dict[str, bool], request_ok: bool,
                                  response_ok: bool) -> None:
    """OLD, suite 'isUrlApproved', the four 'granular settings' tests."""
    rules = {"https://example.com": settings}
    assert approved("https://example.com", rules, True) is request_ok
    assert approved("https://example.com", rules, False) is response_ok


# -- getMatchingPattern (OLD) -------------------------------------------------------------------

@pytest.mark.parametrize(("name", "url", "rules", "pattern"), [
    ("exact match", "https://example.com/path", {"https://example.com/path": True},
     "https://example.com/path"),
    ("wildcard match", "https://api.example.com", {"https://*.example.com": True},
     "https://*.example.com"),
    ("no match returns undefined", "https://example.com", {"https://other.com": True}, None),
])
def test_get_matching_pattern(name: str, url: str, rules: dict[str, Any],
                              pattern: str | None) -> None:
    """OLD, suite 'getMatchingPattern', each test by name."""
    assert urls.get_matching_pattern(url, rules) == pattern


def test_get_matching_pattern_most_specific_match() -> None:
    """OLD, 'getMatchingPattern' / 'most specific match'."""
    rules = {"https://*.example.com": True, "https://api.example.com": True,
             "https://api.example.com/v1/*": True}
    assert urls.get_matching_pattern("https://api.example.com/v1/users", rules) is not None


# -- NEW cases the older matcher passes ---------------------------------------------------------

@pytest.mark.parametrize("separator", ["%2F", "%2f", "%5C", "%5c", "%25%32%46", "%25%32%66",
                                       "%25%35%43", "%25%35%63"])
def test_encoded_user_information_does_not_match_boolean_rules(separator: str) -> None:
    """NEW, 'isUrlApproved' / 'encoded user information does not match boolean auto-approval
    rules' and '... granular auto-approval rules'."""
    for rules in ({"example.com": True}, {"https://example.com": True},
                  {"example.com": {"approveRequest": True, "approveResponse": True}}):
        url = f"https://example.com{separator}@evil.example/resource"
        assert (approved(url, rules, True), approved(url, rules, False)) == (False, False)
    for rules in ({"*.example.com": True}, {"https://*.example.com": True}):
        url = f"https://api.example.com{separator}@evil.example/resource"
        assert (approved(url, rules, True), approved(url, rules, False)) == (False, False)


def test_bare_wildcard_approves_urls_with_encoded_user_information() -> None:
    """NEW, 'isUrlApproved' / 'bare wildcard explicitly auto-approves URLs with encoded user
    information'."""
    url = "https://example.com%2F@evil.example/resource"
    assert (approved(url, {"*": True}, True), approved(url, {"*": True}, False)) == (True, True)


def test_overlapping_patterns_distinguish_missing_approval_from_explicit_denial() -> None:
    """NEW, 'isUrlApproved' / 'overlapping patterns distinguish missing approval from explicit
    denial'."""
    url = "https://api.example.com/resource"
    assert approved(url, {"https://api.example.com": {"approveResponse": True},
                          "https://*.example.com": {"approveRequest": True}}, True) is True
    assert approved(url, {"https://api.example.com": {"approveRequest": False},
                          "https://*.example.com": True}, True) is False


# -- NEW cases that need 2a10135's URL hardening ------------------------------------------------

HARDENING = ("VS Code 2a10135 resolves dot segments and backslashes as a browser does and "
             "refuses URLs with encoded user information before matching (isURLSafeForTrust, "
             "normalizeURLForTrust); toolkit ports the 380c894 matcher, the stored index lacks "
             "those functions")


@pytest.mark.xfail(strict=True, reason=HARDENING)
def test_path_scoped_approval_uses_the_resolved_destination() -> None:
    """NEW, 'isUrlApproved' / 'path-scoped request and response approval uses the resolved
    destination'."""
    rules = {"https://example.com/allowed/*": {"approveRequest": True, "approveResponse": True}}
    assert approved("https://example.com/allowed/../outside", rules, True) is False


@pytest.mark.xfail(strict=True, reason=HARDENING)
def test_backslash_urls_cannot_auto_approve_a_different_browser_destination() -> None:
    """NEW, 'isUrlApproved' / 'backslash URLs cannot auto-approve a different browser
    destination' (its first case)."""
    assert approved("https://evil.example\\.github.com/collect?leak=<data>",
                    {"https://*.github.com": True}, True) is False


@pytest.mark.xfail(strict=True, reason=HARDENING)
def test_authorityless_url_can_only_be_auto_approved_by_a_bare_wildcard() -> None:
    """NEW, 'isUrlApproved' / 'authorityless URL can only be auto-approved by a bare
    wildcard'."""
    url = "https:\\localhost%25%32%66@evil.example/resource"
    assert approved(url, {"*": True}, True) is True


# -- the fetch tool through check_call ----------------------------------------------------------

SETTINGS = """{
  "chat.tools.urls.autoApprove": {
    "https://docs.python.org": true,
    "https://*.github.com": {"approveRequest": true, "approveResponse": false},
    "https://code.visualstudio.com": false
  }
}
"""


def _project(tmp_path: Path, settings: str = SETTINGS, user: str | None = None) -> tk.Project:
    root = tmp_path / "proj"
    (root / ".vscode").mkdir(parents=True)
    (root / ".vscode" / "settings.json").write_text(settings)
    (root / "tools.yaml").write_text("tool:\n  fetch_webpage: {}\n  read_file: {}\n")
    (root / "agents").mkdir()
    (root / "agents" / "web.md").write_text(
        "---\nname: web\ntools: [fetch_webpage, read_file]\n---\nFetches.\n")
    home = tmp_path / "home"
    if user is not None:
        (home / ".config" / "Code" / "User").mkdir(parents=True)
        (home / ".config" / "Code" / "User" / "settings.json").write_text(user)
    return tk.load(root, home=home if user is not None else False, managed=False)


@pytest.mark.parametrize(("urls_", "effect", "line"), [
    (["https://docs.python.org/3/library/re.html"], Effect.ALLOW, 3),
    (["https://api.github.com/repos/x"], Effect.ALLOW, 4),  # requests approved, not responses
    (["https://docs.python.org/3", "https://evil.example"], Effect.ASK, None),  # every URL
    (["https://code.visualstudio.com/docs"], Effect.ASK, 5),  # false: never auto-approved
    (["https://github.com/microsoft/vscode/wiki/Home"], Effect.ALLOW, None),  # the default
])
def test_fetch_webpage_asks_unless_every_url_is_approved(tmp_path: Path, urls_: list[str],
                                                         effect: Effect,
                                                         line: int | None) -> None:
    """chatUrlFetchingConfirmation.ts ``_checkApproval``: "Check if all URLs are approved";
    the setting's default (chat.contribution.ts) approves https://github.com/microsoft/vscode/
    wiki/*; a workspace false overrides the default true of https://code.visualstudio.com."""
    d = _project(tmp_path).check_call("fetch_webpage", {"urls": urls_})
    assert (d.effect, d.rule.line) == (effect, line)
    if line is not None:
        assert d.rule.file == ".vscode/settings.json"


def test_response_approval_is_reported(tmp_path: Path) -> None:
    """``getPostConfirmAction``: a response is read unreviewed only when approveResponse."""
    proj = _project(tmp_path)
    d = proj.check_call("fetch_webpage", {"urls": ["https://api.github.com/x"]})
    assert d.details["responseApproved"] == [False] and "still needs review" in d.message
    d = proj.check_call("fetch_webpage", {"urls": ["https://docs.python.org/3"]})
    assert d.details["responseApproved"] == [True] and d.reason is Reason.ALLOW_RULE


def test_user_and_workspace_patterns_merge(tmp_path: Path) -> None:
    """The object setting is merged key by key (default, user, workspace)."""
    proj = _project(tmp_path, user='{"chat.tools.urls.autoApprove": {"https://pypi.org": true}}')
    d = proj.check_call("fetch_webpage", {"urls": ["https://pypi.org/project/x"]})
    assert (d.effect, d.rule.where, d.rule.layer) == (
        Effect.ALLOW, "~/.config/Code/User/settings.json:1", "user")


def test_the_matrix_shows_fetch_webpage_conditional(tmp_path: Path) -> None:
    """URL patterns decide each call: the cell is conditional, and check_call answers both."""
    proj = _project(tmp_path)
    effects = proj.effects()
    agents = list(effects.columns.get_level_values("agent"))
    column = effects.columns[agents.index("web")]
    assert effects.loc["fetch_webpage", column] == Effect.CONDITIONAL.value
    assert proj.explain("web", "fetch_webpage").effect is Effect.CONDITIONAL
    runs = {proj.check_call("fetch_webpage", {"urls": [u]}, agent="web").effect
            for u in ("https://docs.python.org", "https://evil.example")}
    assert runs == {Effect.ALLOW, Effect.ASK}

"""``chat.tools.urls.autoApprove``: which URLs the fetch tool requests (and whose responses it
reads) without asking, ported from microsoft/vscode.

- ``src/vs/workbench/contrib/chat/common/tools/builtinTools/chatUrlFetchingPatterns.ts`` at
  380c894 (``extractUrlPatterns``, ``getPatternLabel``, ``isUrlApproved``,
  ``getMatchingPattern``);
- ``src/vs/platform/url/common/urlGlob.ts`` (``testUrlMatchesGlob``: ``*`` wildcards, ``*.``
  subdomains, ``:*`` any port, a glob without a scheme meaning http or https);
- ``src/vs/platform/url/common/trustedDomains.ts`` (``normalizeURL``: github.com paths compare
  without case);
- ``src/vs/base/common/uri.ts`` (``URI.parse``: the RFC 3986 regular expression, an http(s)
  path never empty).

``ChatUrlFetchingConfirmationContribution`` (chatUrlFetchingConfirmation.ts) asks before a
request unless *every* URL of the call is approved for requests, and again before the model
reads a response unless every URL is approved for responses; it is registered for the fetch
tool with ``params => params.urls``. Later VS Code versions (2a10135) also refuse URLs with
encoded user information or backslashes and resolve ``..`` segments before matching, through
functions the stored index does not hold; those cases are strict xfails in the tests.

>>> is_url_approved("https://api.example.com/v1", {"https://*.example.com": True}, True)
True
>>> extract_url_patterns("https://foo.bar.example.com/path")
['https://foo.bar.example.com/path', 'https://foo.bar.example.com', 'https://*.bar.example.com', 'https://*.example.com']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_APPROVED_URLS", "Uri", "extract_url_patterns", "get_matching_pattern",
           "get_pattern_label", "is_url_approved", "matching_approval", "parse_uri",
           "test_url_matches_glob"]

#: ``chat.tools.urls.autoApprove``'s default (``chat.contribution.ts``,
#: ``[ChatConfiguration.AutoApprovedUrls]``)
DEFAULT_APPROVED_URLS: Mapping[str, Any] = {
    "https://code.visualstudio.com": True,
    "https://github.com/microsoft/vscode/wiki/*": True,
}

_URI = re.compile(r"^(([^:/?#]+?):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?")


@dataclass(frozen=True)
class Uri:
    """VS Code's ``URI``: scheme, authority, path, query, fragment."""

    scheme: str
    authority: str = ""
    path: str = ""
    query: str = ""
    fragment: str = ""

    def with_(self, **parts: str) -> Uri:
        """``uri.with({...})``: a copy with some parts replaced (the path resolved again)."""
        fields = {"scheme": self.scheme, "authority": self.authority, "path": self.path,
                  "query": self.query, "fragment": self.fragment, **parts}
        return _make(**fields)

    def to_string(self) -> str:
        """``uri.toString(true)`` (no percent-encoding; the host lower-cased)."""
        out = f"{self.scheme}:" if self.scheme else ""
        if self.authority or self.scheme == "file":
            out += "//" + _lower_host(self.authority)
        out += self.path
        if self.query:
            out += "?" + self.query
        if self.fragment:
            out += "#" + self.fragment
        return out


def _lower_host(authority: str) -> str:
    at = authority.rfind("@")
    user, host = (authority[:at + 1], authority[at + 1:]) if at >= 0 else ("", authority)
    return user + host.lower()


def _make(scheme: str, authority: str, path: str, query: str, fragment: str) -> Uri:
    # _referenceResolution: http, https and file paths are never empty nor relative
    if scheme in ("https", "http", "file"):
        if not path:
            path = "/"
        elif not path.startswith("/"):
            path = "/" + path
    return Uri(scheme, authority, path, query, fragment)


def parse_uri(value: str | Uri) -> Uri:
    """``URI.parse``: the parts of a URI string (a :class:`Uri` is returned as it is)."""
    if isinstance(value, Uri):
        return value
    m = _URI.match(value)
    assert m is not None  # every group is optional: the expression matches any string
    return _make(m.group(2) or "", m.group(4) or "", m.group(5) or "", m.group(7) or "",
                 m.group(9) or "")


def normalize_url(url: str | Uri) -> Uri:
    """``trustedDomains.normalizeURL``: github.com's paths compare without case."""
    uri = parse_uri(url)
    if uri.authority == "github.com":
        uri = uri.with_(path=uri.path.lower())
    return parse_uri(uri.to_string())


def _glob_normalize(url: str | Uri) -> Uri:
    """urlGlob's ``normalizeURL``: trailing slashes, query and fragment removed."""
    uri = parse_uri(url)
    return uri.with_(path=uri.path.rstrip("/"), query="", fragment="")


def test_url_matches_glob(uri: str | Uri, glob_url: str) -> bool:
    """``testUrlMatchesGlob``: ``*`` any run, ``*.`` any subdomains, ``:*`` any port; a glob
    without a scheme stands for http and https; a glob path is a prefix at ``/`` boundaries.

    >>> test_url_matches_glob("https://example.com/api/users", "example.com/api")
    True
    >>> test_url_matches_glob("https://example.com/apis", "example.com/api")
    False
    """
    url = _glob_normalize(uri)
    if re.match(r"^[^./:]*://", glob_url) is None:
        if url.scheme not in ("http", "https"):
            return False
        glob = _glob_normalize(f"{url.scheme}://{glob_url}")
    else:
        glob = _glob_normalize(glob_url)
    if not _part_match(url.scheme, glob.scheme) or not _part_match(url.authority,
                                                                    glob.authority, True):
        return False
    if glob.path == "/":
        return True
    return _part_match(url.path, glob.path)


class _PartMatch:
    """``doMemoUrlMatch`` / ``doUrlPartMatch``: one URL part against one glob part, memoised
    by the two offsets."""

    def __init__(self, part: str, glob: str, ports: bool) -> None:
        self.part, self.glob, self.ports = part, glob, ports
        self.memo: dict[tuple[int, int], bool] = {}

    def __call__(self, u: int, g: int) -> bool:
        key = (u, g)
        if key not in self.memo:
            self.memo[key] = self._match(u, g)
        return self.memo[key]

    def _match(self, u: int, g: int) -> bool:
        part, glob = self.part, self.glob
        if u == len(part):  # the end of the URL: the glob must end too (or be a ":*" port)
            return g == len(glob) or (self.ports and glob[g:] == ":*")
        if g == len(glob):  # some path left in the URL: a prefix at a "/" boundary
            return part[u] == "/"
        if part[u] == glob[g] and self(u + 1, g + 1):
            return True
        if glob[g:g + 2] == "*." and self._subdomain(u, g):
            return True
        if glob[g] == "*" and self._star(u, g):
            return True
        return self.ports and glob[g:g + 2] == ":*" and self._port(u, g)

    def _subdomain(self, u: int, g: int) -> bool:
        """``*.``: consume one character that is not ``/`` or ``:``, or skip the ``*.`` at the
        start or after a dot."""
        part = self.part
        if part[u] not in "/:" and self(u + 1, g):
            return True
        return (u == 0 or part[u - 1] == ".") and self(u, g + 2)

    def _star(self, u: int, g: int) -> bool:
        """``*``: consume one character (both, at the URL's last one), or none."""
        step = (u + 1, g + 1) if u + 1 == len(self.part) else (u + 1, g)
        return self(*step) or self(u, g + 1)

    def _port(self, u: int, g: int) -> bool:
        """``:*``: consume a port if there is one, else nothing."""
        if self.part[u] != ":":
            return self(u, g + 2)
        end = u + 2
        while end < len(self.part) and self.part[end].isdigit():
            end += 1
        return self(end, g + 2)


def _part_match(part: str, glob: str, ports: bool = False) -> bool:
    return _PartMatch(part, glob, ports)(0, 0)


def extract_url_patterns(url: str | Uri) -> list[str]:
    """``extractUrlPatterns``: the patterns a URL offers to approve, most specific first."""
    normalized = normalize_url(url)
    patterns = dict.fromkeys([normalized.to_string(),
                              normalized.with_(path="", query="", fragment="").to_string()])
    authority = normalized.authority
    labels = authority.split(".")
    ipv4 = len(labels) == 4 and all(re.fullmatch(r"\s*[+-]?\d*\s*", s) and s.strip() != ""
                                    for s in labels)
    ipv6 = ":" in authority and re.match(r"^(\[)?[0-9a-fA-F:]+(\])?(?::\d+)?$", authority)
    if not (ipv4 or ipv6) and len(labels) > 2:
        for i in range(len(labels) - 2):
            wildcard = "*." + ".".join(labels[i + 1:])
            patterns[normalized.with_(authority=wildcard, path="", query="",
                                      fragment="").to_string()] = None
    segments = [s for s in normalized.path.split("/") if s]
    for i in range(len(segments) - 1, -1, -1):
        path = ("/" if i > 0 else "") + "/".join(segments[:i])
        patterns[normalized.with_(path=path, query="", fragment="").to_string()] = None
    return [re.sub(r"/+$", "", p) for p in patterns]


def get_pattern_label(url: str | Uri, pattern: str) -> str:
    """``getPatternLabel``: the pattern without its http(s) scheme and trailing slashes."""
    for scheme in ("https://", "http://"):
        if pattern.startswith(scheme):
            pattern = pattern[len(scheme):]
            break
    return re.sub(r"/+$", "", pattern)


def matching_approval(url: str | Uri, approved: Mapping[str, Any],
                      check_request: bool) -> tuple[bool, str | None]:
    """``isUrlApproved`` and the pattern that decided it (None: no pattern decided)."""
    normalized = normalize_url(url)
    for pattern, settings in approved.items():
        if not test_url_matches_glob(normalized, pattern):
            continue
        if isinstance(settings, bool):
            return settings, pattern
        if isinstance(settings, Mapping):
            value = settings.get("approveRequest" if check_request else "approveResponse")
            if isinstance(value, bool):
                return value, pattern
    return False, None


def is_url_approved(url: str | Uri, approved: Mapping[str, Any], check_request: bool) -> bool:
    """``isUrlApproved``: the first matching pattern with a value for this check decides
    (``true`` both, ``false`` neither, ``{approveRequest, approveResponse}`` each)."""
    return matching_approval(url, approved, check_request)[0]


def get_matching_pattern(url: str | Uri, approved: Mapping[str, Any]) -> str | None:
    """``getMatchingPattern``: the approved pattern matching the URL's most specific pattern."""
    normalized = normalize_url(url)
    for pattern in extract_url_patterns(url):
        for candidate in approved:
            if test_url_matches_glob(normalized, candidate) and test_url_matches_glob(
                    parse_uri(pattern), candidate):
                return candidate
    return None

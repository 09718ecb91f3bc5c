"""URLs as Chromium reads them (the WHATWG URL standard, through ``ada_url``), for ``goto`` and observations.

A URL check that parses differently from the browser is a hole: ``http://example.com\\@app.localhost/``
looks like the app host to ``urllib`` but Chromium goes to example.com (a backslash ends the host of
an http(s) URL). So every check parses with the standard's rules (tabs and newlines removed,
backslashes, userinfo, percent-encoded and Unicode hosts, IPv4 forms...), and a URL that passes is
navigated to in its re-serialised form, never as the raw text the agent sent.

*Public* URLs are what the agent sees and sends back: app-host URLs without the host's random port
(``http://crm.localhost/opportunities/3``), so observations and trajectories are the same in every
process. :class:`AppUrls` maps between the two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ada_url import URL

from .errors import ActionError

_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_NEUTRAL_BASE = "http://base.invalid/"
WEB_SCHEMES = ("http:", "https:")


def preprocess(url: str) -> str:
    """What the URL parser reads: leading/trailing C0 controls and spaces trimmed, tabs and newlines removed."""
    return _TAB_OR_NEWLINE.sub("", url.strip(_C0_OR_SPACE))


def parse(url: str, base: str | None = None) -> URL | None:
    """The WHATWG parse of ``url`` (against ``base``), or None where the standard says failure."""
    try:
        return URL(url, base) if base else URL(url)
    except ValueError:
        return None


def web_url_error(url: str) -> str | None:
    """Why ``url`` is not an http(s) address or a relative one, or None. Needs no base: relative URLs pass."""
    parsed = parse(url, _NEUTRAL_BASE)
    if parsed is None:
        return f"url {url!r} is not a valid URL"
    if parsed.protocol not in WEB_SCHEMES:
        return f"url {url!r} is not allowed; use an http:// address or a path such as /accounts"
    return None


@dataclass(frozen=True)
class AppUrls:
    """The app host's addresses: ``localhost`` and ``<name>.localhost`` on ``port`` over http."""

    port: int

    def is_app_host(self, parsed: URL) -> bool:
        host = parsed.hostname
        return host == "localhost" or (host.endswith(".localhost") and "" not in host.split("."))

    def public(self, url: str) -> str:
        """The URL as the agent sees it: the host's port dropped (also inside an encoded ``next=``)."""
        if not url or "localhost" not in url:
            return url
        return re.sub(rf"(localhost)(?::|%3[Aa]){self.port}(?!\d)", r"\1", url)

    def resolve(self, url: str, base: str = "") -> str:
        """The address to navigate to for a ``goto``: an app-host URL with the real port.

        ``url`` may be relative (to ``base``), public (no port) or carry the host's port; anything
        that is not the app host raises :class:`ActionError` (nothing is navigated).
        """
        text = preprocess(url)
        base_parsed = parse(base) if base else None
        parsed = parse(text, base_parsed.href if base_parsed is not None and base_parsed.protocol in WEB_SCHEMES else None)
        if parsed is None:
            raise ActionError(f"goto {url!r}: not a valid URL; send an address such as http://<app>.localhost/ or a path such as /")
        if parsed.protocol not in WEB_SCHEMES:
            raise ActionError(f"goto {url!r}: only http:// addresses of this sandbox's apps can be opened")
        if parsed.username or parsed.password:
            raise ActionError(f"goto {url!r}: a user name or password in the address is not allowed")
        port = parsed.port  # '' when it is the scheme's default (80 for http: the public form)
        if not self.is_app_host(parsed) or port not in ("", str(self.port)):
            here = f"http://{base_parsed.hostname}/" if base_parsed is not None and self.is_app_host(base_parsed) else ""
            raise ActionError(
                f"goto {url!r}: only the apps of this sandbox can be opened (http://<app>.localhost/..."
                f"{', e.g. ' + here if here else ''}); this address is on {parsed.host or 'no host'}, "
                "and other sites are blocked"
            )
        # Rebuilt from the parsed parts: the browser gets a canonical URL that reads the same to it.
        return f"http://{parsed.hostname}:{self.port}{parsed.pathname}{parsed.search}{parsed.hash}"


__all__ = ["AppUrls", "WEB_SCHEMES", "parse", "preprocess", "web_url_error"]

"""App-host URLs read with the browser's rules: what goto may open, and the port-free form agents see."""

from __future__ import annotations

import pytest

from sandbox.actions import ActionError, AppUrls

PORT = 54321
URLS = AppUrls(PORT)
BASE = f"http://crm.localhost:{PORT}/accounts/7"


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("http://crm.localhost/opportunities/3", f"http://crm.localhost:{PORT}/opportunities/3"),
        (f"http://crm.localhost:{PORT}/opportunities/3", f"http://crm.localhost:{PORT}/opportunities/3"),
        ("http://crm.localhost:80/x?a=1#h", f"http://crm.localhost:{PORT}/x?a=1#h"),
        ("HTTP://CRM.LOCALHOST/x", f"http://crm.localhost:{PORT}/x"),
        ("https://crm.localhost/x", f"http://crm.localhost:{PORT}/x"),  # the host serves http
        ("http://crm%2Elocalhost/x", f"http://crm.localhost:{PORT}/x"),
        ("http://ｃrm.localhost/x", f"http://crm.localhost:{PORT}/x"),
        ("http://localhost/", f"http://localhost:{PORT}/"),
        ("/search?q=a b", f"http://crm.localhost:{PORT}/search?q=a%20b"),
        ("../leads", f"http://crm.localhost:{PORT}/leads"),
        ("8", f"http://crm.localhost:{PORT}/accounts/8"),
        ("?page=2", f"http://crm.localhost:{PORT}/accounts/7?page=2"),
        (" http://crm.localhost/a\tb\n ", f"http://crm.localhost:{PORT}/ab"),
        ("http:opportunities", f"http://crm.localhost:{PORT}/accounts/opportunities"),  # same scheme: relative
    ],
)
def test_app_urls_resolve_to_the_real_address(url, target):
    assert URLS.resolve(url, BASE) == target


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        (f"http://example.com\\@crm.localhost:{PORT}/", "on example.com"),  # a backslash ends an http host
        (f"http://crm.localhost:{PORT}@example.com/", "user name or password"),
        ("http://user:pw@crm.localhost/", "user name or password"),
        ("http://exa\tmple.com/", "on example.com"),
        ("//example.com/", "on example.com"),
        ("\\\\example.com/", "on example.com"),
        ("/\\example.com/", "on example.com"),
        ("http://example%2Ecom/", "on example.com"),
        (f"http://0x7f.1:{PORT}/", "on 127.0.0.1"),
        (f"http://2130706433:{PORT}/", "on 127.0.0.1"),
        (f"http://[::1]:{PORT}/", "on [::1]"),
        ("http://localhost./", "on localhost."),
        ("http://crm..localhost/", "only the apps"),
        (f"http://crm.localhost:{PORT + 1}/", "only the apps"),
        ("http://crm.localhost:8080/", "only the apps"),
        ("javascript:alert(1)", "only http://"),
        ("ftp://crm.localhost/", "only http://"),
        ("http://[::1", "not a valid URL"),
    ],
)
def test_everything_else_is_refused_saying_why(url, needle):
    with pytest.raises(ActionError) as err:
        URLS.resolve(url, BASE)
    assert needle in str(err.value)
    assert str(err.value).startswith(f"goto {url!r}: ")
    if "only the apps" in str(err.value):
        assert "e.g. http://crm.localhost/" in str(err.value)  # where the agent can go instead


def test_relative_urls_need_a_web_page_to_start_from():
    with pytest.raises(ActionError, match="not a valid URL"):
        URLS.resolve("/accounts", "about:blank")
    assert URLS.resolve("http://crm.localhost/", "about:blank") == f"http://crm.localhost:{PORT}/"


@pytest.mark.parametrize(
    ("url", "public"),
    [
        (f"http://crm.localhost:{PORT}/opportunities/3", "http://crm.localhost/opportunities/3"),
        (f"http://localhost:{PORT}/signin?next=http%3A%2F%2Fcrm.localhost%3A{PORT}%2Fx", "http://localhost/signin?next=http%3A%2F%2Fcrm.localhost%2Fx"),
        (f"http://crm.localhost:{PORT // 10}/", f"http://crm.localhost:{PORT // 10}/"),  # another port is left alone
        ("about:blank", "about:blank"),
        ("", ""),
    ],
)
def test_public_urls_drop_the_hosts_port(url, public):
    assert URLS.public(url) == public
    if public.startswith("http://") and "?" not in public and "localhost:" not in public:
        assert URLS.resolve(public) == URLS.resolve(url)

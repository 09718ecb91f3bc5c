"""Property-based fuzzing of every app's JSON API (schemathesis, from the apps' OpenAPI documents):
no input makes a server error, nothing reaches another world, and nothing answers without a session."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from apps_web import registry
from apps_web.identity.session import SESSION_COOKIE, session_cookie
from apps_web.worlds import WORLD_HEADER

EXAMPLES = 12  # per operation (derandomized, so every run tries the same inputs); raise it for a long sweep
API = "^/api/(?!docs|openapi)"


def _operations(host, app: str) -> list:  # noqa: ANN001
    schema = schemathesis.openapi.from_dict(host.apps[app].openapi()).include(path_regex=API)
    schema.app = host
    return [r.ok() for r in schema.get_all_operations()]


@pytest.fixture(scope="module")
def worlds(store):  # noqa: ANN001, ANN201
    fuzzed, bystander = store.create(0), store.create(0)
    yield fuzzed, bystander
    store.drop(fuzzed)
    store.drop(bystander)


APPS = [s.name for s in registry.discover()]


@pytest.mark.parametrize("app", APPS)
def test_no_input_makes_a_server_error_or_reaches_another_world(host, worlds, app: str) -> None:  # noqa: ANN001
    fuzzed, bystander = worlds
    start = bystander.changelog_seq()
    role = {"crm": "sales_rep"}.get(app)
    user = fuzzed.one("select username from identity_user where active and (? is null or role = ?) order by id", role, role)[0]
    headers = {"host": f"{app}.localhost", WORLD_HEADER: fuzzed.id, "cookie": f"{SESSION_COOKIE}={session_cookie(host.state.secret, user, fuzzed.id)}"}
    operations = _operations(host, app)
    assert operations, f"{app} declares no API operations"
    failures: list[str] = []
    for op in operations:
        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def call(case) -> None:  # noqa: ANN001
            response = case.call(headers=headers)
            if response.status_code >= 500:
                failures.append(f"{op.method.upper()} {case.formatted_path} {case.query or ''} {case.body!r:.200} -> {response.status_code}: {response.text[:200]}")

        call()
    assert not failures, "\n".join(failures[:10])
    diff, _ = bystander.changes_since(start)
    assert diff.is_empty, diff.summary()


@pytest.mark.parametrize("app", APPS)
def test_every_operation_needs_a_session(host, worlds, app: str) -> None:  # noqa: ANN001
    fuzzed, _ = worlds
    answered: list[str] = []
    for op in _operations(host, app):
        @settings(max_examples=2, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def call(case) -> None:  # noqa: ANN001
            response = case.call(headers={"host": f"{app}.localhost", WORLD_HEADER: fuzzed.id})
            if response.status_code != 401:
                answered.append(f"{op.method.upper()} {case.formatted_path} answered {response.status_code} without a session")

        call()
    assert not answered, "\n".join(answered)

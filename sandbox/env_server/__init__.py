"""An OpenEnv-compatible environment server (``sandbox env-server``), built on ``openenv-core``.

Needs the ``openenv`` extra (``openenv-core`` is installed without its own requirements, which pull
a web UI and model clients the server does not use; see scripts/setup.sh). Modules: ``models``
(action, observation, state, reset options), ``environment`` (one session's episode on the async
core), ``app`` (the FastAPI app), ``client`` (a typed ``EnvClient``).
"""

MISSING = (
    "the OpenEnv server needs openenv-core: pip install --no-deps 'openenv-core>=0.3,<0.4' and "
    "pip install 'cua-sandbox[openenv]' (or run `make setup`)"
)

# CUA Sandbox: Debian with Chromium from apt (no browser download), the package, a non-root user.
# Note: this image has not been built in the project's CI (no Docker engine there); it follows
# the same steps as scripts/setup.sh.
FROM python:3.11-slim-bookworm

RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-dejavu-core make \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 sandbox
WORKDIR /opt/cua-sandbox
COPY --chown=sandbox:sandbox . .
RUN pip install --no-cache-dir .

USER sandbox
ENV SANDBOX_CHROMIUM=/usr/bin/chromium \
    SANDBOX_HOME=/home/sandbox/.cache/cua-sandbox
EXPOSE 8765
# *.localhost resolves to loopback inside the container; publish with -p 8765:8765 and browse
# http://localhost:8765 (apps at http://crm.localhost:8765).
CMD ["sandbox", "serve", "--host", "0.0.0.0", "--port", "8765"]

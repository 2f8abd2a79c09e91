# TriPeaks: the web game on the embedded SQLite store, kept in the /data volume.
#
#   docker build -t tripeaks .                      # podman: podman build --format docker -t tripeaks .
#   docker run -p 127.0.0.1:8000:8000 -v tripeaks-data:/data tripeaks
#
# BASE is any Debian-like image with python3 (3.11+) and its venv module: the official slim
# image by default (pin it by digest for reproducible builds: --build-arg BASE=...@sha256:...),
# or a stand-in made with debootstrap where no image registry is reachable (docs/deploy.md).
# Behind a TLS-intercepting proxy, pass its CA bundle as a build secret (never baked in):
#   --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt
ARG BASE=docker.io/library/python:3.11-slim
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PATH=/opt/tripeaks/bin:${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}

RUN useradd --create-home --uid 10001 --user-group tripeaks \
    && mkdir -p /data \
    && chown tripeaks:tripeaks /data \
    && python3 -m venv /opt/tripeaks

# How it runs, said before the code is copied: these steps stay cached across code changes, and
# only the two code steps (and WORKDIR, USER) are made again.
# TRIPEAKS_PORT: the port served inside the container (and checked by the HEALTHCHECK).
# TRIPEAKS_WORKERS: server processes (each its own store connection; see docs/deploy.md).
# The secret key: TRIPEAKS_SECRET_KEY, or TRIPEAKS_SECRET_KEY_FILE (a mounted secret, such as
# /run/secrets/tripeaks_secret_key); unset, a key is made once and kept in /data/secret_key.
ENV TRIPEAKS_DATA_DIR=/data \
    TRIPEAKS_DATABASE_URL=sqlite:////data/tripeaks.db \
    TRIPEAKS_PORT=8000 \
    TRIPEAKS_WORKERS=1
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=2 \
    CMD ["tripeaks-healthcheck"]
# Every open race page holds a connection (a file): the soft open-file limit is raised to the
# hard one the engine gives (docker run --ulimit nofile=65536:65536, compose's ulimits:), since
# the usual soft 1024 stops a server near a thousand streams.
CMD ["sh", "-c", "ulimit -n \"$(ulimit -Hn)\" 2>/dev/null; exec tripeaks serve --host 0.0.0.0 --port \"$TRIPEAKS_PORT\" --workers \"$TRIPEAKS_WORKERS\""]

# The dependencies first (with the redis extra, for rate limits shared by several servers), from
# pyproject.toml and constraints.txt alone: this layer is kept until one of those two files
# changes, so a code change does not reinstall them.
WORKDIR /src
COPY pyproject.toml constraints.txt ./
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && python3 -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
print("\n".join(p["project"]["dependencies"] + p["project"]["optional-dependencies"]["redis"] \
+ p["build-system"]["requires"]))' > /tmp/requirements.txt \
    && pip install -c constraints.txt -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Then the code: a plain (not editable) install of the package, with its catalogs compiled.
# The templates and static files are package data (setup.py): the wheel carries them.
COPY . ./
RUN pybabel compile --statistics -d app/i18n/locales -D messages \
    && pip install --no-deps --no-build-isolation . \
    && install -m 755 scripts/healthcheck.py /usr/local/bin/tripeaks-healthcheck \
    && cd / && rm -rf /src

WORKDIR /data
USER tripeaks

# Caddy, from Debian's own package, in front of the game's servers (compose.yaml's "proxy"
# profile; docs/deploy.md). It reads deploy/Caddyfile, copied in below, with the servers, the
# site's name and the ports from the environment.
#
#   docker build -f deploy/caddy.Dockerfile -t tripeaks-caddy .
#
# BASE is any Debian image (bookworm or later: Debian 12 packages Caddy 2.6): the official slim
# one by default, or a stand-in made with debootstrap where no image registry is reachable.
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends caddy ca-certificates \
    && rm -rf /var/lib/apt/lists/*

COPY deploy/Caddyfile /etc/caddy/Caddyfile
# Its certificates and local CA live in /data (a volume: kept across restarts and upgrades).
ENV XDG_DATA_HOME=/data XDG_CONFIG_HOME=/config
VOLUME ["/data"]
EXPOSE 80 443
# Go raises its own open-file limit to the hard one; compose sets the hard one (ulimits).
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]

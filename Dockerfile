# syntax=docker/dockerfile:1
#
# Tunefeed: the compiled one-file server (scripts/build-binary.ts) on Debian
# slim with ffmpeg, a pinned yt-dlp release and Deno for yt-dlp's JavaScript.
#
#   docker build -t tunefeed .
#   docker run -d --name tunefeed -p 127.0.0.1:3000:3000 -v tunefeed-data:/data \
#     -e PUBLIC_URL=https://music.example.org -e TRUST_PROXY=1 tunefeed
#
# First admin:  docker exec -it tunefeed tunefeed admin create-user you@example.org 'a-long-password' --admin
#               (PGlite is locked by the running server: use a stopped container's volume, or PostgreSQL;
#                see docs/deploy.md)
# How this file was checked without a Docker engine, and how to bump yt-dlp: docs/deploy.md.

# ---- build: dependencies from npm (Bun comes from the `bun` package), web app, binary ----
FROM node:22-bookworm-slim AS build
WORKDIR /src
# dependencies first: this layer is reused until the lockfile changes
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json bunfig.toml drizzle.config.ts ./
COPY drizzle ./drizzle
COPY src ./src
COPY scripts ./scripts
COPY web ./web
RUN ./node_modules/.bin/bun run build:web \
 && ./node_modules/.bin/bun scripts/build-binary.ts --outfile=/out/tunefeed \
 && /out/tunefeed version
# Deno, yt-dlp's JavaScript runtime for YouTube: the real binary of the `deno` npm package's platform
# package for this build's architecture (@deno/linux-x64-glibc, @deno/linux-arm64-glibc), pinned and
# checked by package-lock.json's integrity hash like every other dependency. No download of its own.
RUN cp "$(node -p "require('deno/install_api.cjs').runInstall()")" /out/deno \
 && /out/deno --version

# ---- runtime: the binary, ffmpeg, yt-dlp, a non-root user and a data volume ----
FROM debian:bookworm-slim AS runtime

# yt-dlp: the platform-independent zipapp ("yt-dlp" asset, needs python3 >= 3.10), which bundles
# yt-dlp-ejs for YouTube's JavaScript challenges. This pinned build is the first version of the
# app's managed copy (DATA_DIR/tools/yt-dlp, in the volume), which then keeps itself current
# (YTDLP_UPDATE; docs/deploy.md "Managed yt-dlp"). To change the seed: pick a release on
# https://github.com/yt-dlp/yt-dlp/releases, take the "yt-dlp" line of its SHA2-256SUMS asset,
# and change both values (or pass --build-arg YTDLP_VERSION=... --build-arg YTDLP_SHA256=...).
ARG YTDLP_VERSION=2026.08.19
ARG YTDLP_SHA256=1fa6733c37ea6fb51c99ad8fe785e7b7e5f3246c9b980230329d4fb72ed8d4d6

RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates ffmpeg python3 tini \
 && rm -rf /var/lib/apt/lists/*

ADD https://github.com/yt-dlp/yt-dlp/releases/download/${YTDLP_VERSION}/yt-dlp /usr/local/bin/yt-dlp
RUN echo "${YTDLP_SHA256}  /usr/local/bin/yt-dlp" | sha256sum -c - \
 && chmod 755 /usr/local/bin/yt-dlp \
 && yt-dlp --version

COPY --from=build /out/tunefeed /usr/local/bin/tunefeed
COPY --from=build /out/deno /usr/local/bin/deno
# the HTTPS front (docs/deploy.md): a Caddy container mounts these, e.g.
#   docker run --volumes-from tunefeed -e DOMAIN=... caddy:2 caddy run --config /usr/share/tunefeed/Caddyfile
COPY Caddyfile /usr/share/tunefeed/Caddyfile
COPY deploy/tunefeed.caddy /usr/share/tunefeed/deploy/tunefeed.caddy

# YouTube needs a JavaScript runtime for yt-dlp: YTDLP_JS_RUNTIME=auto (the default) finds the Deno
# above on PATH and passes it on every call (--no-js-runtimes --js-runtimes deno:/usr/local/bin/deno),
# so no yt-dlp.conf is needed. Deno runs YouTube's player code with no file or network access.
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin tunefeed \
 && mkdir -p /data \
 && chown tunefeed:tunefeed /data

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    FFMPEG_PATH=/usr/bin/ffmpeg

VOLUME /data
WORKDIR /data
USER tunefeed
EXPOSE 3000
# PGlite's first start (initdb) takes a while: the start period covers it
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["/usr/local/bin/tunefeed", "healthcheck"]
# tini forwards SIGTERM (graceful stop: jobs are requeued) and reaps ffmpeg/yt-dlp children
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/tunefeed"]

# syntax=docker/dockerfile:1
# analytics-server image. Build from the repository root:
#   docker build -f deploy/docker/analytics.Dockerfile -t analytics-server .
# The build context is filtered by analytics.Dockerfile.dockerignore (BuildKit reads the file
# next to the Dockerfile).

# --- build: the one binary (pure Rust, TLS through rustls: no system library beyond libc).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --locked --release -p analytics-server --bin analytics-server \
 && install -m 0755 target/release/analytics-server /usr/local/bin/analytics-server

# --- runtime: curl for the health check, tini as PID 1 (forwards SIGTERM, reaps orphans).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /nonexistent --shell /usr/sbin/nologin analytics
COPY --from=build /usr/local/bin/analytics-server /usr/local/bin/analytics-server
USER 10001:10001
EXPOSE 8401
# Liveness only: /readiness also checks the RPC nodes, the facilitator and Redis, which the
# orchestrator probes separately.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8401/health"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/analytics-server"]
CMD ["--config", "/etc/analytics-server/analytics.toml"]

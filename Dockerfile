# hindsight serve: the team memory server (issue 11, item 8). See README "Team server".
# Build: docker build -t hindsight-server .   Run with docker-compose.yml (PostgreSQL +
# pgvector beside it). TLS is terminated in front of it (README: TLS termination).
FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir --prefix=/install ".[server]"

FROM python:3.12-slim
COPY --from=build /install /usr/local
RUN useradd --system --uid 10001 --home-dir /var/lib/hindsight --create-home hindsight
USER hindsight
ENV HINDSIGHT_HOME=/var/lib/hindsight \
    HINDSIGHT_SERVE_HOST=0.0.0.0 \
    HINDSIGHT_SERVE_PORT=8888 \
    PYTHONUNBUFFERED=1
VOLUME ["/var/lib/hindsight"]
EXPOSE 8888
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD ["python", "-c", "import sys,urllib.request;sys.exit(urllib.request.urlopen('http://127.0.0.1:8888/healthz',timeout=2).status!=200)"]
# plain HTTP inside the compose network only: the proxy in front terminates TLS
CMD ["hindsight", "serve", "--insecure"]

# Production image: the app served by uvicorn, talking to an external PostgreSQL
# (docker-compose.yml, docs/operations.md). Dependencies come from requirements.lock: exact
# versions checked against their hashes; the project itself is installed without dependencies.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PREFCLUB_DATA_DIR=/data \
    PREFCLUB_BACKUP_DIR=/backups

WORKDIR /srv/prefclub
# DejaVu Sans: the PDF print-outs' font (Cyrillic and the suits, PREFCLUB_PDF_FONT).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY static ./static
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
    && useradd --system --home /srv/prefclub prefclub \
    && mkdir -p /data /backups && chown prefclub /data /backups
USER prefclub
VOLUME ["/backups"]
EXPOSE 8000
CMD ["sh", "-c", "prefclub migrate && prefclub serve --host 0.0.0.0 --port 8000"]

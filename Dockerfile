# Production-like image: the app served by uvicorn, talking to an external PostgreSQL.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PREFCLUB_DATA_DIR=/data

WORKDIR /srv/prefclub
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY static ./static
RUN pip install --no-cache-dir . && useradd --system --home /srv/prefclub prefclub \
    && mkdir -p /data && chown prefclub /data
USER prefclub
EXPOSE 8000
CMD ["sh", "-c", "prefclub migrate && prefclub serve --host 0.0.0.0 --port 8000"]

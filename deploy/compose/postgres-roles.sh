#!/bin/sh
# Runs once, when the PostgreSQL container initialises its data directory: the role `app` the
# migrations grant to (they create it only if missing) and `hub`, the login role the hubs and the
# worker use, which owns nothing and is only a member of `app` (README: Persistence).
set -eu
psql -v ON_ERROR_STOP=1 -v hub_password="$HUB_DB_PASSWORD" --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE app NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE hub LOGIN PASSWORD :'hub_password';
GRANT app TO hub;
SQL

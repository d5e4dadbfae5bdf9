#!/bin/sh
# Creates the Temporal and visibility databases and brings their schemas up to date; safe to run again.
set -eu
sql() { temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u temporal --pw temporal "$@"; }
for db in temporal temporal_visibility; do
  # `create` fails when the database exists (a second `docker compose up`); the schema steps below still run.
  sql --db "$db" create || echo "database $db exists"
done
sql --db temporal setup-schema -v 0.0
sql --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
sql --db temporal_visibility setup-schema -v 0.0
sql --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned

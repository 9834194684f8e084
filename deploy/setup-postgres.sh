#!/bin/sh
# Creates Temporal's databases and schemas in PostgreSQL (run once by docker-compose; idempotent).
set -eu
tool() { temporal-sql-tool --plugin postgres12 --ep postgresql -u temporal -p 5432 "$@"; }
for database in temporal temporal_visibility; do
  schema=$([ "$database" = temporal ] && echo temporal || echo visibility)
  tool --db "$database" create || true # already there on a second start
  tool --db "$database" setup-schema -v 0.0 || true
  tool --db "$database" update-schema -d "/etc/temporal/schema/postgresql/v12/$schema/versioned"
done
echo "PostgreSQL schemas are ready"

#!/usr/bin/env bash
# npm test: typecheck, lint, unit, API (PGlite, and PostgreSQL when one answers), build, end to end.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's packages the suite drives: Chromium (end to end), HAProxy (npm run cluster's load balancer) and libfaketime
# (the API suite at the turn of a year).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v faketime >/dev/null || missing+=(faketime)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's ${missing[*]} for the tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "The tests need Debian's ${missing[*]}: run 'sudo apt-get install -y ${missing[*]}'." >&2
    exit 1
  fi
fi

if [ -z "${TEST_DATABASE_URL:-}" ] && node -e "require('net').connect(5432,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null; then
  export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
  echo "PostgreSQL answers on 127.0.0.1:5432: the API suite runs on it as well as on PGlite"
fi

echo "== typecheck"; npx tsc -p tsconfig.json --noEmit
echo "== lint"; npx eslint .
echo "== format"; npx prettier --check . --log-level warn
echo "== docs in sync"; npx tsx scripts/gen-permissions-doc.ts --check
echo "== unit and API"; npx vitest run
# Once more with the clock of every process at 23:57 on the last day of this year in UTC, running on from there
# (libfaketime; FAKETIME_DONT_RESET keeps one clock for the workers too), so the turn of the day, the month and the
# year falls in the middle of the run: a test that depends on the hour or the date fails on every run, not one in
# thirty. PGlite only: PostgreSQL's clock is its server's own.
echo "== unit and API at the turn of a year"
FAKETIME_DONT_RESET=1 faketime -f "@$(date -u +%Y)-12-31 23:57:00" env -u TEST_DATABASE_URL npx vitest run
echo "== build"; npx vite build --logLevel warn
# The bundle budget (every route: sign-in 250 KB, dashboard 600 KB gzip), read from the build just made.
echo "== bundle budget"; BUDGET_DIST=dist npx vitest run --config tests/budget/vitest.config.ts
echo "== end to end"; npx playwright test

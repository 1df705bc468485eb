#!/usr/bin/env bash
# npm test: typecheck, lint, unit, API (PGlite, and PostgreSQL when one answers), build, end to end.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's Chromium for the end-to-end tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "The end-to-end tests need Debian's Chromium at /usr/bin/chromium: run 'sudo apt-get install -y chromium'." >&2
    exit 1
  fi
fi

if [ -z "${TEST_DATABASE_URL:-}" ] && node -e "require('net').connect(5432,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null; then
  export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
  echo "PostgreSQL answers on 127.0.0.1:5432: the API suite runs on it as well as on PGlite"
fi

echo "== typecheck"; npx tsc -p tsconfig.json --noEmit
echo "== lint"; npx eslint .
echo "== docs in sync"; npx tsx scripts/gen-permissions-doc.ts --check
echo "== unit and API"; npx vitest run
echo "== build"; npx vite build --logLevel warn
# The bundle budget of issue 15 (every route: sign-in 250 KB, dashboard 600 KB gzip), read from the build just made.
echo "== bundle budget"; BUDGET_DIST=dist npx vitest run --config tests/budget/vitest.config.ts
echo "== end to end"; npx playwright test

#!/usr/bin/env bash
# Call the public API with curl and openssl alone.
# Usage: KEY_ID=... KEY_FILE=private-key.pem BASE=https://console.example.com bash sign.sh
set -euo pipefail
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
now=$(date +%s)
header=$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)
claims=$(printf '{"iss":"%s","iat":%d,"exp":%d}' "$KEY_ID" "$now" $((now + 120)) | b64url)
signature=$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$KEY_FILE" -binary | b64url)
curl -sS -X POST "$BASE/api/public/v1/sims/list" \
  -H "authorization: Bearer $header.$claims.$signature" \
  -H 'content-type: application/json' \
  -d '{"pageSize":5}'
echo

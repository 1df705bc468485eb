-- One-time download links of the task center (SPEC.md section 7, Jobs: /rest/job/my/oneTimeToken and a public link
-- per job): a token is stored hashed, works once, within minutes.
CREATE TABLE download_tokens (
  token_hash    text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  org_id        text NOT NULL REFERENCES organisations(id),
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  file_id       text NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX download_tokens_expiry_idx ON download_tokens (expires_at);

// Call the public API from Node.js 20+ with the jose package (npm install jose).
// Usage: KEY_ID=... KEY_FILE=private-key.pem BASE=https://console.example.com node sign.mjs
import { readFileSync } from 'node:fs';
import { importPKCS8, SignJWT } from 'jose';

const key = await importPKCS8(readFileSync(process.env.KEY_FILE, 'utf8'), 'RS256');
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
  .setIssuer(process.env.KEY_ID)
  .setIssuedAt()
  .setExpirationTime('2m') // at most 5 minutes after iat
  .sign(key);

const res = await fetch(`${process.env.BASE}/api/public/v1/sims/list`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ pageSize: 5 }),
});
console.log(res.status, res.headers.get('x-trace-id'));
console.log(JSON.stringify(await res.json(), null, 2));

# Call the public API from Python 3 with the cryptography package (pip install cryptography); no JWT library needed.
# Usage: KEY_ID=... KEY_FILE=private-key.pem BASE=https://console.example.com python3 sign.py
import base64, json, os, time, urllib.request
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

with open(os.environ["KEY_FILE"], "rb") as f:
    key = serialization.load_pem_private_key(f.read(), password=None)
now = int(time.time())
header = b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
claims = b64url(json.dumps({"iss": os.environ["KEY_ID"], "iat": now, "exp": now + 120}).encode())
signature = key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
token = f"{header}.{claims}.{b64url(signature)}"

request = urllib.request.Request(
    os.environ["BASE"] + "/api/public/v1/sims/list",
    data=json.dumps({"pageSize": 5}).encode(),
    headers={"authorization": "Bearer " + token, "content-type": "application/json"},
    method="POST",
)
with urllib.request.urlopen(request) as res:
    print(res.status, res.headers["x-trace-id"])
    print(json.dumps(json.load(res), indent=2))

"""S3 as AWS defines it, against three servers that check what moto's default mode lets
pass, each on 127.0.0.1, started here and always stopped:

- s3rver (npm), which refuses a signed request without x-amz-content-sha256 (as AWS S3 and
  Cloudflare R2 document; Debian's libcurl 7.88 adds none of its own);
- versitygw (Go), a gateway that checks every V4 signature, the body's hash included;
- moto with its IAM checks on (an IAM user's key, every signature checked).

On each: dudley writes a .npy file (one PUT), a 20 MiB one in parts (multipart upload), a
Zarr v3 store and then a store of other chunks over it (its old chunks deleted); boto3, the
AWS SDK, reads back what was written and agrees with numpy; dudley lists and dumps it back
in text and --json; a wrong secret is refused by the servers that check signatures, with
exit 2 and S3's own code, and the secret never printed.

Usage: s3_strict_test.py DUDLEY   (run by .venv-s3/bin/python: boto3 and moto from PyPI)
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moto_server import (MotoServer, S3rverServer, VersityServer, s3_client,  # noqa: E402
                         tool_environment)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
check = Checks()
BUCKET = "data"


def run(server, key, secret, *args, extra_env=None):
    """dudley COMMAND --endpoint-url SERVER ARGS..., with credentials key/secret."""
    env = tool_environment(key)
    env["AWS_SECRET_ACCESS_KEY"] = secret
    env.update(extra_env or {})
    return subprocess.run([DUDLEY, args[0], "--endpoint-url", server.url, *args[1:]],
                          capture_output=True, text=True, env=env, timeout=600)


def keys_under(s3, prefix):
    """Every key below `prefix`, as boto3 lists them (all pages; the whole bucket: moto's
    signature check fails boto3's own listings with an escaped '/' in the prefix)."""
    out = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        out += [o["Key"] for o in page.get("Contents", []) if o["Key"].startswith(prefix)]
    return sorted(out)


def open_uploads(s3):
    """The multipart uploads begun and not ended, or None where the server cannot list them
    (s3rver)."""
    import botocore.exceptions
    try:
        return s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])
    except botocore.exceptions.ClientError as e:
        if e.response["Error"]["Code"] == "NotImplemented":
            return None
        raise


def node(doc, path):
    n = doc["root"]
    for part in [p for p in path.split("/") if p]:
        n = n["members"][part]
    return n


def round_trips(label, server, key, secret, s3, tmp, signatures_checked, stores=True):
    """Writes and reads on one server as key/secret (`stores`: Zarr stores too, else
    objects only, at the bucket's top); `s3`: a boto3 client of the same credentials."""
    # moto with its checks on refuses the signature of any listing whose prefix holds a '/'
    # (boto3's own too: moto checks the query as it decoded it): there, objects only, at the
    # bucket's top.
    folder = "files/" if stores else ""
    small = np.arange(120, dtype="<i4").reshape(10, 12)
    np.save(f"{tmp}/small.npy", small)
    big = np.sin(np.arange(20 * 2**20 // 8, dtype="<f8"))  # 20 MiB: three 8 MiB parts
    np.save(f"{tmp}/big.npy", big)
    x = np.arange(600, dtype="<f4").reshape(20, 30) / 3
    x.tofile(f"{tmp}/x.bin")
    with open(f"{tmp}/x.dud", "w") as f:
        f.write("x = <f4[20, 30]\n")

    # One PUT.
    proc = run(server, key, secret, "convert", "-q", f"{tmp}/small.npy",
               f"s3://{BUCKET}/{folder}small.npy")
    check(f"{label}: write .npy, exit 0", proc.returncode == 0, proc.stderr)
    if proc.returncode == 0:
        body = s3.get_object(Bucket=BUCKET, Key=f"{folder}small.npy")["Body"].read()
        check(f"{label}: boto3 reads the .npy dudley wrote",
              np.array_equal(np.load(io.BytesIO(body)), small), body[:128])

    # A multipart upload: initiate, three signed part PUTs, complete (a POST with a body).
    proc = run(server, key, secret, "convert", "-q", f"{tmp}/big.npy",
               f"s3://{BUCKET}/{folder}big.npy",
               extra_env={"DUDLEY_S3_MULTIPART_FROM": str(8 * 2**20)})
    check(f"{label}: write 20 MiB in parts, exit 0", proc.returncode == 0, proc.stderr)
    if proc.returncode == 0:
        body = s3.get_object(Bucket=BUCKET, Key=f"{folder}big.npy")["Body"].read()
        check(f"{label}: boto3 reads the parts as one object",
              np.array_equal(np.load(io.BytesIO(body)), big), len(body))
        uploads = open_uploads(s3)
        if uploads is not None:
            check(f"{label}: no multipart upload left open", uploads == [], uploads)

    proc = run(server, key, secret, "ls", "--json", f"s3://{BUCKET}/{folder}big.npy")
    check(f"{label}: ls --json of the multipart object",
          proc.returncode == 0 and json.loads(proc.stdout)["root"]["shape"] == [len(big)],
          proc.stdout + proc.stderr)
    proc = run(server, key, secret, "dump", f"s3://{BUCKET}/{folder}small.npy")
    check(f"{label}: dump of the .npy in text",
          proc.returncode == 0 and "119" in proc.stdout, proc.stdout + proc.stderr)

    store = f"s3://{BUCKET}/stores/x.zarr"
    if stores:
        # A Zarr v3 store of 4 x 3 chunks, then one of 2 x 1 chunks over it: the old chunks
        # the new store lacks are deleted.
        proc = run(server, key, secret, "convert", "-q", "--to", "zarr", "--chunks", "5,10",
                   f"{tmp}/x.bin", store)
        check(f"{label}: write a Zarr store, exit 0", proc.returncode == 0, proc.stderr)
        chunks = [k for k in keys_under(s3, "stores/x.zarr/") if "/c/" in k]
        check(f"{label}: 12 chunk objects", len(chunks) == 12, chunks)
        proc = run(server, key, secret, "convert", "-q", "--to", "zarr", "--chunks", "10,30",
                   f"{tmp}/x.bin", store)
        check(f"{label}: overwrite the store, exit 0", proc.returncode == 0, proc.stderr)
        chunks = [k for k in keys_under(s3, "stores/x.zarr/") if "/c/" in k]
        check(f"{label}: the old chunks deleted, the new ones there",
              chunks == ["stores/x.zarr/x/c/0/0", "stores/x.zarr/x/c/1/0"], chunks)
        meta = s3.get_object(Bucket=BUCKET, Key="stores/x.zarr/x/zarr.json")["Body"].read()
        meta = json.loads(meta)
        check(f"{label}: boto3 reads the array's metadata",
              meta.get("shape") == [20, 30] and
              meta["chunk_grid"]["configuration"]["chunk_shape"] == [10, 30], meta)

        # Read back: listing (ListObjectsV2), ranged GETs.
        proc = run(server, key, secret, "dump", "--json", store, "/x")
        ok = proc.returncode == 0
        check(f"{label}: dump --json of the store equals numpy",
              ok and np.allclose(np.array(node(json.loads(proc.stdout), "/x")["data"]), x),
              proc.stderr)
        proc = run(server, key, secret, "ls", store)
        check(f"{label}: ls of the store",
              proc.returncode == 0 and "array <f4 [20, 30]" in proc.stdout,
              proc.stdout + proc.stderr)

    if signatures_checked:
        wrong = "not-the-secret-0123456789"
        proc = run(server, key, wrong, "ls", f"s3://{BUCKET}/{folder}small.npy")
        check(f"{label}: a wrong secret: exit 2, SignatureDoesNotMatch",
              proc.returncode == 2 and "SignatureDoesNotMatch" in proc.stderr, proc.stderr)
        check(f"{label}: the secret never printed", wrong not in proc.stderr + proc.stdout,
              proc.stderr)
        proc = run(server, key, wrong, "convert", "-q", f"{tmp}/small.npy",
                   f"s3://{BUCKET}/{folder}refused.npy")
        check(f"{label}: a write with a wrong secret: exit 2, nothing written",
              proc.returncode == 2 and keys_under(s3, f"{folder}refused") == [], proc.stderr)


def guarded(label, *args):
    """round_trips(label, *args); an exception (a peer's read that failed) is a failed check."""
    try:
        round_trips(label, *args)
    except Exception as e:  # noqa: BLE001 - any failure of a peer is reported as one
        check(f"{label}: the round trips ran to their end", False, repr(e))


def moto_user(server):
    """An IAM user of moto's with S3 rights and its key pair; the bucket made with it."""
    import boto3
    iam = boto3.client("iam", endpoint_url=server.url, region_name="us-east-1",
                       aws_access_key_id="admin", aws_secret_access_key="admin")
    iam.create_user(UserName="dudley")
    iam.put_user_policy(UserName="dudley", PolicyName="s3", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    made = iam.create_access_key(UserName="dudley")["AccessKey"]
    return made["AccessKeyId"], made["SecretAccessKey"]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        with S3rverServer(tmp, BUCKET) as server:
            key = S3rverServer.KEY
            guarded("s3rver", server, key, key, s3_client(server.url, key), tmp, False)
            # A request without the header is what s3rver refuses: the check above means it.
            request = urllib.request.Request(
                f"{server.url}/{BUCKET}?list-type=2",
                headers={"Authorization": "AWS4-HMAC-SHA256 Credential=S3RVER/20260101/"
                         "us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, "
                         "Signature=00", "x-amz-date": "20260101T000000Z"})
            try:
                urllib.request.urlopen(request, timeout=10)
                refused = ""
            except urllib.error.HTTPError as e:
                refused = e.read().decode()
            check("s3rver refuses a signed request without x-amz-content-sha256",
                  "x-amz-content-sha256" in refused, refused)

        if not os.access(VersityServer.PROGRAM, os.X_OK):
            check("versitygw is installed (scripts/install-deps.sh builds it)", False,
                  VersityServer.PROGRAM)
        else:
            with VersityServer(tmp) as server:
                key = VersityServer.KEY
                s3 = s3_client(server.url, key)
                s3.create_bucket(Bucket=BUCKET)
                guarded("versitygw", server, key, key, s3, tmp, True)

        # moto: three requests to make the user, then every request checked.
        with MotoServer(tmp, require_auth=True, free_actions=3) as server:
            key, secret = moto_user(server)
            import boto3
            s3 = boto3.client("s3", endpoint_url=server.url, region_name="us-east-1",
                              aws_access_key_id=key, aws_secret_access_key=secret)
            s3.create_bucket(Bucket=BUCKET)

            guarded("moto with IAM checks", server, key, secret, s3, tmp, True, False)

    return check.report()


if __name__ == "__main__":
    sys.exit(main())

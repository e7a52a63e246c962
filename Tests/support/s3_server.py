"""A local S3 for the tests: PyPI's moto (``requirements-s3.txt``) with request signatures checked.

moto ignores signatures unless ``INITIAL_NO_AUTH_ACTION_COUNT`` is set; then the first calls are
free and every later one must be signed by a known key. This script spends the free calls on an
IAM user allowed ``s3:*`` and its access key, so the server under test signs with real
credentials and a wrong secret is refused (``SignatureDoesNotMatch``), as AWS would.

    python3 Tests/support/s3_server.py --state FILE

writes ``{"endpoint", "region", "access_key_id", "secret_access_key"}`` to FILE once it answers,
and serves until its standard input closes or it is terminated.
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading

FREE_CALLS = 3  # CreateUser, PutUserPolicy, CreateAccessKey
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = str(FREE_CALLS)

import boto3  # noqa: E402  (moto reads the variable when imported)
from moto.server import ThreadedMotoServer  # noqa: E402

POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True)
    arguments = parser.parse_args()
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
    iam.create_user(UserName="whatweeat")
    iam.put_user_policy(UserName="whatweeat", PolicyName="uploads", PolicyDocument=json.dumps(POLICY))
    key = iam.create_access_key(UserName="whatweeat")["AccessKey"]
    state = {"endpoint": endpoint, "region": "us-east-1",
             "access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"]}
    temporary = arguments.state + ".tmp"
    with open(temporary, "w") as file:
        json.dump(state, file)
    os.replace(temporary, arguments.state)

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait()
    server.stop()


if __name__ == "__main__":
    main()

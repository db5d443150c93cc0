"""No secret in a Python exception (issue 62): a URL's user:password@ and a presigned URL's
query never reach an exception's message or its `path`, as they never reach the command
line's output. The URLs point at a port of 127.0.0.1 nothing listens on."""
import socket

import pytest

import dudley


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize("url", [
    "http://user:PASSWORD123@127.0.0.1:{port}/x.npy",
    "http://127.0.0.1:{port}/x.npy?X-Amz-Signature=SIGNATURE123&X-Amz-Security-Token=TOKEN123",
    "http://127.0.0.1:{port}/store.zarr?token=TOKEN123",
    # No reader for the extension: the refusal quotes the URL it could not place.
    "http://user:PASSWORD123@127.0.0.1:{port}/data.weird?sig=SIGNATURE123",
    "https://user:PASSWORD123@127.0.0.1:{port}/noext?X-Amz-Signature=SIGNATURE123",
])
def test_exceptions_hold_no_secret(url):
    url = url.format(port=closed_port())
    with pytest.raises(dudley.Error) as caught:
        dudley.open(url)
    text = str(caught.value) + repr(getattr(caught.value, "path", ""))
    for secret in ("PASSWORD123", "SIGNATURE123", "TOKEN123"):
        assert secret not in text, text
    assert "127.0.0.1" in text  # the place is still named

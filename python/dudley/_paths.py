"""What dudley.open and dudley.save take besides a str: a path object (pathlib), or an
fsspec file object (what s3fs.S3FileSystem.open and fsspec.open give), which is read where it
is (its URL and the credentials of its file system), through dudley's own store client, not
through the object's reads."""
import os

# fsspec's storage options that say where a file system is and who reads it (what
# dudley.open's storage_options take); an s3fs file system's others (block sizes, caching)
# are about its own reads, which dudley does not use.
_S3_OPTIONS = ("key", "secret", "token", "anon", "endpoint_url", "profile", "client_kwargs")


def _native_path(path):
    """A str path the native module can take: a name with bytes that are not UTF-8 arrives
    from os.listdir or glob with surrogate escapes (PEP 383), which only its bytes carry."""
    if isinstance(path, str):
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            return os.fsencode(path)
    return path


def resolve(path, storage_options):
    """(path as a str, or bytes for a name that is not UTF-8, storage_options) for `path`: a str, a path object, an open local
    file, or an fsspec file object of S3, HTTP(S) or local files. TypeError naming any
    other."""
    if isinstance(path, (str, bytes, os.PathLike)):
        return _native_path(os.fspath(path)), storage_options
    fs = getattr(path, "fs", None)
    inner = getattr(path, "path", None)
    if fs is not None and isinstance(inner, str):
        protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
        if "s3" in protocols or "s3a" in protocols:
            if storage_options is None:
                given = dict(getattr(fs, "storage_options", {}) or {})
                storage_options = {k: v for k, v in given.items() if k in _S3_OPTIONS}
                client = storage_options.get("client_kwargs")
                if isinstance(client, dict):  # only where the service is
                    storage_options["client_kwargs"] = {
                        k: v for k, v in client.items() if k in ("endpoint_url", "region_name")}
            return "s3://" + inner, storage_options
        if "http" in protocols or "https" in protocols:
            return inner, storage_options
        if "file" in protocols or "local" in protocols:
            return inner, storage_options
        raise TypeError(f"an fsspec file of protocol {protocols[0]!r}: dudley reads files of "
                        "s3, http(s) and local file systems (give its URL or a local copy)")
    name = getattr(path, "name", None)
    if isinstance(name, str) and hasattr(path, "read") and os.path.isfile(name):
        return name, storage_options  # an open local file: read by its name
    raise TypeError(f"expected a path, a URL or an fsspec file object, not {type(path).__name__}")

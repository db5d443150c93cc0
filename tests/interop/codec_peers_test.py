#!/usr/bin/python3
"""Every codec of the codec layer against Python's own implementations, both ways.

Peers (Debian packages, run with /usr/bin/python3): zlib, gzip and bz2 of the standard
library, python3-lz4 (block and frame), python3-numcodecs (GZip, Zlib, BZ2, Zstd, Blosc,
Shuffle). For each, data the peer encodes must decode with ours to the same bytes, and data
we encode must decode with the peer. numcodecs 0.11 has no CRC32C: ours is checked against
a bitwise CRC-32C written here from the definition (polynomial 0x1EDC6F41, reflected).

usage: codec_peers_test.py CODEC_TOOL
"""
import bz2
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib

import lz4.block
import lz4.frame
import numcodecs
import numpy as np

TOOL = sys.argv[1]
failures = 0
checks = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL: " + message)


def ours(mode, name, config, data, *extra):
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in"), os.path.join(tmp, "out")
        open(src, "wb").write(data)
        if mode.endswith("-array"):
            args = [TOOL, mode, name, json.dumps(config), str(extra[0]), src, dst]
        else:
            args = [TOOL, mode, name, json.dumps(config), src, dst, *map(str, extra)]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"codec_tool {mode} {name} {config}: {r.stderr.strip()}")
        return open(dst, "rb").read()


def both_ways(label, name, config, peer_encode, peer_decode):
    """peer-encoded `data` (the sample at hand) decodes with ours; ours decodes with the
    peer; the same bytes both ways."""
    global checks
    checks += 1
    try:
        theirs = peer_encode(data)
        got = ours("decode", name, config, theirs, len(data))
        if got != data:
            fail(f"{label}: ours decoded the peer's {len(theirs)} bytes to different data")
        mine = ours("encode", name, config, data)
        back = peer_decode(mine, len(data))
        if bytes(back) != data:
            fail(f"{label}: the peer decoded our {len(mine)} bytes to different data")
    except Exception as e:  # noqa: BLE001 (report every codec)
        fail(f"{label}: {e}")


def crc32c_reference(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


rng = np.random.default_rng(11)
smooth = np.round(np.sin(np.arange(60000) / 300.0) * 1e4).astype("<f8") / 8
samples = {
    "empty": b"",
    "one byte": b"x",
    "text": b"the quick brown fox jumps over the lazy dog " * 500,
    "smooth f8": smooth.tobytes(),
    "noise": rng.integers(0, 256, 70001, dtype=np.uint8).tobytes(),
    "i2 ramp": np.arange(30001, dtype="<i2").tobytes(),
}

# Generated samples besides the fixed ones, different each run (the seed is printed;
# CODEC_SEED=N repeats a run): sizes from a few bytes to a few MiB, contents from noise to
# long runs, so that the codecs meet inputs no one chose.
seed = int(os.environ.get("CODEC_SEED", time.time_ns() % 2**32))
print(f"generated samples: CODEC_SEED={seed}")
gen = np.random.default_rng(seed)


def generated(kind):
    size = int(gen.choice([gen.integers(1, 64), gen.integers(64, 100_000),
                           gen.integers(1 << 20, 3 << 20)]))
    if kind == "runs":  # long runs of a few byte values
        values = gen.integers(0, 256, 8, dtype=np.uint8)
        lengths = gen.integers(1, 2000, size // 2 + 1)
        return np.repeat(values[gen.integers(0, 8, lengths.size)], lengths)[:size].tobytes()
    if kind == "pattern":  # a short random pattern repeated, now and then mutated
        out = np.resize(gen.integers(0, 256, int(gen.integers(1, 300)), dtype=np.uint8), size)
        out[gen.integers(0, size, size // 100 + 1)] = gen.integers(0, 256, size // 100 + 1)
        return out.tobytes()
    if kind == "floats":  # a random walk of doubles (8 bytes each)
        return np.cumsum(gen.normal(size=size // 8 + 1)).astype("<f8").tobytes()[:size]
    return gen.integers(0, 256, size, dtype=np.uint8).tobytes()


for kind in ("runs", "pattern", "floats", "noise"):
    data = generated(kind)
    samples[f"generated {kind} ({len(data)} bytes)"] = data

stack_checks = []  # (label, codec, configuration, data) for the PyPI stack's numcodecs
for label, data in samples.items():
    for level in (0, 1, 5, 9):
        both_ways(f"zlib/{level} {label}", "zlib", {"level": level},
                  lambda d, lv=level: zlib.compress(d, lv), lambda e, n: zlib.decompress(e))
        both_ways(f"gzip/{level} {label}", "gzip", {"level": level},
                  lambda d, lv=level: gzip.compress(d, lv), lambda e, n: gzip.decompress(e))
        both_ways(f"numcodecs GZip/{level} {label}", "gzip", {"level": level},
                  lambda d, lv=level: numcodecs.GZip(lv).encode(d),
                  lambda e, n: numcodecs.GZip().decode(e))
        both_ways(f"numcodecs Zlib/{level} {label}", "zlib", {"level": level},
                  lambda d, lv=level: numcodecs.Zlib(lv).encode(d),
                  lambda e, n: numcodecs.Zlib().decode(e))

        def raw_deflate(d, lv=level):
            c = zlib.compressobj(lv, zlib.DEFLATED, -15)
            return c.compress(d) + c.flush()
        both_ways(f"deflate/{level} {label}", "deflate", {"level": level}, raw_deflate,
                  lambda e, n: zlib.decompress(e, -15))
    for level in (1, 9):
        both_ways(f"bz2/{level} {label}", "bz2", {"level": level},
                  lambda d, lv=level: bz2.compress(d, lv), lambda e, n: bz2.decompress(e))
        both_ways(f"numcodecs BZ2/{level} {label}", "bz2", {"level": level},
                  lambda d, lv=level: numcodecs.BZ2(lv).encode(d),
                  lambda e, n: numcodecs.BZ2().decode(e))
    if data:  # an empty lz4 block is one zero byte in python-lz4 and nothing here
        for accel in (1, 8):
            both_ways(f"lz4 block/{accel} {label}", "lz4", {"acceleration": accel},
                      lambda d, a=accel: lz4.block.compress(d, mode="fast", acceleration=a,
                                                           store_size=False),
                      lambda e, n: lz4.block.decompress(e, uncompressed_size=n))
    if data:  # numcodecs' LZ4: a 4-byte little-endian size, then a block
        for accel in (1, 8):
            both_ways(f"numcodecs LZ4/{accel} {label}", "numcodecs.lz4", {"acceleration": accel},
                      lambda d, a=accel: numcodecs.LZ4(a).encode(d),
                      lambda e, n: numcodecs.LZ4().decode(e))
    for level in (0, 9):
        both_ways(f"lz4 frame/{level} {label}", "lz4_frame", {"level": level},
                  lambda d, lv=level: lz4.frame.compress(d, compression_level=lv),
                  lambda e, n: lz4.frame.decompress(e))
    # numcodecs 0.11's Zstd cannot decode an empty frame, even its own (the same 9 bytes
    # as ours): empty input is checked in the unit tests.
    for level in (1, 3, 19) if data else ():
        both_ways(f"numcodecs Zstd/{level} {label}", "zstd", {"level": level},
                  lambda d, lv=level: numcodecs.Zstd(lv).encode(d),
                  lambda e, n: numcodecs.Zstd().decode(e))
    # numcodecs' Blosc cannot decode an empty chunk, even its own (ours can: the unit tests).
    for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd") if data else ():
        for shuffle, name in ((0, "noshuffle"), (1, "shuffle"), (2, "bitshuffle")):
            typesize = 8 if "f8" in label else 2 if "i2" in label else 1
            config = {"cname": cname, "clevel": 5, "shuffle": name, "typesize": typesize,
                      "blocksize": 0}
            arr = np.frombuffer(data, dtype=f"u{typesize}") if len(data) % typesize == 0 else data
            both_ways(f"numcodecs Blosc/{cname}/{name} {label}", "blosc", config,
                      lambda d, c=cname, s=shuffle, a=arr: numcodecs.Blosc(c, 5, s).encode(a),
                      lambda e, n: numcodecs.Blosc().decode(e))
    # CRC-32C: the chunk then its checksum, little-endian (Zarr v3's crc32c codec).
    checks += 1
    enc = ours("encode", "crc32c", {}, data)
    want = data + crc32c_reference(data).to_bytes(4, "little")
    if enc != want:
        fail(f"crc32c {label}: {enc[-4:].hex()} != reference {want[-4:].hex()}")
    if ours("decode", "crc32c", {}, want, len(data)) != data:
        fail(f"crc32c {label}: did not verify the reference checksum")
    # numcodecs' 32-bit checksums and LZMA, both ways: Debian's numcodecs (0.11) has CRC32
    # and Adler32 (checksum first) and LZMA; the newer ones (Fletcher32, JenkinsLookup3,
    # CRC32C, a checksum at the end) are the PyPI stack's numcodecs 0.16, run apart.
    both_ways(f"numcodecs CRC32 {label}", "numcodecs.crc32", {},
              lambda d: numcodecs.CRC32().encode(d), lambda e, n: numcodecs.CRC32().decode(e))
    both_ways(f"numcodecs Adler32 {label}", "numcodecs.adler32", {},
              lambda d: numcodecs.Adler32().encode(d), lambda e, n: numcodecs.Adler32().decode(e))
    if len(data) < (1 << 20):  # LZMA is slow: the small samples are enough
        for config in ({"preset": 1}, {"format": 2, "preset": 6}, {"check": 0}, {"check": 10}):
            both_ways(f"numcodecs LZMA/{config} {label}", "numcodecs.lzma", config,
                      lambda d, c=config: numcodecs.LZMA(**c).encode(d),
                      lambda e, n, c=config: numcodecs.LZMA(format=c.get("format", 1)).decode(e))
    for name, config in (("numcodecs.fletcher32", {}), ("numcodecs.jenkins_lookup3", {}),
                         ("numcodecs.jenkins_lookup3", {"initval": 12345}),
                         ("numcodecs.crc32c", {}), ("numcodecs.crc32c", {"location": "start"}),
                         ("numcodecs.crc32", {"location": "end"})):
        if data or name != "numcodecs.fletcher32":  # numcodecs' cannot encode no bytes
            stack_checks.append((label, name, config, data))
    # Byte shuffle against numcodecs' Shuffle, both ways.
    for es in (2, 4, 8):
        if len(data) % es:  # numcodecs refuses a partial element (ours keeps it in place)
            continue
        checks += 1
        theirs = numcodecs.Shuffle(es).encode(data)
        if ours("encode-array", "shuffle", {"elementsize": es}, data, 1) != bytes(theirs):
            fail(f"shuffle/{es} {label}: ours differs from numcodecs")
        if ours("decode-array", "shuffle", {"elementsize": es}, bytes(theirs), 1) != data:
            fail(f"shuffle/{es} {label}: ours did not undo numcodecs")

# numcodecs' element filters that change the type: AsType (numpy's casts), Quantize and
# PackBits, both ways, on values of the type they decode to.
cast_rng = np.random.default_rng(seed)
for encode_dtype, decode_dtype in (("<f4", "<f8"), ("<f8", "<f4"), ("<i2", "<i8"),
                                   ("<i8", "<i2"), ("|u1", "<i4"), ("<i4", "<f8"),
                                   ("<f8", "<i4"), ("<u8", "<f4"), (">f8", "<f8")):
    checks += 1
    values = cast_rng.normal(size=5000) * 1e3
    if "u" in encode_dtype and "f" in decode_dtype:  # numpy leaves float -> unsigned of
        values = np.abs(values)                      # negatives undefined (we saturate)
    values = values.astype(decode_dtype)
    config = {"encode_dtype": encode_dtype, "decode_dtype": decode_dtype}
    codec = numcodecs.AsType(**config)
    try:
        theirs = codec.encode(values).tobytes()
        if ours("encode", "numcodecs.astype", config, values.tobytes()) != theirs:
            fail(f"astype {config}: ours encodes other bytes than numcodecs")
        stored = cast_rng.integers(-100, 100, 5000).astype(encode_dtype).tobytes()
        want = codec.decode(stored).tobytes()
        if ours("decode", "numcodecs.astype", config, stored, len(want)) != want:
            fail(f"astype {config}: ours decodes otherwise than numcodecs")
    except Exception as e:  # noqa: BLE001
        fail(f"astype {config}: {e}")
for digits, dtype, astype in ((2, "<f8", "<f8"), (1, "<f4", "<f4"), (3, "<f8", "<f4")):
    checks += 1
    values = (cast_rng.normal(size=5000) * 100).astype(dtype)
    config = {"digits": digits, "dtype": dtype, "astype": astype}
    codec = numcodecs.Quantize(**config)
    theirs = codec.encode(values).tobytes()
    if ours("encode", "numcodecs.quantize", config, values.tobytes()) != theirs:
        fail(f"quantize {config}: ours rounds otherwise than numcodecs")
    if ours("decode", "numcodecs.quantize", config, theirs, values.nbytes) != \
            codec.decode(theirs).tobytes():
        fail(f"quantize {config}: ours decodes otherwise than numcodecs")
for n in (0, 1, 7, 8, 9, 1001):
    checks += 1
    bits = (cast_rng.integers(0, 2, n) == 1)
    theirs = numcodecs.PackBits().encode(bits).tobytes()
    if ours("encode", "numcodecs.packbits", {}, bits.tobytes()) != theirs:
        fail(f"packbits of {n}: ours packs otherwise than numcodecs")
    if ours("decode", "numcodecs.packbits", {}, theirs, n) != bits.tobytes():
        fail(f"packbits of {n}: ours unpacks otherwise than numcodecs")

# The checksums numcodecs 0.11 lacks, against the PyPI stack's numcodecs (0.16): it encodes
# every sample in one process; ours must decode its bytes and encode the same bytes.
STACK_PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".venv-stack",
                            "bin", "python")
STACK_ENCODE = """
import json, sys, numcodecs.checksum32 as c
classes = {"numcodecs.fletcher32": __import__("numcodecs").Fletcher32, "numcodecs.crc32": c.CRC32,
           "numcodecs.jenkins_lookup3": c.JenkinsLookup3, "numcodecs.crc32c": c.CRC32C}
jobs = json.load(sys.stdin)
out = [bytes(classes[name](**config).encode(bytes.fromhex(data))).hex()
       for name, config, data in jobs]
json.dump(out, sys.stdout)
"""
if not os.path.exists(STACK_PYTHON):
    fail(f"no {STACK_PYTHON} (scripts/install-deps.sh makes it): Fletcher32, JenkinsLookup3 "
         "and CRC32C unchecked")
else:
    jobs = [(name, config, data.hex()) for _, name, config, data in stack_checks]
    r = subprocess.run([STACK_PYTHON, "-c", STACK_ENCODE], input=json.dumps(jobs),
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"numcodecs 0.16: {r.stderr.strip()[-500:]}")
    else:
        for (label, name, config, data), theirs in zip(stack_checks, json.loads(r.stdout)):
            checks += 1
            theirs = bytes.fromhex(theirs)
            try:
                if ours("decode", name, config, theirs, len(data)) != data:
                    fail(f"{name}/{config} {label}: ours decoded numcodecs' bytes otherwise")
                if ours("encode", name, config, data) != theirs:
                    fail(f"{name}/{config} {label}: ours encodes other bytes than numcodecs")
                damaged = bytearray(theirs)
                damaged[len(damaged) // 2] ^= 0x10
                ours("decode", name, config, bytes(damaged), len(data))
                fail(f"{name}/{config} {label}: a damaged byte was not noticed")
            except RuntimeError as e:
                if "checksum mismatch" not in str(e):
                    fail(f"{name}/{config} {label}: {e}")

print(f"codecs against their peers: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)

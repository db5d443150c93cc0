#!/usr/bin/env python3
"""Writes a restart file described by examples/restart.dud, byte by byte with the struct
module (independently of dudley), so the demo and the tests have real data to read.

usage: make_restart_data.py OUT.bin [STEP]
Values are simple functions of their indices so readers can check them:
rho[j][i] = 1000*STEP + 10*j + i, x[j][i] = i, y[j][i] = j, history/time[k] = 0.5*k.
"""
import struct
import sys

out_path = sys.argv[1]
step = int(sys.argv[2]) if len(sys.argv) > 2 else 0
NX, NY, NMAT, NTRACER, NHIST = 4 + step, 3, 1, 2, 5
b = bytearray()
b += bytes([0x89, 0x64, 0x95, 0x64, 0x0D, 0x0A, 0x1A, 0x0A])  # !DUDLEY: little endian
b += struct.pack("<iiiQI", NX, NY, NMAT, NTRACER, NHIST)
b += f"restart step {step} of the demo problem".encode().ljust(80, b" ")  # title S1[80]
b += struct.pack("<qdd", 100 * step, 0.25 * step, 1e-3)  # state: cycle, time, dt


def grid(rows, cols, value):
    return b"".join(struct.pack("<d", value(j, i)) for j in range(rows) for i in range(cols))


b += grid(NY + 1, NX + 1, lambda j, i: float(i))  # mesh/x
b += grid(NY + 1, NX + 1, lambda j, i: float(j))  # mesh/y
b += grid(NY, NX, lambda j, i: 1000.0 * step + 10 * j + i)  # hydro/rho
b += grid(NY, NX, lambda j, i: 2.5)  # hydro/e
b += grid(NY, NX, lambda j, i: float("nan") if (j, i) == (0, 0) else 1.0)  # hydro/p
b += grid(NY + 1, NX + 1, lambda j, i: 0.1)  # hydro/vel/u
b += grid(NY + 1, NX + 1, lambda j, i: -0.1)  # hydro/vel/v
b += bytes((j + i) % 2 for j in range(NY) for i in range(NX))  # hydro/material
b += "Kupfer \u00e9".encode("cp1252").ljust(32, b"\0")  # materials[0]/name
b += struct.pack("<id", 7, 8.96)  # eos, density0
b += struct.pack("<3f", 0.5, 0.25, 0.25)  # fractions
for t in range(NTRACER):  # tracers: pos f8[2], vel f4[2], id u4, zone i4[2]
    b += struct.pack("<2d2fI2i", t + 0.5, t + 1.5, 1.0, -1.0, 100 + t, t, t + 1)
b += b"".join(struct.pack("<d", 0.5 * k) for k in range(NHIST))  # history/time
b += b"".join(struct.pack("<3d", k, 2 * k, 3 * k) for k in range(NHIST))  # history/energy
with open(out_path, "wb") as f:
    f.write(b)

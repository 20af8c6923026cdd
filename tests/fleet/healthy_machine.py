"""Builds a healthy GPU machine for `cudiag --root DIR`: a copy of the fixture
tests/fixtures/machines/dgx-h100 (8 H100s, kernel module 550.54.15) with the test
doubles fake_libcuda and fake_libnvidia_ml standing in for the driver's libraries
(a GPU cannot exist on the CI machine), their scenarios, and an /etc/ld.so.cache in
glibc's format, as tests/unit/collect/machine_builder.h builds it for the unit tests.
Usage: healthy_machine.py DOUBLES_DIR FIXTURE_DIR OUT_DIR"""
import os
import shutil
import struct
import sys

doubles, fixture, out = sys.argv[1:4]
LIB = "/usr/lib/x86_64-linux-gnu"
DRIVER, CUDA = "550.54.15", 12040
GPUS = [("0000:1b:00.0", "GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01"), ("0000:43:00.0", "GPU-5c0f2a41-8d3e-4b7a-9e21-3a4b5c6d7e02"),
        ("0000:52:00.0", "GPU-1f3e5d7c-9b2a-4c6e-8f10-2b3c4d5e6f03"), ("0000:61:00.0", "GPU-7a8b9c0d-1e2f-4a5b-8c6d-7e8f9a0b1c04"),
        ("0000:9d:00.0", "GPU-2d4f6a8c-0e1a-4b3c-9d5e-6f7a8b9c0d05"), ("0000:c3:00.0", "GPU-8e9f0a1b-2c3d-4e5f-a6b7-c8d9e0f1a206"),
        ("0000:d1:00.0", "GPU-3b5d7f9a-1c2e-4f6a-b8c0-d2e4f6a8b007"), ("0000:df:00.0", "GPU-9c0d1e2f-3a4b-4c5d-be6f-7a8b9c0d1e08")]
NAME, CC, MEMORY, PCI_ID = "NVIDIA H100 80GB HBM3", "9.0", 85520809984, 0x2330

shutil.copytree(fixture, out, symlinks=True)


def host(path):
    return os.path.join(out, path.lstrip("/"))


def write(path, data):
    os.makedirs(os.path.dirname(host(path)), exist_ok=True)
    with open(host(path), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def library(double, path, link, scenario):
    write(path, open(os.path.join(doubles, double + ".so"), "rb").read())
    d, name = os.path.split(path)
    write(f"{d}/.{name}.scenario", scenario)
    os.symlink(name, host(f"{d}/{link}"))
    return (link, f"{d}/{link}")


def devices(bus_of):
    s = f"device_count={len(GPUS)}\n"
    for i, (bus, uuid) in enumerate(GPUS):
        s += f"device.{i}.name={NAME}\ndevice.{i}.cc={CC}\ndevice.{i}.memory={MEMORY}\ndevice.{i}.uuid={uuid}\n"
        s += f"device.{i}.pci_bus_id={bus_of(bus)}\n"
    return s


libcuda = f"driver_version={CUDA}\ncuInit.result=0\n" + devices(lambda b: b.upper())
nvml = f"nvmlInit.result=0\ndriver_version={DRIVER}\nnvml_version=12.{DRIVER}\ncuda_driver_version={CUDA}\n"
nvml += devices(lambda b: ("0000" + b).upper())
nvml += "".join(f"device.{i}.pci_device_id={PCI_ID}\ndevice.{i}.mig=disabled\ndevice.{i}.persistence=enabled\n"
                for i in range(len(GPUS)))
entries = [library("fake_libcuda", f"{LIB}/libcuda.so.{DRIVER}", "libcuda.so.1", libcuda),
           library("fake_libnvidia_ml", f"{LIB}/libnvidia-ml.so.{DRIVER}", "libnvidia-ml.so.1", nvml)]

# glibc-ld.so.cache1.1 (src/machine/ld_cache.h): header, 24-byte entries, then the strings.
start = 48 + 24 * len(entries)
strings, offsets = b"", []
for soname, path in entries:
    key = start + len(strings)
    strings += soname.encode() + b"\0"
    value = start + len(strings)
    strings += path.encode() + b"\0"
    offsets.append((key, value))
cache = b"glibc-ld.so.cache1.1" + struct.pack("<II", len(entries), len(strings)) + b"\2\0\0\0" + struct.pack("<IIII", 0, 0, 0, 0)
for key, value in offsets:
    cache += struct.pack("<IIIIII", 0x0303, key, value, 0, 0, 0)
write("/etc/ld.so.cache", cache + strings)
write("/proc/self/environ", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\0")

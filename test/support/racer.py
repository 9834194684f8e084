#!/usr/bin/env python3
"""The attacker's half of a path race: swaps a directory and a symlink to a target outside,
atomically with renameat2(RENAME_EXCHANGE), as fast as it can, until killed.

    racer.py <dir> <target outside> [seconds] [stop file]

<dir> is a real directory at the start; a symlink named <dir>.link pointing at the target is
made beside it, and the two names are exchanged again and again, so at any instant <dir> is
either the real directory or a link to the target. Runs for [seconds] (default 60) at most, or
until [stop file] exists (looked at every 1,000 swaps).
Used by the tests of the worker's file access (test/unit/workdir, test/integration/isolation)."""
import ctypes
import os
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2

def main() -> None:
    directory, target = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    stop = sys.argv[4] if len(sys.argv) > 4 else None
    link = directory + ".link"
    if not os.path.lexists(link):
        os.symlink(target, link)
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = libc.renameat2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    a, b = directory.encode(), link.encode()
    print("racing", flush=True)
    deadline = time.monotonic() + seconds
    swaps = 0
    while time.monotonic() < deadline:
        if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno))
        swaps += 1
        if stop and swaps % 1000 == 0 and os.path.exists(stop):
            break
    print(f"swaps {swaps}", flush=True)

if __name__ == "__main__":
    main()

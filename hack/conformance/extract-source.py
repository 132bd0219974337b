#!/usr/bin/env python3
"""Write a git tree out blob by blob (the snapshot repo lacks a few blobs, so `git archive` fails).

Usage: extract-source.py GIT_DIR COMMIT DEST
Missing blobs are skipped and listed on stderr; symlinks are recreated; executable bits kept.
"""
import os, subprocess, sys

git_dir, commit, dest = sys.argv[1:4]
ls = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit],
                    check=True, capture_output=True).stdout.split(b"\0")
entries = []
for line in ls:
    if not line:
        continue
    meta, path = line.split(b"\t", 1)
    mode, typ, sha = meta.split(b" ")
    if typ != b"blob":
        continue  # submodules (none expected)
    entries.append((mode.decode(), sha.decode(), path.decode()))

proc = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
missing = []
for mode, sha, path in entries:
    proc.stdin.write((sha + "\n").encode()); proc.stdin.flush()
    header = proc.stdout.readline().decode().split()
    if len(header) == 2 and header[1] == "missing":
        missing.append(path); continue
    size = int(header[2])
    data = proc.stdout.read(size); proc.stdout.read(1)
    out = os.path.join(dest, path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.lexists(out):
        os.remove(out)
    if mode == "120000":
        os.symlink(data.decode(), out)
    else:
        with open(out, "wb") as f:
            f.write(data)
        if mode == "100755":
            os.chmod(out, 0o755)
proc.stdin.close(); proc.wait()
print(f"wrote {len(entries) - len(missing)} files; {len(missing)} missing blobs skipped", file=sys.stderr)
for m in missing:
    print("  missing: " + m, file=sys.stderr)

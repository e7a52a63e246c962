#!/usr/bin/env python3
"""How long `whatweeat backup` and `restore` take with many photos on disk (issue 58, item 6):
makes a site (WHATWEEAT_BIN, default the release build) with N distinct photo files of SIZE bytes in
DATA_DIR/uploads, then times `backup` into a new file and `restore` of it into a new folder, beside
a baseline measured in the same run on the same files: `cp -r` of the uploads folder and a
`sync`. Checks that every file came back byte for byte.
usage: Benchmarks/backup_timing.py [photos] [bytes-per-photo]"""
import hashlib, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("WHATWEEAT_BIN", os.path.join(ROOT, ".build/release/whatweeat"))
COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000


def run(arguments, data_dir):
    env = dict(os.environ, DATA_DIR=data_dir, LOG_LEVEL="error", RESOURCES_DIR=ROOT)
    env.pop("DATABASE_URL", None)
    started = time.perf_counter()
    done = subprocess.run([BINARY] + arguments, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(arguments)} failed: {done.stdout}{done.stderr}")
    return elapsed, done.stdout.strip()


def main():
    work = tempfile.mkdtemp(prefix="whatweeat-backup-timing-")
    try:
        site, restored = os.path.join(work, "site"), os.path.join(work, "restored")
        run(["migrate", "--yes"], site)
        uploads = os.path.join(site, "uploads")
        os.makedirs(uploads, exist_ok=True)
        digests = set()
        for index in range(COUNT):
            data = index.to_bytes(8, "big") + os.urandom(SIZE - 8)
            digest = hashlib.sha256(data).hexdigest()
            with open(os.path.join(uploads, digest + ".jpg"), "wb") as photo:
                photo.write(data)
            digests.add(digest)
        subprocess.run(["sync"])

        started = time.perf_counter()
        shutil.copytree(uploads, os.path.join(work, "plain-copy"))
        subprocess.run(["sync"])
        baseline = time.perf_counter() - started

        backup_file = os.path.join(work, "backup.sqlite")
        backup_seconds, backup_said = run(["backup", backup_file], site)
        mode = oct(os.stat(backup_file).st_mode & 0o777)
        restore_seconds, restore_said = run(["restore", backup_file], restored)
        back = {name.split(".")[0] for name in os.listdir(os.path.join(restored, "uploads")) if name.endswith(".jpg")}
        for name in back:
            with open(os.path.join(restored, "uploads", name + ".jpg"), "rb") as photo:
                assert hashlib.sha256(photo.read()).hexdigest() == name
        print(f"{COUNT} photos of {SIZE} bytes ({COUNT * SIZE / 1e6:.0f} MB)")
        print(f"baseline  cp -r + sync   {baseline:7.2f} s")
        print(f"backup                   {backup_seconds:7.2f} s  ({backup_seconds / baseline:.1f}x the baseline; file mode {mode})")
        print(f"restore (new folder)     {restore_seconds:7.2f} s  ({restore_seconds / baseline:.1f}x the baseline)")
        print(f"files back, byte for byte: {len(back & digests)} of {COUNT}")
        print(backup_said)
        print(restore_said)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

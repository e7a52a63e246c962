#!/usr/bin/env python3
"""How long `whatweeat backup` and `restore` take with many photos on disk (issue 58, item 6):
makes a site (WHATWEEAT_BIN, default the release build) with N distinct photo files of SIZE bytes in
DATA_DIR/uploads, then times `backup` into a new file and `restore` of it into a new folder, beside
a baseline measured in the same run on the same files: `cp -r` of the uploads folder and a
`sync`. Checks that every file came back byte for byte.
With DATABASE_URL (an empty PostgreSQL database) the site is on PostgreSQL, its photos in the
database (a first start carries them in): `backup` writes a folder through pg_dump and `restore`
reads it into a second, empty database through pg_restore; the photos are counted back.
usage: [DATABASE_URL=postgres://…] Benchmarks/backup_timing.py [photos] [bytes-per-photo]"""
import hashlib, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("WHATWEEAT_BIN", os.path.join(ROOT, ".build/release/whatweeat"))
COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000


def run(arguments, data_dir, database_url=None):
    env = dict(os.environ, DATA_DIR=data_dir, LOG_LEVEL="error", RESOURCES_DIR=ROOT)
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    started = time.perf_counter()
    done = subprocess.run([BINARY] + arguments, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(arguments)} failed: {done.stdout}{done.stderr}")
    return elapsed, done.stdout.strip()


def make_photos(uploads):
    os.makedirs(uploads, exist_ok=True)
    digests = set()
    for index in range(COUNT):
        data = index.to_bytes(8, "big") + os.urandom(SIZE - 8)
        digest = hashlib.sha256(data).hexdigest()
        with open(os.path.join(uploads, digest + ".jpg"), "wb") as photo:
            photo.write(data)
        digests.add(digest)
    subprocess.run(["sync"])
    return digests


def copy_baseline(uploads, work):
    started = time.perf_counter()
    shutil.copytree(uploads, os.path.join(work, "plain-copy"))
    subprocess.run(["sync"])
    return time.perf_counter() - started


def psql(url, sql):
    return subprocess.run(["psql", "-X", "-q", "-t", "-A", url, "-c", sql], capture_output=True, text=True, check=True).stdout.strip()


def main_postgres(url):
    """The site on PostgreSQL: photos carried into `stored_files` by a first start, then timed."""
    work = tempfile.mkdtemp(prefix="whatweeat-backup-timing-pg-")
    parsed = urllib.parse.urlsplit(url)
    restored_name = parsed.path.lstrip("/") + "_restored"
    maintenance = parsed._replace(path="/postgres").geturl()
    restored_url = parsed._replace(path="/" + restored_name).geturl()
    try:
        site = os.path.join(work, "site")
        digests = make_photos(os.path.join(site, "uploads"))
        baseline = copy_baseline(os.path.join(site, "uploads"), work)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = dict(os.environ, DATA_DIR=site, LOG_LEVEL="error", RESOURCES_DIR=ROOT, DATABASE_URL=url, PORT=str(port))
        server = subprocess.Popen([BINARY, "serve"], env=env)
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        server.send_signal(signal.SIGTERM)
        server.wait()
        stored = int(psql(url, "SELECT COUNT(*) FROM stored_files"))
        assert stored >= COUNT, f"{stored} photos in the database"

        folder = os.path.join(work, "backup")
        backup_seconds, backup_said = run(["backup", folder], site, url)
        size = sum(os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder))
        psql(maintenance, f'DROP DATABASE IF EXISTS "{restored_name}"')
        psql(maintenance, f'CREATE DATABASE "{restored_name}"')
        restore_seconds, restore_said = run(["restore", folder], os.path.join(work, "restored"), restored_url)
        back = int(psql(restored_url, "SELECT COUNT(*) FROM stored_files"))
        keys = set(psql(restored_url, "SELECT file_key FROM stored_files").split())
        print(f"{COUNT} photos of {SIZE} bytes ({COUNT * SIZE / 1e6:.0f} MB) in PostgreSQL's stored_files")
        print(f"baseline  cp -r + sync   {baseline:7.2f} s")
        print(f"backup (pg_dump)         {backup_seconds:7.2f} s  ({backup_seconds / baseline:.1f}x the baseline; folder {size / 1e6:.0f} MB)")
        print(f"restore (pg_restore)     {restore_seconds:7.2f} s  ({restore_seconds / baseline:.1f}x the baseline)")
        print(f"photos back: {back} rows, {len({key.split('.')[0] for key in keys} & digests)} of {COUNT} by name")
        print(backup_said)
        print(restore_said)
    finally:
        psql(maintenance, f'DROP DATABASE IF EXISTS "{restored_name}"')
        shutil.rmtree(work, ignore_errors=True)


def main():
    if os.environ.get("DATABASE_URL"):
        return main_postgres(os.environ["DATABASE_URL"])
    work = tempfile.mkdtemp(prefix="whatweeat-backup-timing-")
    try:
        site, restored = os.path.join(work, "site"), os.path.join(work, "restored")
        run(["migrate", "--yes"], site)
        uploads = os.path.join(site, "uploads")
        digests = make_photos(uploads)
        baseline = copy_baseline(uploads, work)

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

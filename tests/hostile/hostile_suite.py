#!/usr/bin/python3
"""The hostile-input suite: cudiag's promises under hostile input and faults.

Each case runs the real binary and checks one promise: bad input gives a fact
or a one-line error (exit 2), never a crash, a hang, an internal error (exit
3) or a partial file; nothing on the machine is changed; no secret or
identity leaves in any output; no child survives a signal. Cases are grouped
by class; the summary line gives the figures ("cases N, passed M").

    hostile_suite.py CUDIAG_BINARY SOURCE_DIR [CLASS[@I/N]...]

CLASS@I/N runs the I-th of N shares of a class's cases (secrets only: its
secrets x commands x formats cross product is the suite's long part, about
15 minutes under ASan on two cores, so ctest runs it as three tests).

Runs as any user; the cases that need root (-o /dev/null as root) or
unshare are skipped with a reason when the machine cannot do them, and the
summary counts them. Every temporary file is under one directory removed at
the end; every process started is waited for.
"""
import concurrent.futures
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

BINARY, SOURCE = sys.argv[1], sys.argv[2]
ONLY = {a.split("@")[0] for a in sys.argv[3:]}
# The share of a sharded class this run takes: {"secrets": (1, 3)} for "secrets@1/3".
SHARE = {a.split("@")[0]: tuple(int(x) for x in a.split("@")[1].split("/")) for a in sys.argv[3:] if "@" in a}
TMP = tempfile.mkdtemp(prefix="cudiag-hostile-")
FIXTURES = os.path.join(SOURCE, "tests", "fixtures")
FORMATS = ["text", "json", "md", "html", "junit", "github"]
results = []  # (class, name, ok, detail)
skipped = []  # (class, name, why)


def run(args, timeout=60, env=None, stdin=None, input_bytes=None, root=None):
    """cudiag ARGS; returns (rc, stdout bytes, stderr bytes, seconds)."""
    argv = [BINARY] + (["--root", root] if root else []) + args
    e = dict(os.environ)
    e["CUDIAG_CACHE_DIR"] = ""
    e.update(env or {})
    start = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, timeout=timeout, env=e, stdin=stdin, input=input_bytes)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as t:
        return "timeout", t.stdout or b"", t.stderr or b"", time.monotonic() - start


def record(cls, name, ok, detail=""):
    results.append((cls, name, bool(ok), detail))


def one_line_error(rc, err):
    """exit 2 with exactly one stderr line naming the problem, no internal error."""
    lines = [l for l in err.decode("utf-8", "replace").splitlines() if l.strip()]
    return rc == 2 and len(lines) == 1 and "internal error" not in lines[0] and lines[0].startswith("cudiag: error:")


def sane(rc, err):
    """A result, not a crash: exit 0, 1 or 2, never 3, a signal or a hang."""
    return rc in (0, 1, 2) and b"internal error" not in err


def copy_fixture(name):
    dst = tempfile.mkdtemp(dir=TMP, prefix=name + "-")
    shutil.copytree(os.path.join(FIXTURES, "machines", name), dst, symlinks=True, dirs_exist_ok=True)
    return dst


def saved_report(root=None):
    """A real saved report: this fixture machine's, as `cudiag report` writes it."""
    rc, out, err, _ = run(["report", "--format", "json", "--include-identity", "--no-frameworks"],
                          root=root or os.path.join(FIXTURES, "machines", "dgx-h100"))
    assert rc in (0, 1), err
    return json.loads(out)


def write(path, data, mode=0o644):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(path, mode)
    return path


# ---------------------------------------------------------------- secrets --
def spellings(leak):
    """The forms a leaked value takes once a format escapes it."""
    j = json.dumps(leak)[1:-1]
    html = leak.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#39;")
    md = "".join("\\" + c if c in "\\`*_[]<>|~" else c for c in leak)
    return {leak, j, html, md}


def leaks(output, must_not):
    text = output.decode("utf-8", "replace")
    return [l for l in must_not for s in spellings(l) if s and s in text]


def plant_report(report, s):
    r = json.loads(json.dumps(report))
    env = r.setdefault("host", {}).setdefault("environment", {})
    env["LD_LIBRARY_PATH"] = {"value": "/usr/local/nvidia/lib:" + s, "source": "env:LD_LIBRARY_PATH"}
    env["CONDA_PREFIX"] = {"value": s, "source": "env:CONDA_PREFIX"}
    r["host"]["os"] = {"pretty_name": {"value": s, "source": "file:/etc/os-release"}}
    for f in r.get("findings", [])[:2]:
        f["message"] = f.get("message", "") + " " + s
    return r


def secret_corpus():
    corpus = []
    for path in [os.path.join(SOURCE, "tests", "unit", "render", "secrets_corpus.json"),
                 os.path.join(SOURCE, "tests", "hostile", "secrets_extra.json")]:
        with open(path, encoding="utf-8") as f:
            corpus += json.load(f)["secrets"]
    return corpus


def secrets_cases():
    cls = "secrets"
    base = saved_report()
    lock_dir = tempfile.mkdtemp(dir=TMP, prefix="lock-")
    clean_lock = os.path.join(lock_dir, "clean.lock")
    rc, _, err, _ = run(["lock", "--report", write(os.path.join(lock_dir, "base.json"), json.dumps(base)),
                         "-o", clean_lock])
    assert rc == 0, err

    def cases_for(secret):
        out = []
        s, must_not = secret["planted"], secret["must_not_appear"]
        d = tempfile.mkdtemp(dir=TMP, prefix="secret-")
        rep = write(os.path.join(d, "r.json"), json.dumps(plant_report(base, s)))
        other = write(os.path.join(d, "o.json"), json.dumps(base))
        # A fixture machine whose environment carries the secret, collected for real.
        m = copy_fixture("docker-nvidia")
        env_path = os.path.join(m, "proc", "self", "environ")
        with open(env_path, "rb") as f:
            environ = f.read()
        extra = [b"CONDA_PREFIX=" + s.encode(), b"CUDA_HOME=/opt/" + s.encode(),
                 b"LD_LIBRARY_PATH=/usr/local/nvidia/lib64:" + s.encode(), b"VIRTUAL_ENV=" + s.encode()]
        write(env_path, environ.rstrip(b"\0") + b"\0" + b"\0".join(extra) + b"\0")
        # A lock file with the secret in a value, and a pasted log with it.
        bad_lock = write(os.path.join(d, "bad.lock"), f'schema = "cudiag.lock/1"\n[driver]\nversion = "{s}"\n')
        runs = [(f"report --format {f} (collected)", ["report", "--format", f], m) for f in FORMATS]
        runs += [(f"check --format {f} (collected)", ["check", "--format", f], m) for f in FORMATS]
        runs += [(f"analyze --format {f}", ["analyze", rep, "--format", f], None) for f in FORMATS]
        runs += [("lock (collected)", ["lock", "-o", "-"], m), ("lock --report", ["lock", "--report", rep, "-o", "-"], None)]
        runs += [(f"verify --format {f}", ["verify", clean_lock, "--report", rep, "--format", f], None) for f in ("text", "json")]
        runs += [(f"verify --format {f} (collected)", ["verify", clean_lock, "--format", f], m) for f in ("text", "json")]
        runs += [("verify of a lock holding it", ["verify", bad_lock, "--report", other], None)]
        runs += [(f"diff --format {f}", ["diff", other, rep, "--format", f], None) for f in ("text", "json")]
        log = "RuntimeError: CUDA error: no CUDA-capable device is detected (cudaErrorNoDevice) " + s
        runs += [(f"explain --format {f} --report", ["explain", "--report", rep, "--format", f, log], None) for f in ("text", "json")]
        runs += [(f"explain --format {f} (collected)", ["explain", "--format", f, log], m) for f in ("text", "json")]
        runs += [("plan --report", ["plan", "--report", rep, "--cuda", "12.4"], None)]
        for label, args, root in runs:
            rc, o, e, _ = run(args, root=root)
            bad = leaks(o + e, must_not)
            out.append((f"{secret['name']} x {label}", sane(rc, e) and not bad,
                        f"rc={rc} leaked={bad} err={e[:200]!r}"))
        return out

    corpus = secret_corpus()
    if cls in SHARE:
        i, n = SHARE[cls]
        corpus = corpus[i - 1::n]
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        for batch in pool.map(cases_for, corpus):
            for name, ok, detail in batch:
                record(cls, name, ok, detail)


# ------------------------------------------------------ machine untouched --
def output_cases():
    cls = "machine-untouched"
    d = tempfile.mkdtemp(dir=TMP, prefix="out-")
    # A 0600 file stays 0600, and gets the output.
    target = write(os.path.join(d, "report.json"), "old", 0o600)
    rc, _, err, _ = run(["report", "--no-collect", "--format", "json", "-o", target])
    st = os.stat(target)
    record(cls, "-o FILE keeps the mode of the file it replaces", rc in (0, 1) and stat.S_IMODE(st.st_mode) == 0o600
           and open(target).read().startswith("{"), f"rc={rc} mode={oct(st.st_mode)}")
    # No temporary left beside it.
    record(cls, "-o FILE leaves no temporary behind", sorted(os.listdir(d)) == ["report.json"], str(os.listdir(d)))
    # A symlink to a character device: written through, the device stays a device.
    link = os.path.join(d, "null-link")
    os.symlink("/dev/null", link)
    rc, _, err, _ = run(["report", "--no-collect", "-o", link])
    record(cls, "-o symlink-to-/dev/null writes through", rc in (0, 1) and stat.S_ISCHR(os.stat("/dev/null").st_mode)
           and os.path.islink(link), f"rc={rc} {err[:200]!r}")
    # -o /dev/stdout prints to stdout.
    rc, out, err, _ = run(["report", "--no-collect", "--format", "json", "-o", "/dev/stdout"])
    record(cls, "-o /dev/stdout prints the report", rc in (0, 1) and out.startswith(b"{"), f"rc={rc} out={out[:40]!r}")
    # A FIFO: written through to its reader, still a FIFO.
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    rc, _, err, _ = run(["report", "--no-collect", "--format", "json", "-o", fifo], timeout=20)
    try:
        got = reader.communicate(timeout=20)[0]
    except subprocess.TimeoutExpired:  # the FIFO was replaced by a file: the reader waits for ever
        reader.kill()
        got = reader.communicate()[0]
    record(cls, "-o FIFO writes through", rc in (0, 1) and got.startswith(b"{") and stat.S_ISFIFO(os.lstat(fifo).st_mode),
           f"rc={rc}")
    # A directory, or a missing directory: one-line error, exit 2.
    rc, _, err, _ = run(["report", "--no-collect", "-o", d])
    record(cls, "-o DIRECTORY is a one-line error", one_line_error(rc, err), f"rc={rc} {err!r}")
    rc, _, err, _ = run(["report", "--no-collect", "-o", os.path.join(d, "missing", "x.json")])
    record(cls, "-o in a missing directory is a one-line error", one_line_error(rc, err), f"rc={rc} {err!r}")
    # A symlink planted at every old-style temporary name cannot redirect the write.
    victim = write(os.path.join(d, "victim"), "precious")
    out = os.path.join(d, "planted.json")
    for pid in range(os.getpid(), os.getpid() + 200):
        os.symlink(victim, f"{out}.tmp.{pid}")
    rc, _, err, _ = run(["report", "--no-collect", "-o", out])
    record(cls, "a symlink at a predictable temporary name is not followed",
           rc in (0, 1) and open(victim).read() == "precious", f"rc={rc}")
    # As root, -o /dev/null must leave the device alone (a private mount namespace would be needed to
    # recover a replaced /dev/null, so this runs only where that is available).
    if os.geteuid() == 0 and shutil.which("unshare"):
        script = (f"mount -t tmpfs none /mnt && mknod /mnt/null c 1 3 && chmod 666 /mnt/null && "
                  f"mount --bind /mnt/null /dev/null && CUDIAG_CACHE_DIR= {BINARY} report --no-collect -o /dev/null; "
                  f"test -c /dev/null && echo STILL_A_DEVICE")
        p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], capture_output=True, timeout=60)
        if b"Operation not permitted" in p.stderr or p.returncode not in (0, 1) and b"STILL" not in p.stdout:
            skipped.append((cls, "-o /dev/null as root", f"unshare -m not permitted here: {p.stderr[:120]!r}"))
        else:
            record(cls, "-o /dev/null as root leaves the device", b"STILL_A_DEVICE" in p.stdout, repr(p.stderr[:200]))
    else:
        skipped.append((cls, "-o /dev/null as root", "not root"))


def root_cases():
    cls = "machine-untouched"
    # Host files a fixture's links point at; none may show in the report.
    marker_dir = tempfile.mkdtemp(dir=TMP, prefix="host-")
    host_os = write(os.path.join(marker_dir, "os-release"), 'PRETTY_NAME="HOST-LEAK-OS"\n')
    host_ver = write(os.path.join(marker_dir, "version"), "NVRM version: NVIDIA UNIX x86_64 Kernel Module  987.65.43\n")
    variants = {
        "absolute link whose target is missing in the root": lambda m: (host_os, host_ver),
        "relative link climbing past the root": lambda m: ("../" * 30 + host_os.lstrip("/"), "../" * 30 + host_ver.lstrip("/")),
    }
    for name, targets in variants.items():
        m = copy_fixture("dgx-h100")
        t_os, t_ver = targets(m)
        for p in ["etc/os-release", "proc/driver/nvidia/version"]:
            if os.path.lexists(os.path.join(m, p)):
                os.remove(os.path.join(m, p))
        os.symlink(t_os, os.path.join(m, "etc", "os-release"))
        os.symlink(t_ver, os.path.join(m, "proc", "driver", "nvidia", "version"))
        rc, out, err, _ = run(["report", "--format", "json", "--include-identity"], root=m)
        record(cls, f"--root: {name}", rc in (0, 1) and b"HOST-LEAK" not in out and b"987.65.43" not in out,
               f"rc={rc}")
    # A directory link out of the root, then a file below it.
    m = copy_fixture("dgx-h100")
    shutil.rmtree(os.path.join(m, "proc", "driver"), ignore_errors=True)
    os.makedirs(os.path.join(marker_dir, "driver", "nvidia"), exist_ok=True)
    shutil.copy(host_ver, os.path.join(marker_dir, "driver", "nvidia", "version"))
    os.symlink(os.path.join(marker_dir, "driver"), os.path.join(m, "proc", "driver"))
    rc, out, err, _ = run(["report", "--format", "json"], root=m)
    record(cls, "--root: a directory link to a host path", rc in (0, 1) and b"987.65.43" not in out, f"rc={rc}")
    # Symlink loops are errors, not hangs.
    m = copy_fixture("dgx-h100")
    os.remove(os.path.join(m, "etc", "os-release"))
    os.symlink("/etc/loop-b", os.path.join(m, "etc", "os-release"))
    os.symlink("/etc/os-release", os.path.join(m, "etc", "loop-b"))
    rc, out, err, secs = run(["report", "--format", "json"], root=m, timeout=30)
    record(cls, "--root: a symlink loop is an error fact", rc in (0, 1) and secs < 25, f"rc={rc} {secs:.1f}s")


# ------------------------------------------------------------ saved input --
def saved_input_cases():
    cls = "saved-input"
    d = tempfile.mkdtemp(dir=TMP, prefix="saved-")
    base = saved_report()
    good = write(os.path.join(d, "good.json"), json.dumps(base))
    lock = os.path.join(d, "good.lock")
    run(["lock", "--report", good, "-o", lock])
    deep = write(os.path.join(d, "deep.json"), "[" * 30000)
    deep_field = write(os.path.join(d, "deep-field.json"),
                       '{"schema": "cudiag.report/1", "host": ' + "[" * 100000 + "]" * 100000 + "}")
    dup = write(os.path.join(d, "dup.json"), '{"schema": "cudiag.report/1", "host": {}, "host": {}}')
    big_exp = write(os.path.join(d, "exp.json"), '{"schema": "cudiag.report/1", "x": 1e999999}')
    big_int = write(os.path.join(d, "int.json"), '{"schema": "cudiag.report/1", "x": ' + "9" * 400 + "}")
    inputs = {"30,000 [": deep, "100k levels in a field": deep_field, "a duplicate key": dup,
              "1e999999": big_exp, "a 400-digit integer": big_int, "/dev/zero": "/dev/zero"}
    fifo = os.path.join(d, "fifo.json")
    os.mkfifo(fifo)
    commands = {
        "analyze": lambda p: ["analyze", p], "diff": lambda p: ["diff", good, p], "plan": lambda p: ["plan", "--report", p, "--cuda", "12.4"],
        "lock --report": lambda p: ["lock", "--report", p, "-o", "-"], "verify --report": lambda p: ["verify", lock, "--report", p],
        "explain --report": lambda p: ["explain", "--report", p, "CUDA_ERROR_NO_DEVICE"],
    }
    for iname, path in inputs.items():
        for cname, argv in commands.items():
            rc, out, err, secs = run(argv(path), timeout=30)
            record(cls, f"{cname} of {iname}", one_line_error(rc, err) and secs < 20, f"rc={rc} {secs:.1f}s {err[:160]!r}")
    for name, argv in {"verify /dev/zero": ["verify", "/dev/zero", "--report", good],
                       "explain --file /dev/zero": ["explain", "--no-collect", "--file", "/dev/zero"],
                       "analyze of a directory": ["analyze", d]}.items():
        rc, out, err, secs = run(argv, timeout=30)
        record(cls, name, one_line_error(rc, err) and secs < 20, f"rc={rc} {secs:.1f}s {err[:160]!r}")
    # A lock is written redacted (a home directory as "~"); it must still verify against the same stack.
    home_rep = json.loads(json.dumps(base))
    home_rep.setdefault("cuda_runtime", {})["runtimes"] = [{
        "path": "/home/alice/venv/lib/libcudart.so.12", "real_path": "/home/alice/venv/lib/libcudart.so.12.4.127",
        "runtime_version": {"value": "12.4", "source": "call:cudaRuntimeGetVersion"}}]
    home_path = write(os.path.join(d, "home.json"), json.dumps(home_rep))
    home_lock = os.path.join(d, "home.lock")
    run(["lock", "--report", home_path, "-o", home_lock])
    rc, out, err, _ = run(["verify", home_lock, "--report", home_path])
    record(cls, "a lock with ~ paths (redacted) verifies against its own stack",
           rc == 0 and "~/venv" in open(home_lock).read() and "alice" not in open(home_lock).read(), f"rc={rc} {out[:200]!r}")
    # A --kb directory with a FIFO among its tables: refused, not waited on.
    kb = tempfile.mkdtemp(dir=TMP, prefix="kb-")
    for f in os.listdir(os.path.join(SOURCE, "data", "kb")):
        if f.endswith(".json"):
            shutil.copy(os.path.join(SOURCE, "data", "kb", f), kb)
    os.mkfifo(os.path.join(kb, "zz-fifo.json"))
    rc, out, err, secs = run(["--kb", kb, "analyze", good], timeout=20)
    record(cls, "a FIFO in a --kb directory", one_line_error(rc, err) and secs < 10, f"rc={rc} {secs:.1f}s {err[:160]!r}")
    # Type confusion: one node of a real report swapped for another type at a time.
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node[:3]):
                walk(v, path + [i])

    walk(base, [])
    rng = random.Random(17)
    sample = rng.sample(paths[1:], min(len(paths) - 1, int(os.environ.get("HOSTILE_TYPE_MUTATIONS", "120"))))
    swaps = [None, 7, "x", [], {}, True, -1.5e308]

    def mutate(path):
        r = json.loads(json.dumps(base))
        node = r
        for k in path[:-1]:
            node = node[k]
        old = node[path[-1]]
        new = rng.choice([s for s in swaps if type(s) is not type(old)])
        node[path[-1]] = new
        p = write(os.path.join(d, f"mut-{abs(hash(str(path)))}.json"), json.dumps(r))
        outs = []
        for argv in (["analyze", p, "--format", "json"], ["lock", "--report", p, "-o", "-"],
                     ["verify", lock, "--report", p, "--format", "json"], ["diff", good, p]):
            rc, out, err, _ = run(argv, timeout=30)
            # A rejected report names the field it rejected: the swapped node or one inside it.
            named = True
            if rc == 2 and b"unexpected type" not in err and b"not a cudiag report" not in err:
                want = ("/" + "/".join(map(str, path))).encode()
                named = b"field " + want in err
            outs.append((argv[0], sane(rc, err) and named, f"rc={rc} {err[:160]!r}"))
        return path, new, outs

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        for path, new, outs in pool.map(mutate, sample):
            for cmd, ok, detail in outs:
                record(cls, f"type confusion {cmd}: /{'/'.join(map(str, path))} = {json.dumps(new)}", ok, detail)
    # Invalid UTF-8 in a machine's names: every JSON dump stays valid JSON.
    m = copy_fixture("docker-nvidia")
    env_path = os.path.join(m, "proc", "self", "environ")
    with open(env_path, "rb") as f:
        environ = f.read().rstrip(b"\0")
    write(env_path, environ + b"\0LD_LIBRARY_PATH=/opt/\xff\xfe-bad/lib\0CUDA_HOME=/opt/\xc3(\0")
    for name, argv in {"verify --format json": ["verify", lock, "--format", "json"],
                       "report --format json": ["report", "--format", "json"],
                       "diff --format json": ["diff", good, good, "--format", "json"]}.items():
        rc, out, err, _ = run(argv, root=m)
        try:
            json.loads(out.decode("utf-8"))
            valid = True
        except Exception:
            valid = False
        record(cls, f"invalid UTF-8 in names: {name}", sane(rc, err) and valid, f"rc={rc} {err[:160]!r}")


def cache_cases():
    cls = "saved-input"
    # The answer cache is only used on the real root; these run a real report.
    for name, setup in {
        "cache file is a FIFO": lambda d: os.mkfifo(os.path.join(d, "library-answers.json")),
        "cache symlinked to /dev/zero": lambda d: os.symlink("/dev/zero", os.path.join(d, "library-answers.json")),
        "cache entry of the wrong shape": lambda d: write(os.path.join(d, "library-answers.json"), json.dumps(
            {"schema": "cudiag.answer-cache/1", "tool": "x", "entries": {"a": {"answer": 5, "at": []}}})),
        "cache nested 100k deep": lambda d: write(os.path.join(d, "library-answers.json"), "[" * 100000),
    }.items():
        d = tempfile.mkdtemp(dir=TMP, prefix="cache-")
        setup(d)
        rc, out, err, secs = run(["report", "--format", "json", "--no-frameworks"], env={"CUDIAG_CACHE_DIR": d}, timeout=60)
        record(cls, name, rc in (0, 1) and secs < 45 and out.startswith(b"{"), f"rc={rc} {secs:.1f}s {err[:160]!r}")


# -------------------------------------------------------------- processes --
def live_with_marker(marker):
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                if marker in f.read():
                    pids.append(int(p))
        except OSError:
            pass
    return pids


def process_cases(doubles):
    cls = "processes"
    if not doubles or not os.path.exists(os.path.join(doubles, "fake_libcuda.so")):
        skipped.append((cls, "signal cases", "no test doubles directory given"))
        return
    for sig, want in ((signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        for behaviour in ("hang", "escape-hang"):
            lib = tempfile.mkdtemp(dir=TMP, prefix="lib-")
            shutil.copy(os.path.join(doubles, "fake_libcuda.so"), os.path.join(lib, "libcuda.so.1"))
            write(os.path.join(lib, ".libcuda.so.1.scenario"), f"cuInit.behaviour={behaviour}\ndriver_version=12020\n")
            marker = f"CUDIAG_HOSTILE_MARK={os.getpid()}-{sig}-{behaviour}".encode()
            env = dict(os.environ, LD_LIBRARY_PATH=lib, CUDIAG_CACHE_DIR="", CUDIAG_HOSTILE_MARK=marker.split(b"=")[1].decode())
            p = subprocess.Popen([BINARY, "--timeout", "60", "report", "--no-frameworks"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(1.5)
            before = len(live_with_marker(marker))  # cudiag itself and its children
            p.send_signal(sig)
            try:
                rc = p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
            time.sleep(0.3)
            left = live_with_marker(marker)
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            record(cls, f"{signal.Signals(sig).name} mid-run with a child that does {behaviour}",
                   rc == want and not left and before >= 2, f"rc={rc} processes before={before} left={left}")
    # A setsid()'d grandchild outlives its child: gone when the report ends.
    lib = tempfile.mkdtemp(dir=TMP, prefix="lib-")
    shutil.copy(os.path.join(doubles, "fake_libcuda.so"), os.path.join(lib, "libcuda.so.1"))
    write(os.path.join(lib, ".libcuda.so.1.scenario"), "cuInit.behaviour=escape\ndriver_version=12020\n")
    marker = f"CUDIAG_HOSTILE_MARK={os.getpid()}-escape-done".encode()
    rc, out, err, _ = run(["report", "--no-frameworks", "--format", "json"],
                          env={"LD_LIBRARY_PATH": lib, "CUDIAG_HOSTILE_MARK": marker.split(b"=")[1].decode()})
    time.sleep(0.3)
    left = live_with_marker(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    record(cls, "a setsid() grandchild does not outlive the report", rc in (0, 1) and not left, f"rc={rc} left={left}")
    # 300 copies of libcuda on LD_LIBRARY_PATH: bounded children, the rest "not probed".
    dirs = []
    for i in range(300):
        lib = os.path.join(TMP, f"many-{i}")
        os.makedirs(lib)
        # Copies, not links: links to one file are one instance.
        shutil.copy(os.path.join(doubles, "fake_libcuda.so"), os.path.join(lib, "libcuda.so.1"))
        dirs.append(lib)
    rc, out, err, secs = run(["report", "--format", "json", "--no-frameworks"], env={"LD_LIBRARY_PATH": ":".join(dirs)},
                             timeout=120)
    record(cls, "300 libcuda copies: bounded, the rest reported as not probed",
           rc in (0, 1) and b"not probed" in out and secs < 90, f"rc={rc} {secs:.1f}s")
    for bad in ("nan", "inf", "-nan"):
        rc, out, err, _ = run(["--timeout", bad, "report", "--no-collect"])
        record(cls, f"--timeout {bad} is rejected", rc == 2 and b"internal" not in err, f"rc={rc} {err[:120]!r}")


# --------------------------------------------------------- escape injection --
def escape_cases():
    cls = "escape-injection"
    m = copy_fixture("docker-nvidia")
    env_path = os.path.join(m, "proc", "self", "environ")
    with open(env_path, "rb") as f:
        environ = f.read().rstrip(b"\0")
    evil = b"/opt/\x1b]0;pwned\x07\x1b[2J\x9b31m/lib"
    write(env_path, environ + b"\0LD_LIBRARY_PATH=" + evil + b"\0CUDA_HOME=" + evil + b"\0")
    d = tempfile.mkdtemp(dir=TMP, prefix="esc-")
    rep = saved_report()
    rep["host"].setdefault("os", {})["pretty_name"] = {"value": "\x1b]0;title\x07Ubuntu", "source": "file:/etc/os-release"}
    rpath = write(os.path.join(d, "r.json"), json.dumps(rep))
    lock = os.path.join(d, "l.lock")
    run(["lock", "--report", rpath, "-o", lock])
    bad_lock = write(os.path.join(d, "bad.lock"), 'schema = "cudiag.lock/1"\n[driver]\nversion = "\x1b]0;x\x07"\n')
    runs = {"check (text)": (["check"], m), "report --format text": (["report", "--format", "text"], m),
            "analyze (text)": (["analyze", rpath], None), "verify (text)": (["verify", lock], m),
            "diff (text)": (["diff", rpath, rpath], None), "lock -o -": (["lock", "-o", "-"], m),
            "fleet (text)": (["fleet", rpath], None),
            "explain a pasted log": (["explain", "--no-collect", "CUDA_ERROR_NO_DEVICE \x1b]0;x\x07 \x1b[31m"], None),
            "stderr of a bad lock": (["verify", bad_lock, "--report", rpath], None),
            "stderr of a bad path": (["analyze", "/nonexistent/\x1b]0;x\x07"], None)}
    for name, (argv, root) in runs.items():
        rc, out, err, _ = run(argv, root=root)
        raw = [c for c in (b"\x1b", b"\x07", b"\x9b") if c in out or c in err]
        record(cls, name, sane(rc, err) and not raw, f"rc={rc} raw={raw}")


# ------------------------------------------------------------- cost bounds --
def sanitized_binary():
    """ASan reserves terabytes of shadow memory: no memory rlimit can apply to it."""
    try:
        out = subprocess.run(["ldd", BINARY], capture_output=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"libasan" in out or b"libubsan" in out


def cost_cases():
    cls = "cost"
    lib = "/usr/local/cuda/lib64/libcurand.so.10"
    if not os.path.exists(lib):
        skipped.append((cls, "an honest large wheel member", f"{lib} is missing (CUDA 13 toolkit)"))
        return
    if sanitized_binary():
        skipped.append((cls, "an honest large wheel member", "a sanitizer build cannot run under a data rlimit"))
        return
    # A real 130 MB library stored in a wheel: inflated through a temporary
    # file and mapped, not read into the heap, so 64 MiB of data segment is
    # enough, and the listing equals the library's own.
    import zipfile
    d = tempfile.mkdtemp(dir=TMP, prefix="cost-")
    wheel = os.path.join(d, "nvidia_curand-10.0.0-py3-none-manylinux_2_28_x86_64.whl")
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as z:
        z.write(lib, "nvidia/curand/lib/libcurand.so.10")
    rc0, direct, err0, _ = run(["inspect", "--format", "json", lib], timeout=120)
    argv = ["prlimit", f"--data={64 << 20}", BINARY, "inspect", "--format", "json", wheel]
    p = subprocess.run(argv, capture_output=True, timeout=120, env=dict(os.environ, CUDIAG_CACHE_DIR=""))

    def entries(out):
        try:
            return [f.get("entries") for f in json.loads(out)["files"]]
        except (ValueError, KeyError, TypeError):
            return None
    same = entries(direct) is not None and entries(direct) == entries(p.stdout) and entries(direct)[0]
    record(cls, "a 130 MB wheel member under a 64 MiB data limit: listed, as the library itself is",
           rc0 == 0 and p.returncode == 0 and same, f"rc={p.returncode} direct_rc={rc0} {p.stderr[:200]!r}")


def main():
    doubles = os.environ.get("CUDIAG_DOUBLES_DIR", "")
    classes = {"secrets": secrets_cases, "output": output_cases, "root": root_cases, "saved": saved_input_cases,
               "cache": cache_cases, "processes": lambda: process_cases(doubles), "escape": escape_cases,
               "cost": cost_cases}
    bad = [f"no class {name!r} (classes: {', '.join(classes)})" for name in ONLY - classes.keys()]
    bad += [f"bad share {name}@{i}/{n} (only secrets@I/N, 1 <= I <= N, is sharded)"
            for name, (i, n) in SHARE.items() if name != "secrets" or not 1 <= i <= n]
    if bad:
        shutil.rmtree(TMP, ignore_errors=True)
        sys.exit("hostile_suite.py: " + bad[0])
    start = time.monotonic()
    try:
        for name, fn in classes.items():
            if ONLY and name not in ONLY:
                continue
            t = time.monotonic()
            fn()
            print(f"-- {name}: {time.monotonic() - t:.1f}s", flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    failed = [r for r in results if not r[2]]
    for cls, name, ok, detail in failed:
        print(f"FAIL [{cls}] {name}: {detail}")
    for cls, name, why in skipped:
        print(f"SKIP [{cls}] {name}: {why}")
    by_class = {}
    for cls, _, ok, _ in results:
        n, p = by_class.get(cls, (0, 0))
        by_class[cls] = (n + 1, p + ok)
    for cls, (n, p) in by_class.items():
        print(f"{cls}: {p}/{n} passed")
    print(f"hostile suite: cases {len(results)}, passed {len(results) - len(failed)}, failed {len(failed)}, "
          f"skipped {len(skipped)} ({time.monotonic() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

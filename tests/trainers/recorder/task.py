"""A trainer that records what it sees, for the local-run tests (standard library only).

Each replica writes JOB_DIR/seen/TASK-INDEX.json (its arguments, directory, process ids and the
variables the service sets), prints, marks that with TASK-INDEX.printed, then behaves as the flags
say.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

VARIABLES = ("TF_CONFIG", "CLUSTER_SPEC", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
             "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "PYTHONUNBUFFERED", "CLOUD_ML_JOB_ID",
             "AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR", "PET_NNODES",
             "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT", "PET_NPROC_PER_NODE",
             "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    parser.add_argument("--master", choices=["exit", "sleep"], default="exit",
                        help="what the master does once every replica has recorded")
    parser.add_argument("--master-exit", type=int, default=0)
    parser.add_argument("--others", choices=["exit", "sleep", "ignore-term"], default="exit")
    parser.add_argument("--others-exit", type=int, default=0)
    parser.add_argument("--expect", type=int, default=0,
                        help="the master waits until this many replicas have printed everything")
    parser.add_argument("--after-exits", action="store_true",
                        help="then the master also waits until the others' processes are gone "
                             "(reaped by gpujob, or by their supervisor, itself reaped by gpujob)")
    parser.add_argument("--spawn", action="store_true",
                        help="start grandchildren that sleep: one in this replica's process "
                             "group, one in a session of its own, one a daemon (double fork, "
                             "new session, orphaned)")
    parser.add_argument("--lines", type=int, default=0, help="print this many long lines")
    parser.add_argument("--no-newline", action="store_true",
                        help="end with text that has no newline")
    args, unknown = parser.parse_known_args()

    task = json.loads(os.environ["TF_CONFIG"])["task"]
    name = f"{task['type']}-{task['index']}"
    is_master = task["type"] in ("master", "chief")
    if not is_master and args.others == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    grandchildren = []
    if args.spawn:
        sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
        grandchildren = [subprocess.Popen(sleeper).pid,
                         subprocess.Popen(sleeper, start_new_session=True).pid, _daemon()]
    seen = Path(args.job_dir, "seen")
    seen.mkdir(parents=True, exist_ok=True)
    record = {
        "argv": sys.argv[1:], "unknown": unknown, "cwd": os.getcwd(), "pid": os.getpid(),
        "pgid": os.getpgid(0), "sid": os.getsid(0), "ppid": os.getppid(),
        "grandchildren": grandchildren,
        "env": {k: os.environ[k] for k in VARIABLES if k in os.environ},
    }
    tmp = seen / f".{name}.tmp"
    tmp.write_text(json.dumps(record))
    tmp.replace(seen / f"{name}.json")
    print(f"hello from {name}")
    for i in range(args.lines):
        print(f"{name} line {i} " + name[0] * 300)
    if args.no_newline:
        print(f"{name} no newline", end="")
    sys.stdout.flush()
    (seen / f"{name}.printed").touch()

    if is_master:
        deadline = time.monotonic() + 60
        while len(list(seen.glob("*.printed"))) < args.expect and time.monotonic() < deadline:
            time.sleep(0.05)
        others = [pid for p in seen.glob("*.json") if p.stem != name
                  for r in [json.loads(p.read_text())]
                  for pid in (r["pid"], r["ppid"]) if pid != os.getppid()]
        while args.after_exits and any(map(_exists, others)) and time.monotonic() < deadline:
            time.sleep(0.05)
        if args.master == "sleep":
            time.sleep(600)
        return args.master_exit
    if args.others == "exit":
        return args.others_exit
    time.sleep(600)
    return 0


def _daemon() -> int:
    """Start a process as daemonizing libraries do (fork, setsid, fork, the middle one exits):
    an orphan in a session of its own that still holds stdout. Returns its pid."""
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(read)
        os.setsid()
        if os.fork() == 0:
            os.write(write, str(os.getpid()).encode())
            os.close(write)
            time.sleep(600)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        pid = int(pipe.read())
    os.waitpid(middle, 0)
    return pid


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())

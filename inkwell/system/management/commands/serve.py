"""`manage.py serve`: the API (gunicorn, threaded workers) with a Celery worker and its scheduler (beat) beside it.

This is what `make run` starts: one command, no extra service. The processes are supervised
together, in every order of death: when one exits (even killed), every process group serve
started is stopped, with whatever its leader left behind; Ctrl-C or SIGTERM
stops them all; and when serve itself is killed, the kernel sends each child SIGTERM
(``PR_SET_PDEATHSIG``), so nothing keeps running without its supervisor. A second beat on the
same schedule refuses to start (``inkwell.celery.hold_the_only_beat_lock``).
"""

import ctypes
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

STOP_GRACE_SECONDS = 10
PR_SET_PDEATHSIG = 1


def _stop_with_parent() -> None:
    """In the child, before it runs: SIGTERM when serve dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


class Command(BaseCommand):
    help = "Serve the API with gunicorn and run a Celery worker and the beat scheduler beside it."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--web-workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2")))
        parser.add_argument("--web-threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")))
        parser.add_argument("--worker-concurrency", type=int, default=int(os.environ.get("WORKER_CONCURRENCY", "2")))
        parser.add_argument("--no-worker", action="store_true", help="serve the API only (workers run elsewhere)")
        parser.add_argument(
            "--setup", action="store_true", help="first migrate, create the cache table and load the demo library if it is empty (`make run`)"
        )

    def handle(self, *args, host, port, web_workers, web_threads, worker_concurrency, no_worker, setup, **options):
        if setup:
            # In this process rather than as three more commands: each would start Python and
            # import the whole project again, which is most of a first start's wait.
            call_command("migrate", interactive=False, verbosity=0)
            call_command("createcachetable")
            call_command("import_keywords", demo=True, if_empty=True, no_progress=True)
        commands = {
            # Threaded workers (gthread): measured against sync workers and uvicorn with
            # bench/light_endpoints.py, they served the most requests (docs/benchmarks.md, "Light authenticated endpoints").
            "web": [
                sys.executable, "-m", "gunicorn", "inkwell.wsgi",
                "--bind", f"{host}:{port}", "--workers", str(web_workers),
                "--worker-class", "gthread", "--threads", str(web_threads), "--access-logfile", "-",
            ],
        }
        if not no_worker:
            commands["worker"] = [
                sys.executable, "-m", "celery", "-A", "inkwell", "worker",
                "--pool", "threads", "--concurrency", str(worker_concurrency), "--loglevel", "INFO",
            ]
            # Its own process rather than the worker's --beat child: supervised like the others,
            # so that a killed worker cannot leave a beat running unseen.
            commands["beat"] = [
                sys.executable, "-m", "celery", "-A", "inkwell", "beat",
                "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME, "--loglevel", "INFO",
            ]
        # preexec_fn is safe here: serve starts no thread before its children.
        processes = {name: subprocess.Popen(command, start_new_session=True, preexec_fn=_stop_with_parent) for name, command in commands.items()}
        self.stdout.write(f"Inkwell API on http://{host}:{port}/api/v1/ (docs: http://{host}:{port}/api/docs/)")

        stopping = False

        def request_stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        exit_code = 0
        while not stopping:
            for name, process in processes.items():
                if process.poll() is not None:
                    self.stderr.write(f"{name} exited with {process.returncode}; stopping")
                    exit_code = process.returncode or 1
                    stopping = True
            time.sleep(0.5)
        self._stop_all(processes)
        if exit_code:
            sys.exit(exit_code)

    @staticmethod
    def _stop_all(processes: dict[str, subprocess.Popen]) -> None:
        """Every group, not only those whose leader still runs: a killed leader can leave children
        behind in its group (gunicorn's workers)."""
        for process in processes.values():
            _signal_group(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline and any(_group_alive(process.pid) for process in processes.values()):
            for process in processes.values():
                process.poll()  # reaps a leader that has exited, so its group can empty
            time.sleep(0.1)
        for process in processes.values():
            _signal_group(process.pid, signal.SIGKILL)
            process.wait()

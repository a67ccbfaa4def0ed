"""`manage.py serve`: the API (gunicorn, threaded workers) with a Celery worker and its scheduler beside it.

This is what `make run` starts: one command, no extra service. The processes are supervised
together: when one exits the others are stopped, and Ctrl-C or SIGTERM stops them all.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

STOP_GRACE_SECONDS = 10


class Command(BaseCommand):
    help = "Serve the API with gunicorn and run a Celery worker with the embedded beat scheduler."

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
                sys.executable, "-m", "celery", "-A", "inkwell", "worker", "--beat",
                "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME,
                "--pool", "threads", "--concurrency", str(worker_concurrency), "--loglevel", "INFO",
            ]
        processes = {name: subprocess.Popen(command, start_new_session=True) for name, command in commands.items()}
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
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for process in processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)

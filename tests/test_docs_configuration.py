"""docs/configuration.md names every environment variable Inkwell reads, so that the page stays the
complete list: a variable added to the code without a line in that table fails here."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGURATION = ROOT / "docs" / "configuration.md"
ENVIRONMENT_READ = re.compile(r"""(?:env_(?:str|bool|int|float|list)|os\.environ\.get|os\.getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']""")


def variables_read_by_the_code() -> set[str]:
    sources = [path for path in (ROOT / "inkwell").rglob("*.py") if "tests" not in path.parts]
    return {name for path in sources for name in ENVIRONMENT_READ.findall(path.read_text())}


def test_every_environment_variable_the_code_reads_is_documented():
    read = variables_read_by_the_code()
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]*)`", CONFIGURATION.read_text()))
    assert {"DATABASE_URL", "REDIS_URL", "WEB_THREADS", "WORKER_METRICS_ADDRESS"} <= read
    assert sorted(read - documented) == [], "docs/configuration.md leaves out variables the code reads"

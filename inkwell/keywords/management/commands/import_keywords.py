from django.core.management.base import BaseCommand, CommandError

from inkwell.keywords import importer


def _plain(text: str) -> str:
    return text  # the progress bar goes to stderr, which Django would colour as an error


class Command(BaseCommand):
    help = (
        "Import seed keywords from a CSV file into the keywords library: streamed, validated row by row, "
        "upserted in batches on (keyword, country, industry sector), so re-importing is safe. "
        "Columns: keyword,volume,difficulty,country,industry,sector,is_high_opportunity,is_paid,credit_cost "
        "(or industry_sector_id instead of industry,sector)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="the CSV file (UTF-8, header row required)")
        parser.add_argument("--demo", action="store_true", help="import the demo library shipped with Inkwell instead of FILE")
        parser.add_argument("--if-empty", action="store_true", help="do nothing when the library already has keywords")
        parser.add_argument("--dry-run", action="store_true", help="validate and count without writing anything")
        parser.add_argument(
            "--batch-size",
            type=int,
            default=importer.DEFAULT_BATCH_SIZE,
            help=f"rows per transaction (1..{importer.MAX_BATCH_SIZE:,}; default {importer.DEFAULT_BATCH_SIZE:,})",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (it is also off when stderr is not a terminal)")

    def handle(self, *args, file=None, demo=False, if_empty=False, dry_run=False, batch_size=None, no_progress=False, **options):
        if demo == bool(file):
            raise CommandError("give either a CSV file or --demo" if not demo else "give a CSV file or --demo, not both")
        if not 1 <= batch_size <= importer.MAX_BATCH_SIZE:
            raise CommandError(f"--batch-size must be between 1 and {importer.MAX_BATCH_SIZE:,}")
        path = importer.DEMO_CSV if demo else file
        name = "the demo library" if demo else str(file)

        if if_empty and not importer.library_is_empty():
            self.stdout.write(f"The keywords library already has keywords: {name} not imported (--if-empty).")
            return

        show_progress = not no_progress and self.stderr.isatty() and options.get("verbosity", 1) > 0
        try:
            result = importer.import_file(path, batch_size=batch_size, dry_run=dry_run, progress=self._progress if show_progress else None)
        except importer.ImportFileError as error:
            raise CommandError(f"{name}: {error}") from None
        finally:
            if show_progress:
                self.stderr.write("", ending="\n", style_func=_plain)
        for line in importer.format_summary(result, name):
            self.stdout.write(line)

    def _progress(self, done: int, total: int, rows: int) -> None:
        width = 30
        fraction = min(1.0, done / total) if total else 0.0
        filled = round(fraction * width)
        bar = "#" * filled + "." * (width - filled)
        self.stderr.write(f"\r[{bar}] {fraction:4.0%} {rows:,} rows", ending="", style_func=_plain)
        self.stderr.flush()

"""Record the OpenAPI descriptions' examples: one real exchange per operation."""

from __future__ import annotations

import json
import tempfile
from io import StringIO
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import (
    override_settings,
    setup_databases,
    setup_test_environment,
    teardown_databases,
    teardown_test_environment,
)

from common.api.examples import DESCRIPTIONS, data_file, recorded
from common.api.examples.recipes import RECIPES, default_actor
from common.api.examples.recorder import Recorder, stand_in_network

LOCAL_MEMORY = "django.core.cache.backends.locmem.LocMemCache"
ABOUT = (
    "Examples of the OpenAPI description, by operationId: recorded by `manage.py "
    "record_api_examples` (common.api.examples), or written by hand (source hand-written)."
)


class Command(BaseCommand):
    help = (
        "Call every operation of the API descriptions on the demo data, in a throwaway test "
        "database, and keep each one's request body, success answer and an error answer as "
        "the descriptions' examples (common/api/examples/data/<description>.json)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--only",
            nargs="+",
            choices=list(DESCRIPTIONS),
            help="Record these descriptions only (the others' files are left as they are).",
        )
        parser.add_argument(
            "--operation",
            nargs="+",
            default=[],
            metavar="OPERATION_ID",
            help="Record these operations only; the other recorded ones are kept. The run "
            "still calls the operations they depend on, without keeping their answers.",
        )

    def handle(self, *args, only, operation, **options):
        if not settings.DEBUG:
            raise CommandError(
                "record_api_examples seeds the demo (public passwords) in a throwaway "
                "database; run it with the development configuration (DEBUG=1)."
            )
        if settings.CELERY_BROKER_URL != "memory://":
            # A task it holds back (to cancel a running job) must not reach a real worker.
            raise CommandError("Run record_api_examples without REDIS_URL (the embedded setup).")
        setup_test_environment()
        databases = setup_databases(verbosity=0, interactive=False, keepdb=False)
        eager = current_app.conf.task_always_eager
        current_app.conf.task_always_eager = True
        try:
            with (
                tempfile.TemporaryDirectory() as files,
                override_settings(
                    MEDIA_ROOT=str(Path(files) / "media"),
                    HR_DOCUMENTS_ROOT=Path(files) / "hr-documents",
                    CACHES={"default": {"BACKEND": LOCAL_MEMORY}},
                ),
            ):
                recorder = self.record(only, operation)
        finally:
            current_app.conf.task_always_eager = eager
            teardown_databases(databases, verbosity=0)
            teardown_test_environment()
        self.write(recorder)
        if recorder.failures:
            for line in recorder.failures:
                self.stderr.write(f"  {line}")
            raise CommandError(
                f"{len(recorder.failures)} operations not recorded (their earlier recordings, "
                "if any, are kept): see above."
            )

    def record(self, only, operation) -> Recorder:
        call_command("seed_demo", force=True, stdout=StringIO())
        mail.outbox.clear()
        cache.clear()
        recorder = Recorder(
            recipes=RECIPES,
            only=only,
            log=self.stdout.write,
            default_actor=default_actor,
        )
        with stand_in_network():
            recorder.setup_callers()
            recorder.load_descriptions()
            recorder.run()
        if operation:
            wanted = set(operation)
            for entries in recorder.results.values():
                for operation_id in list(entries):
                    if operation_id not in wanted:
                        del entries[operation_id]
        return recorder

    def write(self, recorder: Recorder) -> None:
        """Each description's file: this run's recordings, and the earlier ones of operations
        it did not record (a hand-written one, one left out with --operation, one that failed)
        while the description still has them."""
        for name, document in recorder.documents.items():
            recorded.cache_clear()
            described = {
                operation["operationId"]
                for item in document["paths"].values()
                for operation in item.values()
                if isinstance(operation, dict) and "operationId" in operation
            }
            fresh = recorder.results[name]
            kept = {
                key: entry
                for key, entry in recorded(name).items()
                if key in described and key not in fresh
            } | fresh
            text = json.dumps(
                {"about": ABOUT, "operations": {key: kept[key] for key in sorted(kept)}},
                indent=1,
                ensure_ascii=False,
            )
            path = data_file(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n", encoding="utf-8")
            self.stdout.write(f"{name}: {len(fresh)} operations recorded, {len(kept)} kept")

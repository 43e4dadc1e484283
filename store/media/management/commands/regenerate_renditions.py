from django.core.management.base import BaseCommand

from store.media import services
from store.media.models import MediaImage


class Command(BaseCommand):
    help = "Make the renditions of store images again (after changing sizes, formats or quality)."

    def create_parser(self, prog_name, subcommand, **kwargs):
        """Options may also stand between the ids (`regenerate_renditions 1 -v 0 2`)."""
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.parse_args = parser.parse_intermixed_args
        return parser

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", type=int, help="Image ids (default: all).")

    def handle(self, *args, ids, **options):
        queryset = MediaImage.objects.order_by("pk")
        if ids:
            queryset = queryset.filter(pk__in=ids)
        done = failed = 0
        for image in queryset.iterator():
            try:
                services.media_regenerate_renditions(image=image)
                done += 1
            except OSError as exc:  # a missing or unreadable original: report, go on
                failed += 1
                self.stderr.write(f"image {image.pk}: {exc}")
        self.stdout.write(f"{done} image(s) re-rendered, {failed} failed.")
        if failed:
            raise SystemExit(1)

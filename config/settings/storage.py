"""Static files and uploaded media: on this machine's disk or in an S3-compatible store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from config.env import env_int, env_str
from config.settings.base import DEBUG, VAR_DIR

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
if DEBUG:  # collectstatic fills it in production; in development WhiteNoise only needs it to exist
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
# Uploaded files (product images, release files, employee documents): on this machine's disk
# (MEDIA_STORAGE=filesystem, one machine) or in an S3-compatible store (MEDIA_STORAGE=s3,
# django-storages) that every web process and worker shares. Files are private in the bucket;
# their URLs are signed and expire (AWS_QUERYSTRING_EXPIRE), except under a custom domain.
MEDIA_STORAGE = env_str("MEDIA_STORAGE", "filesystem").strip().lower()
if MEDIA_STORAGE not in ("filesystem", "s3"):
    raise ImproperlyConfigured(f"MEDIA_STORAGE must be 'filesystem' or 's3'; got {MEDIA_STORAGE!r}")
_media_storage: dict[str, Any]
_private_storage: dict[str, Any]
if MEDIA_STORAGE == "s3":
    _media_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("AWS_STORAGE_BUCKET_NAME"),
            "endpoint_url": env_str("AWS_S3_ENDPOINT_URL") or None,
            "region_name": env_str("AWS_S3_REGION_NAME") or None,
            "access_key": env_str("AWS_ACCESS_KEY_ID") or None,
            "secret_key": env_str("AWS_SECRET_ACCESS_KEY") or None,
            "custom_domain": env_str("AWS_S3_CUSTOM_DOMAIN") or None,
            "location": env_str("AWS_LOCATION", "media"),
            "default_acl": "private",
            "querystring_auth": True,
            "querystring_expire": env_int("AWS_QUERYSTRING_EXPIRE", 3600, minimum=60),
            "file_overwrite": False,
        },
    }
    if not _media_storage["OPTIONS"]["bucket_name"]:
        raise ImproperlyConfigured("MEDIA_STORAGE is 's3' but AWS_STORAGE_BUCKET_NAME is unset.")
    # Private files (employee documents): the same bucket under their own prefix, always
    # signed URLs and never a custom (public) domain; served only through authorised routes.
    _private_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            **_media_storage["OPTIONS"],
            "location": env_str("AWS_PRIVATE_LOCATION", "private"),
            "custom_domain": None,
            "querystring_auth": True,
        },
    }
else:
    _media_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _media_storage,
    **({"private": _private_storage} if MEDIA_STORAGE == "s3" else {}),
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

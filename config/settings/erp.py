"""The ERP: its licence gate, invoicing's tax authority (myDATA), HR's documents and hours, and
the labor registry (ERGANI)."""

from __future__ import annotations

from pathlib import Path

from config.env import env_int, env_str
from config.settings.base import VAR_DIR

# The store's licence (a licence of this service) that lets it run the ERP before any
# POST /erp/activate names one, and how long the gate trusts its last verdict.
ERP_LICENSE_KEY = env_str("ERP_LICENSE_KEY")
ERP_LICENSE_CACHE_SECONDS = env_int("ERP_LICENSE_CACHE_SECONDS", 60, minimum=1)
# ERP invoicing: Greece's myDATA (AADE) REST API, its development and production base URLs (the
# settings route picks one) and the time one call may take.
MYDATA_DEV_URL = env_str("MYDATA_DEV_URL", "https://mydataapidev.aade.gr")
MYDATA_PROD_URL = env_str("MYDATA_PROD_URL", "https://mydatapi.aade.gr/myDATA")
MYDATA_HTTP_TIMEOUT = env_int("MYDATA_HTTP_TIMEOUT", 20, minimum=1)
# ERP HR: employee documents live outside MEDIA_ROOT (never served publicly; read through the
# authorised download routes), at most this many MB, of a type checked by content; a day's time
# entries add up to at most this many hours. The labor registry: Greece's ERGANI API, its trial
# and production base URLs (the settings route picks one) and one call's time.
HR_DOCUMENTS_ROOT = Path(env_str("HR_DOCUMENTS_ROOT", str(VAR_DIR / "private" / "hr-documents")))
HR_DOCUMENT_MAX_MB = env_int("HR_DOCUMENT_MAX_MB", 10, minimum=1)
HR_MAX_HOURS_PER_DAY = env_int("HR_MAX_HOURS_PER_DAY", 12, minimum=1)
ERGANI_TRIAL_URL = env_str("ERGANI_TRIAL_URL", "https://trialeservices.yeka.gr/WebServicesAPI/api")
ERGANI_PROD_URL = env_str("ERGANI_PROD_URL", "https://eservices.yeka.gr/WebServicesAPI/api")
ERGANI_HTTP_TIMEOUT = env_int("ERGANI_HTTP_TIMEOUT", 20, minimum=1)

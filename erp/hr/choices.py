from django.db import models


class EmploymentType(models.TextChoices):
    FULL_TIME = "full_time", "Full time"
    PART_TIME = "part_time", "Part time"
    TEMPORARY = "temporary", "Temporary (fixed term)"
    INTERN = "intern", "Intern"
    CONTRACTOR = "contractor", "Contractor"


class LeaveStatus(models.TextChoices):
    """pending -> approved | rejected; pending or approved -> cancelled."""

    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    CANCELLED = "cancelled", "Cancelled"


HOLDING = (LeaveStatus.PENDING, LeaveStatus.APPROVED)  # what blocks the dates


class DocumentKind(models.TextChoices):
    CONTRACT = "contract", "Contract"
    IDENTITY = "identity", "Identity document"
    CERTIFICATE = "certificate", "Certificate"
    PAYSLIP = "payslip", "Payslip"
    OTHER = "other", "Other"


class SubmissionKind(models.TextChoices):
    HIRING = "hiring", "Hiring"
    TERMINATION = "termination", "Termination"
    WORKING_TIME = "working_time", "Working-time change"


class SubmissionStatus(models.TextChoices):
    """pending -> sent (a protocol number) | rejected (reasons) | failed (unreachable after the
    retries, or credentials refused); rejected and failed may be retried."""

    PENDING = "pending", "Pending"
    SENT = "sent", "Sent"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed"


class RegistryProvider(models.TextChoices):
    SANDBOX = "sandbox", "Sandbox (local)"
    ERGANI = "ergani", "ERGANI (Greece)"


class ErganiEnvironment(models.TextChoices):
    TRIAL = "trial", "Trial"
    PRODUCTION = "production", "Production"


class TerminationReason(models.TextChoices):
    RESIGNATION = "resignation", "Resignation"
    DISMISSAL = "dismissal", "Dismissal (with notice)"

"""The CRM's fixed choices: lead stages (an ordered pipeline), activity kinds, lead sources,
segment targets and the RFM labels."""

from __future__ import annotations

from django.db import models


class LeadStage(models.TextChoices):
    """The pipeline, in its order: new -> qualified -> proposition -> negotiation, then won or
    lost (terminal: a closed lead moves no more). Fixed, as Odoo's default CRM stages."""

    NEW = "new", "New"
    QUALIFIED = "qualified", "Qualified"
    PROPOSITION = "proposition", "Proposition"
    NEGOTIATION = "negotiation", "Negotiation"
    WON = "won", "Won"
    LOST = "lost", "Lost"


STAGE_ORDER = tuple(LeadStage.values)
OPEN_STAGES = (
    LeadStage.NEW,
    LeadStage.QUALIFIED,
    LeadStage.PROPOSITION,
    LeadStage.NEGOTIATION,
)
CLOSED_STAGES = (LeadStage.WON, LeadStage.LOST)
#: The probability (%) a lead takes when it enters a stage without one given.
STAGE_PROBABILITY = {
    LeadStage.NEW: 10,
    LeadStage.QUALIFIED: 30,
    LeadStage.PROPOSITION: 60,
    LeadStage.NEGOTIATION: 80,
    LeadStage.WON: 100,
    LeadStage.LOST: 0,
}


class LeadSource(models.TextChoices):
    WEBSITE = "website", "Website"
    REFERRAL = "referral", "Referral"
    EMAIL = "email", "E-mail campaign"
    PHONE = "phone", "Phone"
    EVENT = "event", "Event"
    SOCIAL = "social", "Social media"
    PARTNER = "partner", "Partner"
    OTHER = "other", "Other"


class ActivityKind(models.TextChoices):
    CALL = "call", "Call"
    MEETING = "meeting", "Meeting"
    TASK = "task", "Task"
    EMAIL = "email", "E-mail"


class SegmentTarget(models.TextChoices):
    CONTACTS = "contacts", "CRM contacts"
    CUSTOMERS = "customers", "Store customers"


class RfmLabel(models.TextChoices):
    CHAMPIONS = "champions", "Champions"
    LOYAL = "loyal", "Loyal"
    POTENTIAL_LOYALISTS = "potential_loyalists", "Potential loyalists"
    NEW = "new", "New customers"
    PROMISING = "promising", "Promising"
    NEED_ATTENTION = "need_attention", "Need attention"
    AT_RISK = "at_risk", "At risk"
    CANT_LOSE = "cant_lose", "Can't lose them"
    HIBERNATING = "hibernating", "Hibernating"
    LOST = "lost", "Lost"

"""CRM reads: pages of contacts, leads, activities and segments (each in a fixed number of
queries whatever its length), the pipeline, the dashboard, a segment's members and the RFM
scores (SQL aggregates and window functions, never a loop over rows)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, NamedTuple

from django.db.models import (
    Count,
    DecimalField,
    F,
    Max,
    Min,
    Prefetch,
    Q,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, PercentRank, Replace
from django.utils import timezone

from erp.crm import rfm_cache, rollups, segments
from erp.crm.choices import CLOSED_STAGES, OPEN_STAGES, STAGE_ORDER, LeadStage, RfmLabel
from erp.crm.models import Activity, Contact, CustomerRfm, Lead, LeadStageChange, Segment
from store.common.errors import not_found
from store.common.pagination import Page, paginate
from store.customers.models import Customer

ZERO = Decimal("0.00")


def _words(search: str) -> list[str]:
    return [word for word in search.split() if word][:10]


def _ordering(query: dict, default: str) -> list[str]:
    order = query.get("ordering") or default
    return [order, "-id" if order.startswith("-") else "id"]


# --- Contacts -----------------------------------------------------------------------------------

CONTACT_ORDERINGS = ("name", "-name", "company", "-company", "created_at", "-created_at")


def _contacts():
    return Contact.objects.select_related("owner", "customer").annotate(
        lead_count=Count("leads", distinct=True),
        open_activity_count=Count("activities", filter=Q(activities__done=False), distinct=True),
    )


def _phone_digits():
    """The phone without the separators a number is typed with (spaces, dashes, dots, slashes,
    brackets), so "2079460958" finds "+44 20 7946 0958"."""
    expression = F("phone")
    for separator in (" ", "-", ".", "/", "(", ")"):
        expression = Replace(expression, Value(separator), Value(""))
    return expression


def contact_page(query: dict) -> Page:
    """`search` (each word in the name, e-mail, company or phone, a number also in the phone's
    digits), `country`, `owner_id`,
    `company`, `is_customer`; ordered by `ordering`."""
    rows = Contact.objects.all()
    words = _words(query.get("search") or "")
    if words:
        rows = rows.annotate(phone_digits=_phone_digits())
    for word in words:
        matched = (
            Q(name__icontains=word)
            | Q(email__icontains=word)
            | Q(company__icontains=word)
            | Q(phone__icontains=word)
        )
        digits = "".join(ch for ch in word if ch.isdigit())
        if len(digits) >= 3 and len(digits) >= len(word) - 1:  # a number, maybe with a +
            matched |= Q(phone_digits__contains=digits)
        rows = rows.filter(matched)
    if query.get("country"):
        rows = rows.filter(country=query["country"])
    if query.get("owner_id"):
        rows = rows.filter(owner_id=query["owner_id"])
    if query.get("company"):
        rows = rows.filter(company__iexact=query["company"])
    if query.get("is_customer") is not None:
        rows = rows.filter(customer__isnull=not query["is_customer"])
    ids = rows.order_by(*_ordering(query, "name"))
    page = paginate(
        ids.values_list("pk", flat=True), page=query["page"], per_page=query["per_page"]
    )
    found = {c.pk: c for c in _contacts().filter(pk__in=page.items)}
    page.items = [found[pk] for pk in page.items if pk in found]
    return page


def contact_get(contact_id: int) -> Contact:
    contact = _contacts().filter(pk=contact_id).first()
    if contact is None:
        raise not_found("contact", contact_id)
    return contact


# --- Leads --------------------------------------------------------------------------------------

LEAD_ORDERINGS = (
    "created_at",
    "-created_at",
    "value",
    "-value",
    "expected_close_date",
    "-expected_close_date",
    "title",
    "-title",
)


def _leads():
    return Lead.objects.select_related("contact", "owner")


def lead_page(query: dict) -> Page:
    """Newest first by default; `stage` (one or several), `open` (true: open stages, false:
    won or lost), `owner_id`, `contact_id`, `source`, `currency`, `search` (title, person,
    company, e-mail), `close_from`/`close_to` (expected close date)."""
    rows = _leads()
    if query.get("stage"):
        rows = rows.filter(stage__in=query["stage"])
    if query.get("open") is not None:
        rows = rows.filter(stage__in=OPEN_STAGES if query["open"] else CLOSED_STAGES)
    for name in ("owner_id", "contact_id", "source"):
        if query.get(name):
            rows = rows.filter(**{name: query[name]})
    if query.get("currency"):
        rows = rows.filter(currency=query["currency"].upper())
    if query.get("close_from"):
        rows = rows.filter(expected_close_date__gte=query["close_from"])
    if query.get("close_to"):
        rows = rows.filter(expected_close_date__lte=query["close_to"])
    for word in _words(query.get("search") or ""):
        rows = rows.filter(
            Q(title__icontains=word)
            | Q(contact_name__icontains=word)
            | Q(company__icontains=word)
            | Q(email__icontains=word)
            | Q(contact__name__icontains=word)
        )
    rows = rows.order_by(*_ordering(query, "-created_at"))
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def lead_get(lead_id: int) -> Lead:
    """One lead with its contact, owner and stage history."""
    lead = (
        _leads()
        .prefetch_related(
            Prefetch(
                "stage_changes",
                queryset=LeadStageChange.objects.select_related("changed_by").order_by(
                    "changed_at", "id"
                ),
            )
        )
        .filter(pk=lead_id)
        .first()
    )
    if lead is None:
        raise not_found("lead", lead_id)
    return lead


def pipeline(query: dict) -> list[dict]:
    """Every stage in its order with its lead count and, per currency, the summed value and
    the value weighted by probability: one aggregate query (grouped by stage and currency).
    `owner_id` narrows it to one salesperson's leads."""
    rows = Lead.objects.all()
    if query.get("owner_id"):
        rows = rows.filter(owner_id=query["owner_id"])
    grouped = (
        rows.values("stage", "currency")
        .annotate(
            count=Count("id"),
            total_value=Sum("value"),
            weighted=Sum(F("value") * F("probability"), output_field=DecimalField()),
        )
        .order_by("stage", "currency")
    )
    stages = {stage: {"stage": stage, "count": 0, "totals": []} for stage in STAGE_ORDER}
    for row in grouped:
        entry = stages[row["stage"]]
        entry["count"] += row["count"]
        entry["totals"].append(
            {
                "currency": row["currency"],
                "value": row["total_value"] or ZERO,
                "weighted_value": (Decimal(row["weighted"] or 0) / 100).quantize(ZERO),
            }
        )
    return [
        {**stages[stage], "label": LeadStage(stage).label, "closed": stage in CLOSED_STAGES}
        for stage in STAGE_ORDER
    ]


# --- Activities ---------------------------------------------------------------------------------

ACTIVITY_ORDERINGS = ("due_at", "-due_at", "created_at", "-created_at")


def _activities():
    return Activity.objects.select_related("contact", "lead", "assigned_to")


def activity_page(query: dict, *, when: str = "") -> Page:
    """Due first by default; `kind` (one or several), `done`, `contact_id`, `lead_id`,
    `assigned_to_id`, `due_from`/`due_to` (days, UTC). `when`: "upcoming" (not done, due from
    now to `days` ahead) or "overdue" (not done, due before now)."""
    rows = _activities()
    now = timezone.now()
    if when == "upcoming":
        rows = rows.filter(
            done=False, due_at__gte=now, due_at__lt=now + dt.timedelta(days=query["days"])
        )
    elif when == "overdue":
        rows = rows.filter(done=False, due_at__lt=now)
    if query.get("kind"):
        rows = rows.filter(kind__in=query["kind"])
    if query.get("done") is not None:
        rows = rows.filter(done=query["done"])
    for name in ("contact_id", "lead_id", "assigned_to_id"):
        if query.get(name):
            rows = rows.filter(**{name: query[name]})
    if query.get("due_from"):
        rows = rows.filter(due_at__gte=_day_start(query["due_from"]))
    if query.get("due_to"):
        rows = rows.filter(due_at__lt=_day_start(query["due_to"]) + dt.timedelta(days=1))
    rows = rows.order_by(*_ordering(query, "due_at"))
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def activity_get(activity_id: int) -> Activity:
    activity = _activities().filter(pk=activity_id).first()
    if activity is None:
        raise not_found("activity", activity_id)
    return activity


def _day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


# --- Dashboard ----------------------------------------------------------------------------------


def dashboard(*, date_from: dt.date, date_to: dt.date) -> dict:
    """Counts of contacts, open leads and their value, leads won, lost and created in the
    period (UTC days, inclusive), and activities due: three aggregate queries."""
    start, end = _day_start(date_from), _day_start(date_to) + dt.timedelta(days=1)
    now = timezone.now()
    today_end = _day_start(now.date()) + dt.timedelta(days=1)
    contacts = Contact.objects.aggregate(
        total=Count("id"), customers=Count("id", filter=Q(customer__isnull=False))
    )
    in_period = Q(closed_at__gte=start, closed_at__lt=end)
    open_q = Q(stage__in=OPEN_STAGES)
    won_q = Q(stage=LeadStage.WON) & in_period
    lost_q = Q(stage=LeadStage.LOST) & in_period
    money = DecimalField(max_digits=14, decimal_places=2)
    by_currency = (
        Lead.objects.values("currency")
        .annotate(
            open=Count("id", filter=open_q),
            won=Count("id", filter=won_q),
            lost=Count("id", filter=lost_q),
            created=Count("id", filter=Q(created_at__gte=start, created_at__lt=end)),
            open_value=Coalesce(Sum("value", filter=open_q), Value(ZERO), output_field=money),
            weighted=Sum(F("value") * F("probability"), filter=open_q, output_field=DecimalField()),
            won_value=Coalesce(Sum("value", filter=won_q), Value(ZERO), output_field=money),
            lost_value=Coalesce(Sum("value", filter=lost_q), Value(ZERO), output_field=money),
        )
        .order_by("currency")
    )
    leads = {"open": 0, "won": 0, "lost": 0, "created": 0}
    values = []
    for row in by_currency:
        for key in leads:
            leads[key] += row[key]
        values.append(
            {
                "currency": row["currency"],
                "open_value": row["open_value"],
                "weighted_value": (Decimal(row["weighted"] or 0) / 100).quantize(ZERO),
                "won_value": row["won_value"],
                "lost_value": row["lost_value"],
            }
        )
    pending = Q(done=False)
    activities = Activity.objects.aggregate(
        overdue=Count("id", filter=pending & Q(due_at__lt=now)),
        due_today=Count("id", filter=pending & Q(due_at__gte=now, due_at__lt=today_end)),
        upcoming=Count(
            "id", filter=pending & Q(due_at__gte=now, due_at__lt=now + dt.timedelta(days=7))
        ),
        done_in_period=Count("id", filter=Q(done=True, done_at__gte=start, done_at__lt=end)),
    )
    return {
        "period": {"date_from": date_from, "date_to": date_to},
        "contacts": contacts,
        "leads": leads,
        "pipeline": values,
        "activities": activities,
    }


# --- Segments -----------------------------------------------------------------------------------


def segment_page(query: dict) -> Page:
    rows = Segment.objects.all()
    if query.get("target"):
        rows = rows.filter(target=query["target"])
    return paginate(rows.order_by("name", "id"), page=query["page"], per_page=query["per_page"])


def segment_get(segment_id: int) -> Segment:
    segment = Segment.objects.filter(pk=segment_id).first()
    if segment is None:
        raise not_found("segment", segment_id)
    return segment


def _paid(prefix: str = "") -> Q:
    """Orders that count as sales for the CRM (erp.crm.rollups.paid_q, the one rule)."""
    return rollups.paid_q(prefix)


def customers_with_figures():
    """Store customers (anonymised ones left out) with their paid orders' count, total and
    last date (`paid_order_count`, `paid_total`, `last_order_at`), as segments filter them."""
    paid = _paid("orders__")
    return Customer.objects.filter(anonymised_at__isnull=True).annotate(
        paid_order_count=Count("orders", filter=paid),
        paid_total=Coalesce(
            Sum("orders__total", filter=paid),
            Value(ZERO),
            output_field=DecimalField(max_digits=14, decimal_places=2),
        ),
        last_order_at=Max("orders__created_at", filter=paid),
    )


def segment_members(segment: Segment, query: dict) -> Page:
    """The contacts or customers a segment's rules select, by name (contacts) or e-mail
    (customers): a count and a page."""
    condition = segments.rules_q(segment.target, segment.rules)
    if segment.target == "contacts":
        ids = Contact.objects.filter(condition).order_by("name", "id").values_list("pk", flat=True)
        page = paginate(ids, page=query["page"], per_page=query["per_page"])
        found = {c.pk: c for c in _contacts().filter(pk__in=page.items)}
    else:
        ids = (customers_with_figures().filter(condition).order_by("email", "id")).values_list(
            "pk", flat=True
        )
        page = paginate(ids, page=query["page"], per_page=query["per_page"])
        found = {c.pk: c for c in customers_with_figures().filter(pk__in=page.items)}
    page.items = [found[pk] for pk in page.items if pk in found]
    return page


# --- RFM ----------------------------------------------------------------------------------------


#: The quintile thresholds of a percent rank: a score is 1 plus the thresholds reached.
QUINTILES = (0.2, 0.4, 0.6, 0.8)
#: The RFM grid: label -> ((lowest, highest) recency score, (lowest, highest) frequency
#: score). The cells partition the 5 x 5 grid (every pair of scores has one label).
RFM_GRID = {
    RfmLabel.CHAMPIONS: ((4, 5), (4, 5)),
    RfmLabel.LOYAL: ((3, 3), (4, 5)),
    RfmLabel.CANT_LOSE: ((1, 2), (4, 5)),
    RfmLabel.POTENTIAL_LOYALISTS: ((4, 5), (2, 3)),
    RfmLabel.NEW: ((5, 5), (1, 1)),
    RfmLabel.PROMISING: ((4, 4), (1, 1)),
    RfmLabel.NEED_ATTENTION: ((3, 3), (1, 3)),
    RfmLabel.AT_RISK: ((2, 2), (2, 3)),
    RfmLabel.HIBERNATING: ((2, 2), (1, 1)),
    RfmLabel.LOST: ((1, 1), (1, 3)),
}


#: The columns scored, by score name.
RFM_COLUMNS = {"recency": "last_order_at", "frequency": "frequency", "monetary": "monetary"}


class RfmRanking(NamedTuple):
    """What ranking a currency's customers takes, whatever their number: how many are
    ranked, per column the smallest value that reaches each quintile threshold (`bounds`: a
    row's score is 1 plus the bounds its value is at least; None: no row reaches it), and
    how many customers each label has."""

    total: int
    bounds: dict[str, tuple]
    labels: dict[str, int]


def rfm_score(rank: float) -> int:
    """1-5 from a percent rank (0..1): ties share the lower score."""
    return 1 + sum(rank >= threshold for threshold in QUINTILES)


def rfm_label(recency: int, frequency: int) -> str:
    """The label of a customer's recency and frequency scores (the usual RFM grid)."""
    for label, ((r_low, r_high), (f_low, f_high)) in RFM_GRID.items():
        if r_low <= recency <= r_high and f_low <= frequency <= f_high:
            return label
    raise ValueError(f"Scores out of range: {recency}, {frequency}")


def _ranked(currency: str):
    """The rollup rows RFM ranks: the customers with paid orders in `currency`."""
    return CustomerRfm.objects.filter(currency=currency, frequency__gt=0)


def rfm_rows(*, currency: str):
    """The definition of the scores, in SQL: per customer with paid orders in `currency`, the
    last order's time, the order count and the summed totals (the CustomerRfm rollup), and
    each one's percent rank among the customers (window functions), whose quintile is the
    score (`rfm_score`). Pages read `rfm_ranking` instead, which gives the same scores
    without ranking every customer (tests hold the two equal)."""
    return (
        _ranked(currency)
        .values("customer_id", "last_order_at", "frequency", "monetary")
        .annotate(
            r_rank=Window(PercentRank(), order_by=F("last_order_at").asc()),
            f_rank=Window(PercentRank(), order_by=F("frequency").asc()),
            m_rank=Window(PercentRank(), order_by=F("monetary").asc()),
        )
    )


def _rank_between(rank: str, low: int, high: int) -> Q:
    """The rows whose score of the percent rank `rank` is from `low` to `high`."""
    q = Q()
    if low > 1:
        q &= Q(**{f"{rank}__gte": QUINTILES[low - 2]})
    if high < 5:
        q &= Q(**{f"{rank}__lt": QUINTILES[high - 1]})
    return q


def _compute_ranking(currency: str) -> RfmRanking:
    """ONE query over the window functions (`rfm_rows`): the count, per column and threshold
    the smallest value whose percent rank reaches it, and each label's count.

    A percent rank grows with the value (equal values share it), so a row reaches a
    threshold exactly when its value is at least that smallest value: the scores, and the
    labels' conditions on them, become comparisons of the columns with those values."""
    ranks = {"recency": "r_rank", "frequency": "f_rank", "monetary": "m_rank"}
    steps = {
        f"{score}_{index}": Min(column, filter=Q(**{f"{ranks[score]}__gte": threshold}))
        for score, column in RFM_COLUMNS.items()
        for index, threshold in enumerate(QUINTILES)
    }
    labels = {
        f"label_{label}": Count(
            "customer_id",
            filter=_rank_between("r_rank", *RFM_GRID[label][0])
            & _rank_between("f_rank", *RFM_GRID[label][1]),
        )
        for label in RFM_GRID
    }
    found = rfm_rows(currency=currency).aggregate(total=Count("customer_id"), **steps, **labels)
    return RfmRanking(
        total=found["total"],
        bounds={
            score: tuple(found[f"{score}_{index}"] for index in range(len(QUINTILES)))
            for score in RFM_COLUMNS
        },
        labels={str(label): found[f"label_{label}"] for label in RFM_GRID},
    )


def rfm_ranking(currency: str) -> RfmRanking:
    """`currency`'s ranking, from the cache while the rollup's rows of that currency are
    unchanged (erp.crm.rfm_cache), else computed."""
    ranking: RfmRanking = rfm_cache.cached(currency, lambda: _compute_ranking(currency))
    return ranking


def _scores(row: dict[str, Any], ranking: RfmRanking) -> dict[str, int]:
    return {
        score: 1
        + sum(bound is not None and row[column] >= bound for bound in ranking.bounds[score])
        for score, column in RFM_COLUMNS.items()
    }


def _score_between(score: str, bounds: dict[str, tuple[Any, ...]], low: int, high: int) -> Q:
    """The rows whose `score` is from `low` to `high` (`bounds`: RfmRanking.bounds)."""
    column, steps = RFM_COLUMNS[score], bounds[score]
    q = Q()
    if low > 1:
        bound = steps[low - 2]
        q &= Q(**{f"{column}__gte": bound}) if bound is not None else Q(pk__in=[])
    if high < 5 and steps[high - 1] is not None:
        q &= Q(**{f"{column}__lt": steps[high - 1]})
    return q


def _label_q(label: str, bounds: dict[str, tuple[Any, ...]]) -> Q:
    (r_low, r_high), (f_low, f_high) = RFM_GRID[RfmLabel(label)]
    return _score_between("recency", bounds, r_low, r_high) & _score_between(
        "frequency", bounds, f_low, f_high
    )


RFM_ORDERINGS = ("monetary", "-monetary", "frequency", "-frequency", "recency", "-recency")


def rfm_page(query: dict[str, Any], *, currency: str) -> Page:
    """A page of customers' RFM figures and scores: the currency's ranking (the cache, else
    one query), the page's rows in the column's order (an index of the rollup: LIMIT
    and OFFSET, without ranking the others) and the page's customers."""
    ranking = rfm_ranking(currency)
    rows = _ranked(currency)
    if query.get("segment"):
        rows = rows.filter(_label_q(query["segment"], ranking.bounds))
        total = ranking.labels[query["segment"]]
    else:
        total = ranking.total
    order = query.get("ordering") or "-monetary"
    column = {"recency": "last_order_at"}.get(order.lstrip("-"), order.lstrip("-"))
    # recency ascending: the most recent first (fewest days since the last order)
    descending = order.startswith("-") != (order.lstrip("-") == "recency")
    rows = rows.order_by(F(column).desc() if descending else F(column).asc(), "customer_id")
    rows = rows.values("customer_id", "last_order_at", "frequency", "monetary")
    start = (query["page"] - 1) * query["per_page"]
    found = list(rows[start : start + query["per_page"]]) if start < total else []
    page = Page(items=found, page=query["page"], per_page=query["per_page"], total=total)
    customers = Customer.objects.in_bulk([row["customer_id"] for row in page.items])
    now = timezone.now()
    items = []
    for row in page.items:
        scores = _scores(row, ranking)
        items.append(
            {
                "customer": customers.get(row["customer_id"]),
                "customer_id": row["customer_id"],
                "last_order_at": row["last_order_at"],
                "days_since_last_order": max(0, (now - row["last_order_at"]).days),
                "frequency": row["frequency"],
                "monetary": row["monetary"],
                "currency": currency,
                "scores": scores,
                "segment": rfm_label(scores["recency"], scores["frequency"]),
            }
        )
    page.items = items
    return page

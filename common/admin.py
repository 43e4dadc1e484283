"""Admin building blocks: the site's names and its "View site" link, service refusals shown as
form errors or messages, admin actions recorded in the admin's History (ActionsInHistory), the
audit trail (read-only, and the inline that shows it on an audited row's page), and the CSV
export action of the admin lists. Also the staff views of the background machinery: the outbox
(what waits to be published) and the workers' heartbeats, read only (rows are written by the
services and the beat; the one action publishes waiting rows now, as the beat's drain does when
they are due)."""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Sequence

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.admin.utils import model_format_dict
from django.contrib.auth import get_permission_codename
from django.contrib.contenttypes.admin import GenericTabularInline
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models.signals import post_save
from django.http import HttpResponseRedirect
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.text import capfirst

from common import audit, outbox
from common.csv_export import Column, csv_response
from common.errors import ServiceError
from common.models import AuditEntry, OutboxMessage, WorkerHeartbeat

# --- The site ------------------------------------------------------------------------------------

admin.site.site_header = "Emporion"
admin.site.site_title = "Emporion"
admin.site.index_title = "Administration"
# "View site": the API's documentation (the site has no home page; its other pages need the
# token of an e-mail's link).
admin.site.site_url = reverse_lazy("api-docs")

# --- Service refusals ---------------------------------------------------------------------------


def refusal_text(exc: ServiceError) -> str:
    """A refusal in one line: each field's messages, or the detail."""
    if exc.errors:
        return "; ".join(f"{name}: {' '.join(msgs)}" for name, msgs in exc.errors.items())
    return exc.detail


def add_refusal(form, exc: ServiceError, fields: dict[str, str] | None = None) -> None:
    """Show a service's refusal on a form: each named parameter on its form field (`fields`
    maps a service's parameter to the field, e.g. category_ids -> categories; a parameter
    of a list, `attributes.0.term_ids`, goes to the field of `attributes`), the rest above
    the form."""
    fields = fields or {}
    if not exc.errors:
        form.add_error(None, exc.detail)
        return
    for name, msgs in exc.errors.items():
        target = fields.get(name) or fields.get(name.split(".", 1)[0]) or name
        text = " ".join(str(msg) for msg in msgs)
        if target in form.fields:
            form.add_error(target, text)
        else:
            form.add_error(None, f"{name}: {text}")


def for_each(modeladmin, request, ids, call, *, label: str) -> int:
    """An action's work: `call(pk)` for each id (a service call each), every refusal reported
    as an error message naming `label pk`; answers how many succeeded."""
    done = 0
    for pk in list(ids):
        try:
            call(pk)
        except ServiceError as exc:
            modeladmin.message_user(request, f"{label} {pk}: {refusal_text(exc)}", messages.ERROR)
        else:
            done += 1
    return done


# --- Actions in the admin's History -------------------------------------------------------------

# Shown with their values in a History entry; any other changed field is named only (a text
# field may hold a key, a token or a hash, and History is read by every member of staff who may
# view the row).
_VALUE_SHOWN = (
    models.BooleanField,
    models.IntegerField,
    models.DecimalField,
    models.FloatField,
    models.DateField,
    models.TimeField,
    models.DurationField,
)
_RUNNING = "_emporion_action_running"  # request attribute: an action of ActionsInHistory runs


class _Added:
    """The rows of `model` saved for the first time while an action runs."""

    def __init__(self, model) -> None:
        self.model = model
        self.rows: list[tuple[object, str]] = []


_added: contextvars.ContextVar[_Added | None] = contextvars.ContextVar(
    "admin_action_added", default=None
)


def _collect_added(sender, instance, created, **kwargs) -> None:
    added = _added.get()
    if created and added is not None and isinstance(instance, added.model):
        added.rows.append((instance.pk, str(instance)))


post_save.connect(_collect_added, weak=False, dispatch_uid="common.admin.actions_in_history")


def _tracked_fields(model) -> list:
    """The fields compared before and after an action: the stored ones but the key and the
    `auto_now` stamps (a save that changes nothing else is no change)."""
    return [
        field
        for field in model._meta.concrete_fields
        if not field.primary_key and not getattr(field, "auto_now", False)
    ]


def _row_values(obj, fields) -> tuple:
    return tuple(field.value_from_object(obj) for field in fields)


def _shown(field, value) -> str:
    if value is None or value == "":
        return "—"
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(field, models.BooleanField):
        return "yes" if value else "no"
    return str(value)


def describe_change(fields, before: tuple, after: tuple) -> list[str]:
    """One phrase per changed field: `Status: Pending → Cancelled` for a field whose value is
    safe to show (a choice, a flag, a number, a date), `Token changed` for any other."""
    phrases = []
    for field, old, new in zip(fields, before, after, strict=True):
        if old == new:
            continue
        name = capfirst(field.verbose_name)
        if field.choices or isinstance(field, _VALUE_SHOWN):
            phrases.append(f"{name}: {_shown(field, old)} → {_shown(field, new)}")
        else:
            phrases.append(f"{name} changed")
    return phrases


class ActionsInHistory:
    """A ModelAdmin mixin: what an action does to the rows shows in the admin's History (each
    row's History page and the index's "Recent actions"), as a form's save does.

    Each action that may change rows (every one but the view-only exports) is run between two
    readings of the selected rows: a row whose stored fields changed gets a "changed" entry
    naming the action and the fields (`Mark as cancelled: Status: Pending → Cancelled`), a row
    that is gone a "deleted" entry, and a row of the same model the action created (a copy, a
    credit note) an "added" one. A row the action refused or left as it was gets none, so the
    entries say what happened, whichever service did it and however (a save, a queryset
    update). Django's own delete action is recorded the same way, after the deletion, so a row
    whose deletion the service refused is not logged as deleted."""

    def get_actions(self, request):
        actions = super().get_actions(request)
        return {
            name: (_in_history(func, description), name, description)
            if _may_change(func)
            else (func, name, description)
            for name, (func, _name, description) in actions.items()
        }

    def log_deletions(self, request, queryset):
        if getattr(request, _RUNNING, False):
            return []  # the action's own entries follow, for the rows really deleted
        return super().log_deletions(request, queryset)

    def log_action_result(self, request, description: str, before: dict, added: list) -> int:
        """The History entries of an action from the rows as they were (`before`:
        pk -> (values, text)) and the rows it created; answers how many were written."""
        model = self.model
        fields = _tracked_fields(model)
        label = str(description % model_format_dict(self.opts))
        content_type = ContentType.objects.get_for_model(model, for_concrete_model=False)
        entries = []

        def entry(pk, text: str, flag: int, message: str) -> LogEntry:
            return LogEntry(
                user_id=request.user.pk,
                content_type=content_type,
                object_id=str(pk),
                object_repr=text[:200],
                action_flag=flag,
                change_message=message,
            )

        pks = list(before)
        found = {}
        for start in range(0, len(pks), 500):
            for obj in model._base_manager.filter(pk__in=pks[start : start + 500]):
                found[obj.pk] = obj
        for pk, (values, text) in before.items():
            obj = found.get(pk)
            if obj is None:
                entries.append(entry(pk, text, DELETION, f"{label}."))
                continue
            phrases = describe_change(fields, values, _row_values(obj, fields))
            if phrases:
                entries.append(entry(pk, str(obj), CHANGE, f"{label}: {'; '.join(phrases)}."))
        entries.extend(entry(pk, text, ADDITION, f"{label}.") for pk, text in added)
        LogEntry.objects.bulk_create(entries, batch_size=500)
        return len(entries)


def _may_change(func) -> bool:
    """Every action but those only a viewer may run (the exports)."""
    allowed = getattr(func, "allowed_permissions", None)
    return not allowed or not set(allowed) <= {"view"}


def _in_history(func, description: str):
    @functools.wraps(func)
    def run(modeladmin, request, queryset):
        fields = _tracked_fields(modeladmin.model)
        before = {
            obj.pk: (_row_values(obj, fields), str(obj))
            for obj in queryset.all().iterator(chunk_size=500)
        }
        added = _Added(modeladmin.model)
        token = _added.set(added)
        setattr(request, _RUNNING, True)
        try:
            return func(modeladmin, request, queryset)
        finally:
            setattr(request, _RUNNING, False)
            _added.reset(token)
            modeladmin.log_action_result(request, description, before, added.rows)

    return run


class ReadOnlyAdmin(ActionsInHistory, admin.ModelAdmin):
    """Rows written only by the services elsewhere: viewed here, never added, changed or
    deleted (what an action of the admin does to them shows in their History)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class RefusalsAsMessages:
    """A ModelAdmin mixin: a refusal no form check foresaw (a concurrent change won a race)
    is shown as an error message instead of a server error. The admin's add, change and delete
    views run in one transaction, so nothing of the refused request is kept."""

    def _refused(self, request, exc: ServiceError):
        self.message_user(request, refusal_text(exc), messages.ERROR)
        return HttpResponseRedirect(request.get_full_path())

    def changeform_view(self, request, *args, **kwargs):
        try:
            return super().changeform_view(request, *args, **kwargs)
        except ServiceError as exc:
            return self._refused(request, exc)

    def delete_view(self, request, *args, **kwargs):
        try:
            return super().delete_view(request, *args, **kwargs)
        except ServiceError as exc:
            return self._refused(request, exc)

    def changelist_view(self, request, *args, **kwargs):
        try:
            return super().changelist_view(request, *args, **kwargs)
        except ServiceError as exc:
            return self._refused(request, exc)


class ServiceForm(forms.ModelForm):
    """A model form checked by the service that saves it.

    `clean()` builds the service's fields from the form (every field when adding, the changed
    ones when changing; a relation in `ids` as its id, e.g. parent -> parent_id) and calls
    `check(fields)`, which raises the service's refusal; the refusal shows on the form's
    fields. The admin (ServiceAdmin) saves `checked_fields` through the service."""

    ids: dict[str, str] = {}  # form field -> the service's parameter holding its id
    params: dict[str, str] = {}  # other service parameters -> the form field showing them
    generated: tuple[str, ...] = ()  # fields the service makes when left empty (a slug)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.generated:
            if name in self.fields:
                self.fields[name].required = False
                self.fields[name].help_text = "Empty: made for you (as the API makes it)."

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _require_overrides(cls, ServiceForm, ("check",))

    def check(self, fields: dict) -> None:
        """The service's own validation of `fields`, raising its ServiceError (every
        subclass names it: a form without one is refused when its class is made)."""

    def service_fields(self) -> dict:
        creating = self.instance.pk is None
        fields = {}
        for name in self._meta.fields or ():
            if name not in self.cleaned_data or not (creating or name in self.changed_data):
                continue
            value = self.cleaned_data[name]
            if name in self.ids:
                fields[self.ids[name]] = value.pk if value is not None else None
            else:
                fields[name] = value
        return fields

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.checked_fields = self.service_fields()
            try:
                self.check(self.checked_fields)
            except ServiceError as exc:
                add_refusal(self, exc, {**{v: k for k, v in self.ids.items()}, **self.params})
        return cleaned


def _require_overrides(cls, base, names: tuple[str, ...]) -> None:
    """Refuse, at import, a subclass of `base` that leaves one of `names` to the base: an admin
    that would otherwise fail only when a member of staff first saves or deletes."""
    missing = [name for name in names if getattr(cls, name) is getattr(base, name)]
    if missing:
        raise TypeError(f"{cls.__name__} must define {', '.join(missing)} (see {base.__name__})")


class ServiceAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
    """A ModelAdmin whose form is a ServiceForm: adding, changing and deleting call the
    service (`create`, `update`, `remove`), never the model's save or delete."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _require_overrides(cls, ServiceAdmin, ("create", "update", "remove"))

    # The service calls; every subclass names all three (checked when its class is made).
    def create(self, request, fields: dict):
        """The service's create with `fields`; answers the new object."""

    def update(self, request, obj, fields: dict):
        """The service's update of `obj` with the changed `fields`; answers the object."""

    def remove(self, request, obj) -> None:
        """The service's delete (or archive) of `obj`."""

    def save_model(self, request, obj, form, change):
        fields = form.checked_fields
        saved = self.update(request, obj, fields) if change else self.create(request, fields)
        obj.pk = saved.pk
        obj._state.adding = False
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        # The service saved the row's own relations; only the inlines are left.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def delete_model(self, request, obj):
        self.remove(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            try:
                self.remove(request, obj)
            except ServiceError as exc:
                self.message_user(request, f"{obj}: {refusal_text(exc)}", messages.ERROR)


# --- CSV export ---------------------------------------------------------------------------------


def csv_export_action(
    columns: Sequence[Column],
    *,
    name: str,
    select_related: Sequence[str] = (),
    description: str = "Export selected to CSV",
):
    """An admin action answering the selected rows as a streamed CSV download
    (`<name>-<UTC time>.csv`), read from the database in chunks."""

    def export_csv(modeladmin, request, queryset):
        rows = queryset.select_related(*select_related).iterator(chunk_size=1000)
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        return csv_response(columns, rows, filename=f"{name}-{stamp}.csv")

    return admin.action(description=description, permissions=["view"])(export_csv)


# --- The audit trail ----------------------------------------------------------------------------


def _changes_html(entry: AuditEntry):
    return format_html_join(
        "", "<div>{}</div>", ((line,) for line in audit.describe(entry.changes))
    )


class AuditTrailInline(GenericTabularInline):
    """Who changed what on this row, newest first (written by the services)."""

    model = AuditEntry
    ct_field = "content_type"
    ct_fk_field = "object_id"
    verbose_name = "change"
    verbose_name_plural = "history (who changed what)"
    extra = 0
    can_delete = False
    fields = ["created_at", "actor_label", "via", "action", "what_changed", "note", "context"]
    readonly_fields = fields
    ordering = ["-created_at", "-id"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_view_permission(self, request, obj=None) -> bool:
        """Whoever may see the row may see its history."""
        opts = self.parent_model._meta
        return any(
            request.user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")
            for action in ("view", "change")
        )

    @admin.display(description="What changed")
    def what_changed(self, entry: AuditEntry):
        return _changes_html(entry)


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = [
        "created_at",
        "content_type",
        "object_repr",
        "action",
        "what_changed",
        "actor_label",
        "via",
        "note",
    ]
    list_filter = ["via", "content_type", "action"]
    search_fields = ["object_repr", "actor_label", "note", "=object_id"]
    list_select_related = ["content_type"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "created_at",
        "content_type",
        "object_id",
        "object_repr",
        "action",
        "what_changed",
        "actor",
        "actor_label",
        "via",
        "context",
        "note",
    ]
    fields = readonly_fields
    raw_id_fields = ["actor"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # the trail is kept as it was written

    @admin.display(description="What changed")
    def what_changed(self, entry: AuditEntry):
        return _changes_html(entry)


# --- Background machinery ---------------------------------------------------------------------


class WaitingFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("waiting", "Waiting"),
            ("sent", "Sent, not acknowledged"),
            ("done", "Done (acknowledged)"),
        ]

    def queryset(self, request, queryset):
        if self.value() == "waiting":
            return queryset.filter(sent_at__isnull=True)
        if self.value() == "sent":
            return queryset.filter(sent_at__isnull=False, acked_at__isnull=True)
        if self.value() == "done":
            return queryset.filter(acked_at__isnull=False)
        return queryset


@admin.register(OutboxMessage)
class OutboxMessageAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "task",
        "due_at",
        "sent_at",
        "acked_at",
        "attempts",
        "last_error",
        "created_at",
    ]
    list_filter = [WaitingFilter, "task"]
    search_fields = ["task", "dedupe_key"]
    exclude = ["payload"]  # encrypted arguments; never shown
    ordering = ["-id"]
    actions = ["publish_now"]

    @admin.action(description="Publish now (waiting rows, due or not)")
    def publish_now(self, request, queryset):
        waiting = queryset.filter(sent_at__isnull=True)
        waiting.filter(due_at__gt=timezone.now()).update(due_at=timezone.now())
        ids = list(waiting.values_list("pk", flat=True))
        sent = outbox.publish(ids)
        level = messages.SUCCESS if sent == len(ids) else messages.WARNING
        self.message_user(
            request, f"Published {sent} of {len(ids)} waiting task(s); the rest wait.", level
        )


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(ReadOnlyAdmin):
    list_display = ["hostname", "seen_at"]
    ordering = ["-seen_at"]

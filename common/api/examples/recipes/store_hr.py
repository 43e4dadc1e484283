"""The HR recipes: departments, employees, leave, time entries and documents, and an
employee's own ("me") routes.
"""

from __future__ import annotations

import datetime
import io

from common.api.examples.recipes.store_shared import first_list, recorded_id, st, store_prefix
from common.api.examples.recorder import (
    ACTION,
    CREATE,
    MULTIPART,
    Call,
    Recipe,
    Recorder,
    RecordingError,
    today,
)


def unfiled_employee(rec: Recorder) -> int:
    """An employee with no record that refers to them: hired while the labor registry does not
    file hirings on its own."""
    st(rec, "PUT", "/labor-registry/settings", {"auto_submit": False})
    try:
        made = st(
            rec,
            "POST",
            "/employees",
            {"first_name": "Alexis", "last_name": "Pappas", "hire_date": today().isoformat()},
        )
    finally:
        st(rec, "PUT", "/labor-registry/settings", {"auto_submit": True})
    return made["id"]


def pdf_document() -> bytes:
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    page.drawString(72, 720, "Employment contract")
    page.save()
    return out.getvalue()


def working_days(n: int) -> tuple[str, str]:
    """A Monday and Tuesday, the n-th pair from two weeks ahead."""
    start = today() + datetime.timedelta(days=14 + 7 * n)
    start -= datetime.timedelta(days=start.weekday())
    return start.isoformat(), (start + datetime.timedelta(days=1)).isoformat()


def leave_body(rec: Recorder, *, employee: bool = False) -> dict:
    rec.values["leave"] = rec.values.get("leave", -1) + 1
    start, end = working_days(rec.values["leave"])
    leave_type = first_list(st(rec, "GET", "/leave-types"))[0]["id"]
    body = {
        "leave_type_id": leave_type,
        "start_date": start,
        "end_date": end,
        "reason": "Family visit",
    }
    if employee:
        body["employee_id"] = rec.value("store", "employee_list_post", "id")
    return body


def time_body(offset: int = 1) -> dict:
    day = today() - datetime.timedelta(days=offset)
    return {
        "date": day.isoformat(),
        "start_time": "09:00:00",
        "end_time": "17:00:00",
        "note": "Packing orders.",
    }


def employee(rec: Recorder) -> int:
    return rec.value("store", "employee_list_post", "id")


def my_document(rec: Recorder) -> None:
    me = st(rec, "GET", "/hr/me")
    answer = rec.send(
        Call(
            "admin",
            store_prefix(rec) + "/employee-documents",
            "POST",
            None,
            {
                "employee_id": me["id"],
                "title": "Payslip, October",
                "kind": "payslip",
                "visible_to_employee": True,
            },
            MULTIPART,
            {"file": ("payslip-october.pdf", pdf_document(), "application/pdf")},
        )
    )
    if not answer.ok:
        raise RecordingError(f"uploading a document of mine: {answer.status} {answer.value}")
    rec.values["my_document"] = answer.value["id"]


HR_RECIPES: dict[str, Recipe] = {
    # HR.
    "department_list_post": Recipe(
        body={
            "name": "Customer service",
            "code": "support",
            "description": "E-mail and phone support.",
        }
    ),
    "leave_type_list_post": Recipe(
        body={
            "name": "Training leave",
            "code": "training",
            "yearly_allowance_days": 5,
            "paid": True,
        }
    ),
    "employee_list_post": Recipe(
        body=lambda rec, _p: {
            "first_name": "Giorgos",
            "last_name": "Nikolaou",
            "email": "giorgos.nikolaou@example.com",
            "job_title": "Warehouse assistant",
            "department_id": first_list(st(rec, "GET", "/departments"))[0]["id"],
            "hire_date": today().isoformat(),
            "employment_type": "full_time",
            "weekly_hours": "40.0",
            "salary": "1150.00",
        }
    ),
    "leave_request_list_post": Recipe(
        phase=CREATE + 1, body=lambda rec, _p: leave_body(rec, employee=True)
    ),
    "me_leave_post": Recipe(body=lambda rec, _p: leave_body(rec)),
    "leave_request_approve_post": Recipe(
        params={
            "request_id": lambda rec, _p: st(
                rec, "POST", "/leave-requests", leave_body(rec, employee=True)
            )["id"]
        },
        body={"note": "Enjoy the break."},
    ),
    "leave_request_reject_post": Recipe(
        params={
            "request_id": lambda rec, _p: st(
                rec, "POST", "/leave-requests", leave_body(rec, employee=True)
            )["id"]
        },
        body={"note": "Stocktake week: please pick other dates."},
    ),
    "leave_request_cancel_post": Recipe(
        params={
            "request_id": lambda rec, _p: st(
                rec, "POST", "/leave-requests", leave_body(rec, employee=True)
            )["id"]
        },
        body={"note": "Plans changed."},
    ),
    "time_entry_list_post": Recipe(
        phase=CREATE + 1, body=lambda rec, _p: {**time_body(0), "employee_id": employee(rec)}
    ),
    "me_time_entries_post": Recipe(body=lambda rec, _p: time_body(offset=2)),
    "time_entry_detail_put": Recipe(
        body=lambda rec, _p: {**time_body(0), "start_time": "08:30:00", "note": "Inventory count."}
    ),
    "time_entry_detail_patch": Recipe(body={"note": "Inventory count."}),
    "employee_document_list_post": Recipe(
        phase=CREATE + 1,
        media_type="multipart/form-data",
        body=lambda rec, _p: {
            "employee_id": employee(rec),
            "title": "Employment contract",
            "kind": "contract",
            "visible_to_employee": True,
        },
        files=lambda rec, _p: {"file": ("contract.pdf", pdf_document(), "application/pdf")},
    ),
    "employee_document_detail_get": Recipe(
        phase=ACTION + 1, params={"document_id": recorded_id("employee_document_list_post")}
    ),
    "employee_document_download_get": Recipe(
        phase=ACTION + 1, params={"document_id": recorded_id("employee_document_list_post")}
    ),
    "employee_document_detail_put": Recipe(
        phase=ACTION + 2,
        params={"document_id": recorded_id("employee_document_list_post")},
        body={"title": "Employment contract (signed)"},
    ),
    "employee_document_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"document_id": recorded_id("employee_document_list_post")},
        body={"visible_to_employee": False},
    ),
    "employee_document_detail_delete": Recipe(
        params={"document_id": recorded_id("employee_document_list_post")}
    ),
    "me_documents_get": Recipe(phase=ACTION + 2),
    "me_document_download_get": Recipe(
        phase=ACTION + 1,
        before=lambda rec: my_document(rec),
        params={"document_id": lambda rec, _p: rec.values["my_document"]},
    ),
    "employee_detail_delete": Recipe(params={"employee_id": lambda rec, _p: unfiled_employee(rec)}),
}

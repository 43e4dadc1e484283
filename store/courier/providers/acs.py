"""ACS Courier (Greece) over its REST web services (through common.net, the guarded client).

One endpoint (settings.COURIER_ACS_API_URL) takes every call as
`{"ACSAlias": <method>, "ACSInputParameters": {...}}` with the `AcsApiKey` header; the company
and user credentials travel in the parameters. An answer with `ACSExecution_HasError` or a
row `Error_Message` is the courier refusing (502 `courier_refused`, its message); a network
failure, a timeout, a non-2xx status or a body that is not JSON is 502 `courier_unavailable`.
Tested on recorded exchanges (tests/store/courier/recordings); never called in tests.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from common import net
from store.courier.models import VoucherStatus
from store.courier.providers.base import (
    CourierProvider,
    Created,
    Parcel,
    Tracking,
    refused,
    unavailable,
)

TEST_ZIP_CODE = "10431"  # Athens: the connection test looks its area up
LABEL_ANSWER_BYTES = 16 * 1024 * 1024  # a label comes back as a base64 PDF
_HOUSE_NUMBER = re.compile(r"^(?P<street>.*?)[\s,]+(?P<number>\d+[^\W\d_]?)$")


def _when(value) -> datetime | None:
    """ACS's local times (no offset) in the server's time zone."""
    try:
        at = parse_datetime(str(value or ""))
    except ValueError:
        return None
    if at is not None and timezone.is_naive(at):
        at = timezone.make_aware(at)
    return at


def split_street(address: str) -> tuple[str, str]:
    """ACS takes the street and the house number apart: "Odos Ermou 12" -> ("Odos Ermou", "12")."""
    found = _HOUSE_NUMBER.match(address.strip())
    return (found["street"], found["number"]) if found else (address.strip(), "")


class ACSCourier(CourierProvider):
    name = "acs"
    title = "ACS Courier"
    credential_fields = (
        "api_key",
        "company_id",
        "company_password",
        "user_id",
        "user_password",
        "billing_code",
    )

    # --- the one call -------------------------------------------------------------------------

    def _call(self, alias: str, params: dict) -> dict:
        self.ensure_configured()
        c = self.credentials
        body = {
            "ACSAlias": alias,
            "ACSInputParameters": {
                "Company_ID": c["company_id"],
                "Company_Password": c["company_password"],
                "User_ID": c["user_id"],
                "User_Password": c["user_password"],
                "Language": "EN",
                **params,
            },
        }
        try:
            response = net.request(
                "POST",
                settings.COURIER_ACS_API_URL,
                json=body,
                headers={"AcsApiKey": c["api_key"], "Accept": "application/json"},
                timeout=settings.COURIER_HTTP_TIMEOUT,
                max_bytes=LABEL_ANSWER_BYTES,
            )
        except net.OutboundError:
            raise unavailable("ACS could not be reached.") from None
        if response.status_code == 403:
            raise refused("ACS refused the API key (HTTP 403).")
        if not response.ok:
            raise unavailable(f"ACS answered HTTP {response.status_code}.")
        try:
            data = response.json()
        except ValueError:
            raise unavailable("ACS answered something other than JSON.") from None
        if not isinstance(data, dict):
            raise unavailable("ACS answered an unexpected body.")
        if data.get("ACSExecution_HasError"):
            message = str(data.get("ACSExecutionErrorMessage") or "unknown error")[:300]
            raise refused(f"ACS: {message}")
        output = data.get("ACSOutputResponce") or data.get("ACSOutputResponse") or {}
        return output if isinstance(output, dict) else {}

    @staticmethod
    def _row(output: dict) -> dict:
        rows = output.get("ACSValueOutput") or [{}]
        row = rows[0] if isinstance(rows, list) and rows and isinstance(rows[0], dict) else {}
        if row.get("Error_Message"):
            raise refused(f"ACS: {str(row['Error_Message'])[:300]}")
        return row

    @staticmethod
    def _table(output: dict) -> list[dict]:
        rows = (output.get("ACSTableOutput") or {}).get("Table_Data") or []
        return [row for row in rows if isinstance(row, dict)]

    # --- the interface ------------------------------------------------------------------------

    def test_connection(self) -> str:
        output = self._call(
            "ACS_Area_Find_By_Zip_Code",
            {"Zip_Code": TEST_ZIP_CODE, "Show_Only_Inaccessible_Areas": 0, "Country": "GR"},
        )
        if not self._table(output):
            raise unavailable("ACS answered the connection test without data.")
        return "ACS accepted the credentials."

    def create(self, parcel: Parcel) -> Created:
        to = parcel.recipient
        street, number = split_street(to.get("address_1", ""))
        sender = parcel.sender.get("company") or " ".join(
            filter(None, (parcel.sender.get("first_name"), parcel.sender.get("last_name")))
        )
        params = {
            "Pickup_Date": parcel.pickup_date.isoformat(),
            "Sender": sender[:50],
            "Recipient_Name": " ".join(filter(None, (to.get("first_name"), to.get("last_name")))),
            "Recipient_Company_Name": to.get("company") or None,
            "Recipient_Address": street,
            "Recipient_Address_Number": number or None,
            "Recipient_Address_Floor": to.get("address_2") or None,
            "Recipient_Zipcode": to.get("postcode", "").replace(" ", ""),
            "Recipient_Region": to.get("city", ""),
            "Recipient_Country": to.get("country", "GR"),
            "Recipient_Phone": to.get("phone") or None,
            "Recipient_Cell_Phone": to.get("phone") or None,
            "Recipient_Email": to.get("email") or None,
            "Billing_Code": self.credentials["billing_code"],
            "Charge_Type": 2,  # the sender pays
            "Item_Quantity": parcel.parcels,
            "Weight": float(parcel.weight),
            "Cod_Ammount": float(parcel.cod_amount) if parcel.cod_amount else None,
            "Cod_Payment_Way": 0 if parcel.cod_amount else None,  # cash
            "Delivery_Notes": parcel.note or None,
            "Reference_Key1": parcel.reference or None,
        }
        row = self._row(self._call("ACS_Create_Voucher", params))
        number = str(row.get("Voucher_No") or "").strip()
        if not number:
            raise refused("ACS made no voucher (no Voucher_No in its answer).")
        return Created(number=number, label=self.label(number))

    def label(self, number: str) -> bytes:
        """ACS's own label (A4 laser, base64 PDF); b"" when it sends none (the store draws)."""
        row = self._row(
            self._call(
                "ACS_Print_Voucher",
                {"Voucher_No": number, "Print_Type": 2, "Start_Position": 1},
            )
        )
        encoded = row.get("ACSObjectOutput") or ""
        try:
            pdf = base64.b64decode(encoded, validate=True) if encoded else b""
        except (binascii.Error, ValueError):
            return b""
        return pdf if pdf.startswith(b"%PDF") else b""

    def cancel(self, number: str) -> None:
        self._row(self._call("ACS_Delete_Voucher", {"Voucher_No": number}))

    def track(self, number: str, *, created_at: datetime, now: datetime) -> Tracking:
        summary = self._table(self._call("ACS_Trackingsummary", {"Voucher_No": number}))
        details = self._table(self._call("ACS_TrackingDetails", {"Voucher_No": number}))
        events = []
        for row in details:
            at = _when(row.get("checkpoint_date_time"))
            events.append(
                {
                    "at": at.isoformat() if at else None,
                    "status": "",
                    "description": str(row.get("checkpoint_action") or "")[:200],
                    "location": str(row.get("checkpoint_location") or "")[:200],
                }
            )
        head = summary[0] if summary else {}
        delivered_at = None
        if str(head.get("delivery_flag")) == "1":
            status = VoucherStatus.DELIVERED
            delivered_at = _when(head.get("delivery_date"))
        elif str(head.get("returned_flag")) == "1":
            status = VoucherStatus.RETURNED
        elif events:
            status = VoucherStatus.IN_TRANSIT
        else:
            status = VoucherStatus.CREATED
        return Tracking(status=status, events=events, delivered_at=delivered_at)

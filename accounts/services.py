"""Account use cases: every write with a rule, called by views, admin, commands and tasks alike."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import string
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate, password_validation
from django.contrib.auth.models import update_last_login
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Subquery
from django.utils import timezone
from rest_framework.throttling import BaseThrottle
from rest_framework_simplejwt.exceptions import TokenBackendError, TokenError
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.state import token_backend
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken, OutstandingToken
from rest_framework_simplejwt.tokens import RefreshToken
from rest_framework_simplejwt.utils import get_md5_hash_password

from accounts.models import (
    AccountType,
    ApiKey,
    AppPassword,
    LoginLimit,
    OneTimeToken,
    User,
    normalize_email,
)
from common.compiled import CompiledQuery, instance
from common.email import send_templated_email
from common.errors import Forbidden, NotFound, ServiceError, Unauthorized, ValidationFailed
from common.links import absolute_url

BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="api"'}
API_KEY_PREFIX = "emp_"
_LOWER_ALNUM = string.ascii_lowercase + string.digits
_ALNUM = string.ascii_letters + string.digits
# last_used_at is written at most once a minute per key or password, not on every request.
_TOUCH_INTERVAL = timedelta(minutes=1)


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


# --- Accounts ---------------------------------------------------------------------------------


def _check_password(password: str, *, user: User) -> None:
    try:
        password_validation.validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ValidationFailed({"password": list(exc.messages)}) from None


def account_create(
    *,
    email: str,
    password: str,
    name: str,
    type: str = AccountType.DEVELOPER,
    email_verified: bool = False,
    is_staff: bool = False,
) -> User:
    """Create an account; 422 on invalid values (a weak password included), 400 when the
    e-mail is taken."""
    email = normalize_email(email)
    name = (name or "").strip()
    errors: dict[str, list[str]] = {}
    try:
        validate_email(email)
    except DjangoValidationError:
        errors["email"] = ["Enter a valid e-mail address."]
    if type not in AccountType.values:
        errors["type"] = [f"Must be one of: {', '.join(AccountType.values)}."]
    if not name:
        errors["name"] = ["This field may not be blank."]
    if not password:
        errors["password"] = ["This field may not be blank."]
    if errors:
        raise ValidationFailed(errors)
    _check_password(password, user=User(email=email, name=name))
    if User.objects.filter(email=email).exists():
        raise ServiceError(
            "An account with this e-mail address already exists.", code="email_taken"
        )
    try:
        with transaction.atomic():
            return User.objects.create_user(
                email,
                password,
                name=name,
                type=type,
                email_verified=email_verified,
                is_staff=is_staff,
            )
    except IntegrityError:  # a concurrent registration of the same address won
        raise ServiceError(
            "An account with this e-mail address already exists.", code="email_taken"
        ) from None


@transaction.atomic
def account_register(*, email: str, password: str, name: str) -> User:
    """Self-service sign-up: a developer account that must verify its e-mail address."""
    user = account_create(email=email, password=password, name=name, type=AccountType.DEVELOPER)
    _send_verification(user)
    return user


# --- One-time e-mail tokens -------------------------------------------------------------------


def _issue_token(user: User, purpose: str, lifetime: timedelta) -> str:
    """A new token for `purpose`; earlier unused ones of the same purpose stop working."""
    OneTimeToken.objects.filter(user=user, purpose=purpose, used_at__isnull=True).delete()
    raw = secrets.token_urlsafe(32)
    now = timezone.now()
    OneTimeToken.objects.create(
        user=user,
        purpose=purpose,
        token_hash=_sha256(raw),
        created_at=now,
        expires_at=now + lifetime,
    )
    return raw


def _find_token(raw: str, purpose: str, *, lock: bool = False) -> OneTimeToken:
    rows = OneTimeToken.objects.select_related("user")
    if lock:
        rows = rows.select_for_update(of=("self",))
    token = rows.filter(token_hash=_sha256(raw or ""), purpose=purpose).first()
    if (
        token is None
        or token.used_at is not None
        or token.expires_at <= timezone.now()
        or not token.user.is_active
    ):
        raise ServiceError("This link is invalid or has expired.", code="invalid_token")
    return token


def _mail_token(user: User, purpose: str, lifetime: timedelta, template: str, page: str) -> None:
    """Issue a one-time token and e-mail it, as a front-end link and as the bare token."""
    raw = _issue_token(user, purpose, lifetime)
    send_templated_email(
        to=user.email,
        template=template,
        context={
            "user": user,
            "token": raw,
            "link": absolute_url(f"/{page}?token={raw}"),
            "lifetime": _describe(lifetime),
        },
    )


def _describe(lifetime: timedelta) -> str:
    minutes = int(lifetime.total_seconds() // 60)
    if minutes % 60:
        return f"{minutes} minutes"
    hours = minutes // 60
    return "1 hour" if hours == 1 else f"{hours} hours"


def _send_verification(user: User) -> None:
    _mail_token(
        user,
        OneTimeToken.Purpose.VERIFY_EMAIL,
        timedelta(hours=settings.EMAIL_VERIFICATION_TOKEN_HOURS),
        "accounts/verify_email",
        "verify-email",
    )


def verification_resend(*, email: str) -> None:
    """Send a new verification link to an unverified account; silent for anything else."""
    user = User.objects.filter(
        email=normalize_email(email), is_active=True, email_verified=False
    ).first()
    if user is not None:
        with transaction.atomic():
            _send_verification(user)


@transaction.atomic
def email_verify(*, token: str) -> User:
    row = _find_token(token, OneTimeToken.Purpose.VERIFY_EMAIL, lock=True)
    row.used_at = timezone.now()
    row.save(update_fields=["used_at"])
    user = row.user
    if not user.email_verified:
        user.email_verified = True
        user.save(update_fields=["email_verified"])
    return user


def password_reset_request(*, email: str) -> None:
    """E-mail a reset link to an active account; silent when there is none."""
    user = User.objects.filter(email=normalize_email(email), is_active=True).first()
    if user is None:
        return
    with transaction.atomic():
        _mail_token(
            user,
            OneTimeToken.Purpose.RESET_PASSWORD,
            timedelta(minutes=settings.PASSWORD_RESET_TOKEN_MINUTES),
            "accounts/password_reset",
            "reset-password",
        )


def password_reset_check(*, token: str) -> User:
    """The account a reset token is for (400 `invalid_token` when unknown, used or expired)."""
    return _find_token(token, OneTimeToken.Purpose.RESET_PASSWORD).user


def password_reset(*, token: str, password: str) -> User:
    """Set a new password with a reset token.

    The token is spent only when the password is accepted. Every session of the account ends
    (refresh tokens are revoked; access tokens carry a digest of the old password hash and stop
    working). The e-mail counts as verified: the link reached the inbox.
    """
    _check_password(password, user=password_reset_check(token=token))
    with transaction.atomic():
        row = _find_token(token, OneTimeToken.Purpose.RESET_PASSWORD, lock=True)
        row.used_at = timezone.now()
        row.save(update_fields=["used_at"])
        user = row.user
        user.set_password(password)
        user.email_verified = True
        user.save(update_fields=["password", "email_verified"])
        revoke_all_sessions(user)
        login_limits_reset(email=user.email)  # the inbox proved who is asking
    return user


# --- Log-in limits ----------------------------------------------------------------------------
#
# Every password log-in (the portal, the checkout, the admin) goes through
# `authenticate_limited`. Each attempt is counted before the password is checked, against the
# e-mail address typed (whether or not an account has it) and against the client address, in
# the database (a row lock settles parallel attempts; a cache outage changes nothing). A success
# gives the attempt back: the e-mail address's count and locks start again from zero, and the
# client address's count drops by one. LIMIT counted attempts within the window lock the
# e-mail address (or the client address) for LOCKOUT, doubled at each further lock up to
# LOCKOUT_MAX; a day without attempts forgets earlier locks.
#
# Application passwords over HTTP Basic come with every request, so they go through
# `app_password_authenticate` instead: the same rows and locks, read with the password on
# every request, written only when a password is wrong.


class LoginLocked(ServiceError):
    status_code = 429
    default_code = "login_locked"

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "Too many failed log-ins for this e-mail address or from this network: log-ins "
            f"are paused. Try again in {retry_after} seconds, or reset the password.",
            headers={"Retry-After": str(retry_after)},
        )
        self.retry_after = retry_after


def client_address(request) -> str:
    """The caller's address as the rate limits see it (REMOTE_ADDR, or the X-Forwarded-For hop
    that NUM_PROXIES trusts)."""
    return BaseThrottle().get_ident(request) or "unknown"


def _clean_text(value: str) -> str:
    """`value` as a database can store it: no NUL, no lone surrogate, at most 254 characters."""
    return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")[:254]


def _limit_subjects(email: str, address: str) -> list[tuple[str, str, int]]:
    """(kind, subject, limit) in the order rows are locked: the account first."""
    return [
        (LoginLimit.Kind.ACCOUNT, normalize_email(email), settings.LOGIN_FAILURE_LIMIT),
        (LoginLimit.Kind.ADDRESS, address, settings.LOGIN_ADDRESS_FAILURE_LIMIT),
    ]


def _limit_key(kind: str, subject: str) -> str:
    return hashlib.sha256(f"{kind}:{subject}".encode("utf-8", "surrogatepass")).hexdigest()


def _limit_row(kind: str, subject: str, now: datetime) -> LoginLimit:
    """The row of (kind, subject), created if need be, locked until the transaction ends."""
    key = _limit_key(kind, subject)
    LoginLimit.objects.get_or_create(
        kind=kind,
        key=key,
        defaults={
            "subject": _clean_text(subject),
            "window_started_at": now,
            "last_attempt_at": now,
        },
    )
    return LoginLimit.objects.select_for_update().get(kind=kind, key=key)


def _roll(row: LoginLimit, now: datetime) -> None:
    """Bring `row` up to `now`: an ended lock or window starts a new window."""
    if row.locked_until is not None and row.locked_until <= now:
        row.locked_until = None
        row.failures = 0
        row.window_started_at = now
    if row.last_attempt_at <= now - settings.LOGIN_LOCKOUT_MAX:
        row.locks = 0
    if row.window_started_at <= now - settings.LOGIN_FAILURE_WINDOW:
        row.failures = 0
        row.window_started_at = now


def _lock(row: LoginLimit, now: datetime) -> None:
    row.locks += 1
    lockout = settings.LOGIN_LOCKOUT * 2 ** min(row.locks - 1, 20)
    row.locked_until = now + min(lockout, settings.LOGIN_LOCKOUT_MAX)
    row.failures = 0
    row.window_started_at = now


def _seconds_left(row: LoginLimit, now: datetime) -> int:
    if row.locked_until is None or row.locked_until <= now:
        return 0
    return max(1, math.ceil((row.locked_until - now).total_seconds()))


def login_attempt_begin(*, email: str, address: str) -> None:
    """Count one log-in attempt, or refuse it (429 `login_locked`) while either is locked."""
    now = timezone.now()
    with transaction.atomic():
        rows = [
            (_limit_row(kind, subject, now), limit)
            for kind, subject, limit in _limit_subjects(email, address)
        ]
        for row, limit in rows:
            _roll(row, now)
            if row.locked_until is None and row.failures >= limit:
                _lock(row, now)  # parallel attempts filled the window: this one is too many
        wait = max(_seconds_left(row, now) for row, _limit in rows)
        for row, _limit in rows:
            if not wait:
                row.failures += 1
            row.last_attempt_at = now
            row.save()
    if wait:
        raise LoginLocked(wait)


def login_attempt_failed(*, email: str, address: str) -> None:
    """The attempt counted by `login_attempt_begin` failed: lock what reached its limit."""
    now = timezone.now()
    with transaction.atomic():
        for kind, subject, limit in _limit_subjects(email, address):
            row = _limit_row(kind, subject, now)
            if row.locked_until is None and row.failures >= limit:
                _lock(row, now)
                row.save()


def login_attempt_succeeded(*, email: str, address: str) -> None:
    """The e-mail address starts again from zero; the client address gets its attempt back."""
    with transaction.atomic():
        login_limits_reset(email=email)
        LoginLimit.objects.filter(
            kind=LoginLimit.Kind.ADDRESS,
            key=_limit_key(LoginLimit.Kind.ADDRESS, address),
            failures__gt=0,
        ).update(failures=F("failures") - 1)


def login_limits_reset(*, email: str) -> int:
    """Forget the failed log-ins and locks of an e-mail address (a success, a password reset)."""
    account = LoginLimit.Kind.ACCOUNT
    deleted, _ = LoginLimit.objects.filter(
        kind=account, key=_limit_key(account, normalize_email(email))
    ).delete()
    return deleted


def login_limits_lift(*, queryset) -> int:
    """Staff: end the locks of these rows and forget their counts."""
    deleted, _ = queryset.delete()
    return deleted


def authenticate_limited(request, *, email: str, password: str) -> User | None:
    """`authenticate()` behind the log-in limits: the one door of every password log-in.

    Answers the user or None (wrong or unknown credentials, an inactive account); raises
    LoginLocked while the e-mail address or the client address is locked. Call it outside any
    transaction, so that a refusal that rolls the caller's work back keeps its count.
    """
    address = client_address(request)
    login_attempt_begin(email=email, address=address)
    user = authenticate(request, email=normalize_email(email), password=password)
    if user is None:
        login_attempt_failed(email=email, address=address)
    else:
        login_attempt_succeeded(email=email, address=address)
    return user


# --- Sessions (JWT) ---------------------------------------------------------------------------


def _token_pair(refresh: RefreshToken) -> dict:
    return {
        "access_token": str(refresh.access_token),
        "refresh_token": str(refresh),
        "token_type": "Bearer",
        "expires_in": int(jwt_settings.ACCESS_TOKEN_LIFETIME.total_seconds()),
    }


def issue_tokens(user: User) -> dict:
    refresh = RefreshToken.for_user(user)
    update_last_login(None, user)
    return {**_token_pair(refresh), "user": user}


def login(*, email: str, password: str, request) -> dict:
    user = authenticate_limited(request, email=email, password=password)
    if user is None:
        raise Unauthorized(
            "Invalid e-mail or password.", code="invalid_credentials", headers=BEARER_CHALLENGE
        )
    if not user.email_verified:
        raise Forbidden(
            "This account's e-mail address is not verified yet. Follow the link in the "
            "verification e-mail, or ask for a new one with POST "
            "/api/v1/portal/auth/resend-verification.",
            code="email_not_verified",
        )
    return issue_tokens(user)


def _invalid_refresh() -> Unauthorized:
    return Unauthorized(
        "The refresh token is invalid, expired or revoked; log in again.",
        code="token_not_valid",
        headers=BEARER_CHALLENGE,
    )


def token_refresh(*, refresh_token: str) -> dict:
    """Rotate: the refresh token is spent and a new pair is issued. Reuse answers 401."""
    try:
        token = RefreshToken(refresh_token)
    except TokenError:
        raise _invalid_refresh() from None
    user = User.objects.filter(pk=token.get(jwt_settings.USER_ID_CLAIM)).first()
    if (
        user is None
        or not user.is_active
        or token.get(jwt_settings.REVOKE_TOKEN_CLAIM) != get_md5_hash_password(user.password)
    ):
        raise _invalid_refresh()
    with transaction.atomic():
        outstanding = (
            OutstandingToken.objects.select_for_update(of=("self",))
            .filter(jti=token[jwt_settings.JTI_CLAIM])
            .order_by()  # the model orders by user: an outer join FOR UPDATE cannot lock
            .first()
        )
        if outstanding is None:
            raise _invalid_refresh()
        _blacklisted, created = BlacklistedToken.objects.get_or_create(token=outstanding)
        if not created:  # a concurrent refresh spent it first
            raise _invalid_refresh()
        return _token_pair(RefreshToken.for_user(user))


def logout(*, refresh_token: str) -> None:
    """Revoke a refresh token. Revoking one that is already revoked is not an error."""
    try:
        payload = token_backend.decode(refresh_token or "", verify=True)
    except TokenBackendError:
        raise _invalid_refresh() from None
    if payload.get(jwt_settings.TOKEN_TYPE_CLAIM) != "refresh":
        raise _invalid_refresh()
    outstanding = OutstandingToken.objects.filter(jti=payload.get(jwt_settings.JTI_CLAIM)).first()
    if outstanding is None:
        raise _invalid_refresh()
    BlacklistedToken.objects.get_or_create(token=outstanding)


def revoke_all_sessions(user: User) -> int:
    """Blacklist every unexpired refresh token of `user`."""
    pending = OutstandingToken.objects.filter(
        user=user, expires_at__gt=timezone.now(), blacklistedtoken__isnull=True
    )
    rows = [BlacklistedToken(token=token) for token in pending]
    BlacklistedToken.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def purge_expired_tokens() -> dict[str, int]:
    now = timezone.now()
    one_time, _ = OneTimeToken.objects.filter(
        Q(expires_at__lt=now - timedelta(days=1)) | Q(used_at__lt=now - timedelta(days=1))
    ).delete()
    refresh, _ = OutstandingToken.objects.filter(expires_at__lte=now).delete()
    login_limits, _ = LoginLimit.objects.filter(
        Q(locked_until__isnull=True) | Q(locked_until__lte=now),
        last_attempt_at__lte=now - settings.LOGIN_LOCKOUT_MAX,
    ).delete()
    return {"one_time_tokens": one_time, "refresh_tokens": refresh, "login_limits": login_limits}


# --- API keys ---------------------------------------------------------------------------------


def _require_partner(user: User) -> None:
    if not user.is_partner:
        raise Forbidden(
            "Only reseller and agency accounts may use API keys.", code="partner_account_required"
        )


def api_key_check_allowed(user: User) -> None:
    """Refuse when `user` may not hold one more API key."""
    _require_partner(user)
    if ApiKey.objects.filter(user=user).count() >= settings.API_KEYS_PER_ACCOUNT:
        raise ServiceError(
            f"An account may hold at most {settings.API_KEYS_PER_ACCOUNT} API keys; "
            "delete one first.",
            code="api_key_limit_reached",
        )


def api_key_create(*, user: User, name: str = "") -> tuple[ApiKey, str]:
    """Create a key; the plain key is returned once and never stored."""
    name = (name or "").strip() or "API key"
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # serialises the count
        api_key_check_allowed(user)
        for _attempt in range(5):
            prefix = API_KEY_PREFIX + "".join(secrets.choice(_LOWER_ALNUM) for _ in range(8))
            if not ApiKey.objects.filter(prefix=prefix).exists():
                break
        raw = f"{prefix}_{secrets.token_urlsafe(30)}"
        key = ApiKey.objects.create(user=user, name=name, prefix=prefix, key_hash=_sha256(raw))
    return key, raw


def api_key_delete(*, user: User, key_id: int) -> None:
    deleted, _ = ApiKey.objects.filter(user=user, pk=key_id).delete()
    if not deleted:
        raise NotFound("API key not found.", code="api_key_not_found")


# --- Credentials read on every request ---------------------------------------------------------
# An API key or application password and its account, in one row, by a query compiled once per
# connection (common.compiled): building the ORM query cost more than running it.

_USER_FIELDS = tuple(f.attname for f in User._meta.concrete_fields)


def _credential_query(
    model, lookups: tuple[str, ...], sample: tuple[str, ...], other: tuple[str, ...]
) -> tuple[CompiledQuery, type, tuple[str, ...]]:
    """The query of one `model` row (and its user) by `lookups`, compiled once per connection."""
    fields = tuple(f.attname for f in model._meta.concrete_fields)
    query = CompiledQuery(
        lambda *values: model.objects.filter(**dict(zip(lookups, values, strict=True))).values_list(
            *fields, *(f"user__{name}" for name in _USER_FIELDS)
        )[:1],
        sample,
        other,
    )
    return query, model, fields


def _credential_with_user(compiled: tuple[CompiledQuery, type, tuple[str, ...]], *values):
    """The credential (with its `user` set) the values find, or None."""
    query, model, fields = compiled
    rows = query.rows(*values)
    if not rows:
        return None
    alias, split = query.alias(), len(fields)
    credential = instance(model, fields, rows[0][:split], alias)
    credential.user = instance(User, _USER_FIELDS, rows[0][split:], alias)
    return credential


_API_KEY_QUERY = _credential_query(ApiKey, ("prefix",), ("emp_sample",), ("emp_other",))


def api_key_authenticate(raw: str) -> ApiKey | None:
    """The key `raw` names, if it is valid and its account may use keys."""
    raw = (raw or "").strip()
    prefix_length = len(API_KEY_PREFIX) + 8
    if not raw.startswith(API_KEY_PREFIX) or len(raw) <= prefix_length + 1:
        return None
    key = _credential_with_user(_API_KEY_QUERY, raw[:prefix_length])
    if key is None or not hmac.compare_digest(key.key_hash, _sha256(raw)):
        return None
    if not key.user.is_active or not key.user.is_partner:
        return None
    now = timezone.now()
    if key.last_used_at is None or key.last_used_at < now - _TOUCH_INTERVAL:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key


# --- Application passwords (HTTP Basic on the store API) --------------------------------------


def format_app_password(raw: str) -> str:
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))


def app_password_create(*, user: User, name: str) -> tuple[AppPassword, str]:
    """Create an application password; returned once, grouped by four, never stored."""
    name = (name or "").strip()
    if not name:
        raise ValidationFailed({"name": ["This field may not be blank."]})
    raw = "".join(secrets.choice(_ALNUM) for _ in range(24))
    app_password = AppPassword.objects.create(user=user, name=name, password_hash=_sha256(raw))
    return app_password, format_app_password(raw)


def _locked_until(kind: str, key) -> Subquery:
    return Subquery(LoginLimit.objects.filter(kind=kind, key=key).values("locked_until")[:1])


# An application password, its account and the locks of the e-mail address and the client
# address, in one row: the log-in limits cost a request whose password is right no query.
_APP_PASSWORD_FIELDS = tuple(f.attname for f in AppPassword._meta.concrete_fields)
_APP_PASSWORD_QUERY = CompiledQuery(
    lambda password_hash, email, account_key, address_key: (
        AppPassword.objects.filter(password_hash=password_hash, user__email=email)
        .annotate(
            account_locked_until=_locked_until(LoginLimit.Kind.ACCOUNT, account_key),
            address_locked_until=_locked_until(LoginLimit.Kind.ADDRESS, address_key),
        )
        .values_list(
            *_APP_PASSWORD_FIELDS,
            *(f"user__{name}" for name in _USER_FIELDS),
            "account_locked_until",
            "address_locked_until",
        )[:1]
    ),
    ("0" * 64, "sample@example.invalid", "2" * 64, "4" * 64),
    ("1" * 64, "other@example.invalid", "3" * 64, "5" * 64),
)


def _app_password_found(
    password_hash: str, email: str, address: str
) -> tuple[AppPassword, int] | None:
    """The application password of this hash and e-mail address (its `user` set) and the
    seconds left of a lock of the e-mail address or the client address (0: none), or None."""
    query = _APP_PASSWORD_QUERY
    rows = query.rows(
        password_hash,
        email,
        _limit_key(LoginLimit.Kind.ACCOUNT, email),
        _limit_key(LoginLimit.Kind.ADDRESS, address),
    )
    if not rows:
        return None
    row, alias, split = rows[0], query.alias(), len(_APP_PASSWORD_FIELDS)
    app_password = instance(AppPassword, _APP_PASSWORD_FIELDS, row[:split], alias)
    app_password.user = instance(User, _USER_FIELDS, row[split:-2], alias)
    now = timezone.now()
    wait = max(
        (math.ceil((until - now).total_seconds()) for until in row[-2:] if until and until > now),
        default=0,
    )
    return app_password, wait


def app_password_authenticate(request, *, email: str, password: str) -> AppPassword | None:
    """HTTP Basic with an account's e-mail address and one of its application passwords, behind
    the log-in limits (the only door: AppPasswordAuthentication, so the MCP endpoint too).

    Answers the application password or None (wrong, unknown, an inactive account); raises
    LoginLocked while the e-mail address or the client address is locked, whatever the
    password. A wrong password is counted once, in the rows of the other log-ins, and may
    lock. A right one writes no row: it was not counted, so there is nothing to give back,
    and it does not forget the e-mail address's failures (they may be guesses at the account
    password, which an application password does not prove). Call it outside any transaction.
    """
    address = client_address(request)
    cleaned = "".join((password or "").split())
    found = None
    if len(cleaned) == 24 and "\x00" not in email:  # PostgreSQL cannot compare a NUL
        found = _app_password_found(_sha256(cleaned), normalize_email(email), address)
    if found is None or not found[0].user.is_active:
        login_attempt_begin(email=email, address=address)  # LoginLocked while locked
        login_attempt_failed(email=email, address=address)
        return None
    app_password, wait = found
    if wait:
        raise LoginLocked(wait)
    now, ip = timezone.now(), request.META.get("REMOTE_ADDR")
    last = app_password.last_used_at
    if last is None or last < now - _TOUCH_INTERVAL or app_password.last_used_ip != ip:
        AppPassword.objects.filter(pk=app_password.pk).update(last_used_at=now, last_used_ip=ip)
        app_password.last_used_at, app_password.last_used_ip = now, ip
    return app_password

"""JSON and multipart bodies: nesting depth, NUL characters and unpaired surrogates are refused
with a 400 in the namespace's error shape (never a 500), by the one loader every reader uses."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import User
from common import idempotency
from common.api.parsers import MAX_JSON_DEPTH, UnusableInput, loads
from common.models import IdempotencyRecord
from store.cart.models import Cart, CartItem
from store.catalog.models import Product
from store.media.models import MediaImage
from tests.accounts.factories import PASSWORD, ResellerFactory, UserFactory
from tests.hardening.helpers import PORTAL, STORE, csrf_client, portal_error, store_error
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db

DEEP = "[" * 1500 + "]" * 1500
DEEP_OBJECT = '{"a":' * 1500 + "1" + "}" * 1500


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def post_json(client, path, body: str, **headers):
    return client.generic("POST", path, body, content_type="application/json", **headers)


# --- The loader -------------------------------------------------------------------------------


def test_the_loader_accepts_the_depth_limit_and_refuses_one_more():
    assert loads(nested(MAX_JSON_DEPTH)) == json.loads(nested(MAX_JSON_DEPTH))
    with pytest.raises(UnusableInput, match="nested more than 64 levels"):
        loads(nested(MAX_JSON_DEPTH + 1))


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT, nested(100_000)])
def test_the_loader_refuses_deep_bodies_without_recursing(body):
    with pytest.raises(UnusableInput):
        loads(body)


def test_brackets_inside_strings_do_not_count_as_depth():
    text = json.dumps({"note": "[" * 500 + '\\"{' * 100, "list": [[["ok"]]]})
    assert loads(text)["list"] == [[["ok"]]]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"a": "x\\u0000y"}', "string at a contains a NUL"),
        ('{"a": ["ok", {"b": "\\ud800"}]}', "string at a.1.b contains an unpaired"),
        ('{"\\u0000": 1}', "key in the body contains a NUL"),
        ('{"a": "\\udc00\\ud800"}', "unpaired"),
        ('{"a": NaN}', "NaN is not valid JSON"),
        ('{"a": [1, 1e400]}', "number 1e400 is too large"),
        ('{"a": -2.5E+999}', "number -2.5E\\+999 is too large"),
        ('{"a": 1', "Expecting"),
        (b'{"a": "\xff"}', "not valid utf-8"),
    ],
)
def test_the_loader_refuses_unstorable_or_malformed_text(body, message):
    with pytest.raises(UnusableInput, match=message):
        loads(body)


def test_a_surrogate_pair_is_one_character_and_accepted():
    assert loads('{"emoji": "\\ud83d\\ude00"}') == {"emoji": "\U0001f600"}


def test_the_idempotency_fingerprint_uses_the_loader():
    deep = DEEP.encode()
    assert idempotency.fingerprint("POST", "/x", deep) == idempotency.fingerprint(
        "POST", "/x", deep
    )
    same = idempotency.fingerprint("POST", "/x", b'{"a": 1, "b": 2}')
    assert same == idempotency.fingerprint("POST", "/x", b'{"b":2,"a":1}')


# --- Portal -----------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT])
def test_a_deep_body_to_the_anonymous_login_is_400(body):
    UserFactory(email="dev@example.com")
    response = post_json(csrf_client(), f"{PORTAL}/portal/auth/login", body)
    assert "nested more than 64 levels" in portal_error(response, 400, "parse_error")["detail"]


def test_a_deep_body_with_an_idempotency_key_is_400_and_keeps_no_key():
    response = post_json(
        csrf_client(), f"{PORTAL}/portal/auth/login", DEEP, HTTP_IDEMPOTENCY_KEY="deep-1"
    )
    portal_error(response, 400, "parse_error")
    assert not IdempotencyRecord.objects.exists()


def test_a_deep_body_to_an_authenticated_portal_route_is_400(client_for):
    user = ResellerFactory()
    client = client_for(user)
    response = client.generic(
        "POST", f"{PORTAL}/portal/api-keys", DEEP_OBJECT, content_type="application/json"
    )
    portal_error(response, 400, "parse_error")
    assert not user.api_keys.exists()


@pytest.mark.parametrize("password", ["pass\u0000word-123456", "\ud800-password-123456"])
def test_unstorable_text_in_a_portal_body_is_400_and_creates_nothing(password):
    body = json.dumps({"email": "new@example.com", "password": password, "name": "New"})
    response = post_json(csrf_client(), f"{PORTAL}/portal/auth/register", body)
    portal_error(response, 400, "parse_error")
    assert not User.objects.filter(email="new@example.com").exists()


def test_a_good_login_still_works():
    UserFactory(email="dev@example.com")
    body = json.dumps({"email": "dev@example.com", "password": PASSWORD})
    response = post_json(csrf_client(), f"{PORTAL}/portal/auth/login", body)
    assert response.status_code == 200, response.content


# --- Store ------------------------------------------------------------------------------------


def test_a_deep_body_to_the_cart_is_400_and_makes_no_cart():
    response = post_json(csrf_client(), f"{STORE}/cart/items", DEEP)
    assert "nested" in store_error(response, 400, "parse_error")["message"]
    assert not Cart.objects.exists()


def test_a_deep_body_to_a_manager_route_is_400(manager_client):
    response = manager_client.generic(
        "POST", f"{STORE}/products", DEEP_OBJECT, content_type="application/json"
    )
    store_error(response, 400, "parse_error")
    assert not Product.objects.exists()


def test_a_deep_body_to_the_checkout_is_400():
    response = post_json(csrf_client(), f"{STORE}/checkout", DEEP)
    store_error(response, 400, "parse_error")


@pytest.mark.parametrize("value", ["A\u0000B", "\udfff", "ok\ud800"])
def test_unstorable_cart_item_options_are_400_and_add_nothing(value):
    lamp = make_product(title="Lamp", regular_price="9.90")
    body = json.dumps({"product_id": lamp.pk, "quantity": 1, "options": {"engraving": value}})
    response = post_json(csrf_client(), f"{STORE}/cart/items", body)
    message = store_error(response, 400, "parse_error")["message"]
    assert "options.engraving" in message
    assert not CartItem.objects.exists()


def test_a_number_too_large_for_a_float_in_cart_item_options_is_400_and_adds_nothing():
    """1e400 would be infinity, which a JSON column (jsonb) cannot store: refused on parsing."""
    lamp = make_product(title="Lamp", regular_price="9.90")
    body = '{"product_id": ' + str(lamp.pk) + ', "quantity": 1, "options": {"size": 1e400}}'
    response = post_json(csrf_client(), f"{STORE}/cart/items", body)
    assert "1e400 is too large" in store_error(response, 400, "parse_error")["message"]
    assert not CartItem.objects.exists()


def test_a_nul_in_a_multipart_field_is_400_and_stores_nothing(manager_client):
    upload = SimpleUploadedFile("pixel.png", b"\x89PNG\r\n\x1a\n", content_type="image/png")
    response = manager_client.post(
        f"{STORE}/media", {"file": upload, "alt": "A\x00B"}, format="multipart"
    )
    assert "alt" in store_error(response, 400, "parse_error")["message"]
    assert not MediaImage.objects.exists()

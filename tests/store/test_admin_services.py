"""The admin of coupons, reviews and tax rates writes through their services (the rules and
side effects the API has), with a browser's CSRF checks."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from store.coupons.models import Coupon
from store.reviews.models import Review
from store.tax.models import TaxRate
from tests.admin_forms import csrf_client, form_errors, form_values, post_action, post_form
from tests.store.catalog.factories import make_product
from tests.store.coupons.factories import make_coupon
from tests.store.tax.factories import make_rate

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(admin_user):
    return csrf_client(admin_user)


def test_a_coupon_added_in_the_admin_is_made_by_the_service(browser):
    lamp = make_product(title="Lamp")
    url = reverse("admin:store_coupons_coupon_add")
    values = form_values(browser, url)
    values.update(code="  Spring  ", discount_type="percent", amount="15", products=[str(lamp.pk)])
    response = browser.post(url, values)
    assert response.status_code == 302, form_errors(response)
    coupon = Coupon.objects.get()
    assert (coupon.code, coupon.amount, list(coupon.products.all())) == ("Spring", 15, [lamp])
    values.update(code="SPRING")
    response = browser.post(url, values)
    assert response.status_code == 200
    assert "is taken (codes are matched without regard to case)" in response.content.decode()
    assert Coupon.objects.count() == 1


def test_disabling_coupons_goes_through_the_service(browser):
    coupon = make_coupon("TEN", "percent", 10)
    response = post_action(
        browser, reverse("admin:store_coupons_coupon_changelist"), "disable", [coupon.pk]
    )
    assert "1 coupon(s) disabled." in [str(m) for m in get_messages(response.wsgi_request)]
    coupon.refresh_from_db()
    assert coupon.enabled is False


def test_moderating_a_review_records_who_and_refreshes_the_rating(browser, admin_user):
    lamp = make_product(title="Lamp")
    review = Review.objects.create(product=lamp, author_name="A", rating=4, content="Nice")
    url = reverse("admin:store_reviews_review_change", args=[review.pk])
    response = post_form(browser, url, status="approved", rating="2")
    assert response.status_code == 302, form_errors(response)
    review.refresh_from_db()
    assert (review.status, review.rating, review.moderated_by) == ("approved", 2, admin_user)
    assert review.moderated_at is not None
    lamp.refresh_from_db()
    assert (lamp.review_count, str(lamp.average_rating)) == (1, "2.00")
    html = browser.get(url).content.decode()
    assert 'name="author_name"' not in html  # what the shopper wrote under is not rewritten


def test_tax_rates_are_switched_by_the_service(browser):
    rate = make_rate(24, country="GR")
    post_action(browser, reverse("admin:store_tax_taxrate_changelist"), "disable", [rate.pk])
    rate.refresh_from_db()
    assert rate.enabled is False
    assert TaxRate.objects.filter(enabled=True).count() == 0

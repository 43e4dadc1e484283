"""ServiceForm and ServiceAdmin subclasses must name their service calls: one that leaves a
call to the base is refused when its class is made, not when staff first save or delete."""

import pytest

from common.admin import ServiceAdmin, ServiceForm
from store.coupons.models import Coupon


def test_an_admin_without_its_remove_call_is_refused_at_import():
    with pytest.raises(TypeError, match="HalfAdmin must define remove"):

        class HalfAdmin(ServiceAdmin):
            def create(self, request, fields):
                return None

            def update(self, request, obj, fields):
                return obj


def test_a_form_without_its_check_is_refused_at_import():
    with pytest.raises(TypeError, match="UncheckedForm must define check"):

        class UncheckedForm(ServiceForm):
            class Meta:
                model = Coupon
                fields = ["code"]


def test_a_complete_admin_and_form_are_accepted():
    class Whole(ServiceAdmin):
        def create(self, request, fields):
            return None

        def update(self, request, obj, fields):
            return obj

        def remove(self, request, obj):
            return None

    class Checked(ServiceForm):
        class Meta:
            model = Coupon
            fields = ["code"]

        def check(self, fields):
            return None

    assert Whole.remove is not ServiceAdmin.remove
    assert Checked.check is not ServiceForm.check

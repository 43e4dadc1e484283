from rest_framework import serializers

from common.api.fields import IntegerField


class NonceSerializer(serializers.Serializer):
    nonce = serializers.CharField(help_text="Send it in the header named by `header`.")
    header = serializers.CharField()
    expires_in = IntegerField(
        help_text="Seconds the nonce is certainly valid (it may last up to 12 hours longer)."
    )
    user = serializers.DictField(help_text="id, email and name of the logged-in account.")

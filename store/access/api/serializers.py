from rest_framework import serializers

from store.common.nonce import NonceAnswerSerializer


class NonceSerializer(NonceAnswerSerializer):
    user = serializers.DictField(help_text="id, email and name of the logged-in account.")

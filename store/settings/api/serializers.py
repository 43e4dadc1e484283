from rest_framework import serializers


class OptionSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()


class CurrencyOptionSerializer(OptionSerializer):
    numeric = serializers.CharField()


class ResetAnswerSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
    data = serializers.DictField(help_text="The section's values, now the defaults.")

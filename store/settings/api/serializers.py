from rest_framework import serializers


class AllSettingsSerializer(serializers.Serializer):
    """Every section by name, each an object of its keys and values."""

    class Meta:
        ref_name = "AllSettings"

    def to_representation(self, instance):
        return dict(instance)


class SectionValuesSerializer(serializers.Serializer):
    """The section's keys and values (see the section's description for its keys)."""

    class Meta:
        ref_name = "SettingsSectionValues"

    def to_representation(self, instance):
        return dict(instance)


class SectionWriteSerializer(serializers.Serializer):
    """Some keys of the section and their new values; others keep theirs."""

    def to_internal_value(self, data):
        return data


class OptionSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()


class CurrencyOptionSerializer(OptionSerializer):
    numeric = serializers.CharField()


class ResetAnswerSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
    data = serializers.DictField(help_text="The section's values, now the defaults.")

from rest_framework import serializers

from common.api.fields import IdField, IntegerField


class ClientSerializer(serializers.Serializer):
    id = IdField()
    email = serializers.EmailField()
    name = serializers.CharField()
    company = serializers.CharField(allow_null=True)
    license_count = IntegerField(help_text="Licences assigned to the client.")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["company"] = data["company"] or None
        return data


class ClientCreateInputSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    name = serializers.CharField(max_length=150)
    company = serializers.CharField(
        max_length=200, required=False, allow_null=True, allow_blank=True
    )

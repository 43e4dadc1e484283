from rest_framework import serializers

from accounts.models import AccountType, ApiKey, User
from common.api.fields import IntegerField


class UserSerializer(serializers.ModelSerializer):
    type = serializers.ChoiceField(choices=AccountType.choices, read_only=True)

    class Meta:
        model = User
        fields = ["id", "email", "name", "type"]
        read_only_fields = fields


class MeSerializer(UserSerializer):
    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "email_verified", "date_joined", "last_login"]
        read_only_fields = fields


class LoginInputSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(trim_whitespace=False, max_length=4096)


class TokenPairSerializer(serializers.Serializer):
    access_token = serializers.CharField(help_text="Bearer token, valid 30 minutes.")
    refresh_token = serializers.CharField(help_text="Single use: each refresh rotates it.")
    token_type = serializers.CharField(default="Bearer")
    expires_in = IntegerField(help_text="Seconds until the access token expires.")


class LoginOutputSerializer(TokenPairSerializer):
    user = UserSerializer()


class RefreshInputSerializer(serializers.Serializer):
    refresh_token = serializers.CharField(max_length=4096)


class RegisterInputSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(trim_whitespace=False, max_length=4096)
    name = serializers.CharField(max_length=150)


class RegisterOutputSerializer(serializers.Serializer):
    detail = serializers.CharField()
    user = MeSerializer()


class TokenInputSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=200)


class EmailInputSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)


class ResetPasswordInputSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=200)
    password = serializers.CharField(trim_whitespace=False, max_length=4096)


class ApiKeySerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiKey
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]
        read_only_fields = fields


class ApiKeyCreatedSerializer(ApiKeySerializer):
    key = serializers.CharField(help_text="The API key. Shown this once; store it now.")

    class Meta(ApiKeySerializer.Meta):
        fields = [*ApiKeySerializer.Meta.fields, "key"]
        read_only_fields = fields


class ApiKeyInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False, allow_blank=True)

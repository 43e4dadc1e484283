import factory

from accounts.models import AccountType, User

PASSWORD = "Sturdy-Passphrase-2026"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    name = factory.Faker("name")
    type = AccountType.DEVELOPER
    email_verified = True
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class ResellerFactory(UserFactory):
    type = AccountType.RESELLER


class AgencyFactory(UserFactory):
    type = AccountType.AGENCY

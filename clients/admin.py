from django.contrib import admin, messages
from django.db.models import Count

from clients import services
from clients.models import Client


@admin.register(Client)
class ClientAdmin(admin.ModelAdmin):
    list_display = ["name", "email", "company", "owner", "licence_count", "created_at"]
    list_filter = ["owner__type"]
    search_fields = ["name", "email", "company", "owner__email"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
    actions = ["delete_with_licences"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_licences=Count("licenses"))

    @admin.display(description="licences", ordering="_licences")
    def licence_count(self, obj) -> int:
        return obj._licences

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # deleting revokes the client's licences: the action below

    @admin.action(
        description="Delete (revokes and deactivates every licence of the client)",
        permissions=["change"],
    )
    def delete_with_licences(self, request, queryset):
        revoked = 0
        clients = list(queryset.select_related("owner"))
        for client in clients:
            revoked += services.client_delete(owner=client.owner, client_id=client.pk)
        self.message_user(
            request,
            f"{len(clients)} client(s) deleted; {revoked} licence(s) revoked.",
            messages.SUCCESS,
        )

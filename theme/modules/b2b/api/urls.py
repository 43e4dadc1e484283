from django.urls import path

from .views import GroupsView, GroupView, MyGroupView

urlpatterns = [
    path("b2b/groups", GroupsView.as_view(), name="theme-b2b-groups"),
    path("b2b/groups/<id:group_id>", GroupView.as_view(), name="theme-b2b-group"),
    path("b2b/my-group", MyGroupView.as_view(), name="theme-b2b-my-group"),
]

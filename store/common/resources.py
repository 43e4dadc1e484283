"""One resource by its id: GET, PATCH (PUT is the same partial update) and DELETE, declared.

Most store resources are read, partly updated and deleted the same way: validate the body,
call one service, answer the fresh representation; delete and answer 204. A subclass declares
what it serves and gets the methods and their OpenAPI operations:

    class BrandDetailView(StoreResourceView):
        access = READ_PUBLIC_WRITE_MANAGERS
        openapi_tag = "Brands"
        resource = "brand"                          # "Read a brand", "Delete a brand", ...
        id_kwarg = "brand_id"                       # the URL's path parameter
        output_serializer = s.BrandSerializer       # documents the answer
        write_serializer = s.BrandWriteSerializer   # validates PATCH/PUT; None: no PATCH/PUT

        def read(self, request, pk): ...            # the body answered for one resource
        def update(self, request, pk, fields): ...  # one service call
        def remove(self, request, pk): ...          # one service call; absent: no DELETE

Optional: `summaries` and `descriptions` ({"patch": "..."}) override the generated texts, and
`errors` ({"patch": {409: "..."}}) documents statuses beyond the common ones.
"""

from __future__ import annotations

from typing import ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from store.common.params import validate_body
from store.common.schema import store_schema
from store.common.views import StoreAPIView


class StoreResourceView(StoreAPIView):
    resource: ClassVar[str] = ""
    id_kwarg: ClassVar[str] = ""
    output_serializer: ClassVar[type | None] = None
    write_serializer: ClassVar[type | None] = None
    summaries: ClassVar[dict[str, str]] = {}
    descriptions: ClassVar[dict[str, str]] = {}
    errors: ClassVar[dict[str, dict[int, str]]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.resource:  # an intermediate base
            return
        missing = [
            name
            for name, needed in (("read", True), ("update", cls.write_serializer is not None))
            if needed and not callable(getattr(cls, name, None))
        ]
        if missing or not cls.id_kwarg or cls.output_serializer is None:
            raise TypeError(
                f"{cls.__name__} must declare id_kwarg, output_serializer and define "
                f"{', '.join(missing) or 'its methods'}"
            )
        deletable = callable(getattr(cls, "remove", None))
        writable = cls.write_serializer is not None
        cls.http_method_names = [
            "get",
            "head",
            "options",
            *(["patch", "put"] if writable else []),
            *(["delete"] if deletable else []),
        ]
        extend_schema_view(**cls._operations(writable=writable, deletable=deletable))(cls)

    @classmethod
    def _operations(cls, *, writable: bool, deletable: bool) -> dict:
        article = "an" if cls.resource[0] in "aeiou" else "a"
        name = f"{article} {cls.resource}"
        path_id = [OpenApiParameter(cls.id_kwarg, int, OpenApiParameter.PATH)]

        def operation(method: str, summary: str, **kwargs):
            description = cls.descriptions.get(method)
            if description:
                kwargs["description"] = description
            return store_schema(
                summary=cls.summaries.get(method, summary),
                parameters=path_id,
                errors=cls.errors.get(method),
                **kwargs,
            )

        operations = {
            "get": operation("get", f"Read {name}", responses={200: cls.output_serializer})
        }
        if writable:
            for method in ("patch", "put"):
                operations[method] = operation(
                    method,
                    f"Update {name} (partial)",
                    request=cls.write_serializer,
                    responses={200: cls.output_serializer},
                )
        if deletable:
            operations["delete"] = operation("delete", f"Delete {name}", responses={204: None})
        return operations

    def get(self, request, **kwargs):
        return Response(self.read(request, kwargs[self.id_kwarg]))

    def patch(self, request, **kwargs):
        pk = kwargs[self.id_kwarg]
        fields = validate_body(self.write_serializer, request.data, partial=True)
        self.update(request, pk, fields)
        return Response(self.read(request, pk))

    def put(self, request, **kwargs):
        return self.patch(request, **kwargs)

    def delete(self, request, **kwargs):
        self.remove(request, kwargs[self.id_kwarg])
        return Response(status=status.HTTP_204_NO_CONTENT)

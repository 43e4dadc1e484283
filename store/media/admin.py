from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.utils.html import format_html

from common.admin import ActionsInHistory, RefusalsAsMessages
from common.errors import ServiceError
from store.media import imaging, services
from store.media.models import MediaImage


def image_preview(image: MediaImage | None, *, height: int = 60):
    """An <img> of the image's thumbnail for list and change pages (no query)."""
    if image is None:
        return "—"
    return format_html(
        '<img src="{}" alt="{}" style="max-height:{}px;max-width:{}px;border-radius:3px">',
        image.rendition_url("thumbnail") or image.url,
        image.alt_text,
        height,
        height * 2,
    )


class MediaUploadForm(forms.ModelForm):
    upload = forms.FileField(help_text="JPEG, PNG, GIF, WebP or AVIF.")

    class Meta:
        model = MediaImage
        fields = ["alt_text", "title"]

    def clean_upload(self):
        upload = self.cleaned_data["upload"]
        if upload.size > services.max_upload_bytes():
            raise forms.ValidationError(services.too_large(upload.size).detail)
        data = upload.read()
        upload.seek(0)
        try:
            imaging.sniff(data, max_pixels=settings.STORE_MEDIA_MAX_PIXELS)
        except imaging.ImageRefused as refused:
            raise forms.ValidationError(refused.message) from None
        return upload


@admin.register(MediaImage)
class MediaImageAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
    list_display = ["preview", "__str__", "content_type", "width", "height", "size", "created_at"]
    list_display_links = ["preview", "__str__"]
    list_filter = ["content_type", "created_at"]
    search_fields = ["title", "original_name", "alt_text"]
    readonly_fields = [
        "large_preview",
        "file",
        "original_name",
        "content_type",
        "size",
        "width",
        "height",
        "renditions",
        "uploaded_by",
        "created_at",
    ]
    list_select_related = ["uploaded_by"]
    actions = ["regenerate"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = MediaUploadForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["upload", "alt_text", "title"]
        return ["large_preview", "alt_text", "title", *self.readonly_fields[1:]]

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.readonly_fields

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj)

    @admin.display(description="Preview")
    def large_preview(self, obj):
        return image_preview(obj, height=300)

    def save_model(self, request, obj, form, change):
        if change:
            services.media_update(image=obj, alt_text=obj.alt_text, title=obj.title)
            return
        image = services.media_upload(
            file=form.cleaned_data["upload"],
            user=request.user,
            alt_text=obj.alt_text,
            title=obj.title,
        )
        obj.__dict__.update(image.__dict__)

    def delete_model(self, request, obj):
        services.media_delete(image=obj)

    def delete_queryset(self, request, queryset):
        for image in queryset:
            services.media_delete(image=image)

    @admin.action(description="Make the renditions again")
    def regenerate(self, request, queryset):
        done = 0
        for image in queryset:
            try:
                services.media_regenerate_renditions(image=image)
                done += 1
            except (OSError, ServiceError) as exc:
                self.message_user(request, f"{image}: {exc}", messages.ERROR)
        self.message_user(request, f"{done} image(s) re-rendered.")

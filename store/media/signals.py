from django.dispatch import Signal

# Sent after an image was edited, re-rendered or deleted (keyword argument: image_id), so
# that what shows it (cached product lists) can refresh.
media_changed = Signal()

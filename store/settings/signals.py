from django.dispatch import Signal

# Sent after a section changed (keyword argument: section). The catalog drops its cached lists.
section_changed = Signal()

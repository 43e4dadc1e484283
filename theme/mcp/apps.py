from django.apps import AppConfig


class ThemeMcpConfig(AppConfig):
    """The AI tool endpoint: an MCP server over Streamable HTTP at /rest/theme/v1/mcp with read-only
    store abilities for administrators."""

    name = "theme.mcp"
    label = "theme_mcp"
    verbose_name = "Theme: AI tool endpoint"

"""The theme namespace (/{REST_ROOT}/{THEME_NS}/v1/...), including the AI tool endpoint."""

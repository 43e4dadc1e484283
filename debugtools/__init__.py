"""The core namespace debug API (/{REST_ROOT}/{CORE_NS}/v1/...), administrators only."""

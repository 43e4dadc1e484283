"""Who acts: the account behind a request, a task or a command, when it is a logged-in one.

Services are given `user`/`actor` as the request has it (an AnonymousUser, None from a task or
a command, or an account); they keep or compare the account only through `logged_in()`.
"""

from __future__ import annotations


def logged_in(user):
    """`user` when it is a logged-in account, else None (anonymous, or nobody given)."""
    return user if user is not None and getattr(user, "is_authenticated", False) else None

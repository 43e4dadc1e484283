"""Forms of the account pages (accounts.pages): they only read input; services decide."""

from django import forms


class TokenForm(forms.Form):
    token = forms.CharField(max_length=200, widget=forms.HiddenInput)


class ResetPasswordForm(TokenForm):
    password = forms.CharField(
        label="New password",
        max_length=4096,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password", "autofocus": True}),
    )
    password_again = forms.CharField(
        label="New password, again",
        max_length=4096,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        cleaned = super().clean()
        first, second = cleaned.get("password"), cleaned.get("password_again")
        if first and second and first != second:
            self.add_error("password_again", "The two passwords differ.")
        return cleaned

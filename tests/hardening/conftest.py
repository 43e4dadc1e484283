# The store's fixtures (application-password clients per role, media under a temporary root).

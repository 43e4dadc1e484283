# Roles are Django groups and capabilities are permissions: both are edited in the
# "Authentication and Authorization" section of the admin (Groups, Users).

"""The agent systems toolkit reads, one package each, and the registry that lists them.

``base/`` holds what systems share; ``registry.py`` the one list (``SYSTEMS``) and the
tables gathered from it; ``load.py`` walks a project folder. Outside this package nothing
imports a system's package: ask ``registry``.
"""

"""What the agent systems share: the ``System`` record, file reading, shell and path parsing.

No module here names one system; a system package imports these, ``core`` and ``errors``.
"""

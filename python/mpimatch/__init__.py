"""mpimatch: the Python side of the MPI message-matching lab.

Modules: tools (find the C executables), replay (run them, read their JSON),
report (the engine list, units), atomic (the one output-file writer), specs
(NAME:key=value specs against the C tools' catalogues), bench/ (the
`mpimatch bench` subpackage), cli (the `mpimatch` command), model (an
independent pure-Python reference of the matching rules).
"""
__version__ = "0.3.0"

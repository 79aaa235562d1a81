"""mpimatch: the Python side of the MPI message-matching lab.

Modules: tools (find the C executables), replay (run them, read their JSON),
report (rich tables), bench (interim benchmark), cli (the `mpimatch`
command), model (an independent pure-Python reference of the matching rules).
"""
__version__ = "0.1.0"

# help2man.cmake - a tool's man page from its --help, so the two never differ.
#   cmake -DTOOL=EXE -DNAME=NAME -DSUMMARY=TEXT -DVERSION=X.Y.Z -DOUT=FILE -P help2man.cmake
# The page is NAME, the --help text verbatim (no fill, roff-escaped) and SEE ALSO.
# In a sanitized build the tool is instrumented: its --help exits at once, and a leak report
# about what it did not free would fail the build for nothing.
set(ENV{ASAN_OPTIONS} "detect_leaks=0:$ENV{ASAN_OPTIONS}")
execute_process(COMMAND ${TOOL} --help OUTPUT_VARIABLE help ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT help MATCHES "usage:")
  message(FATAL_ERROR "${NAME} --help: status ${rc}, no usage line: ${err}")
endif()
string(REPLACE "\\" "\\e" help "${help}")      # a backslash prints as itself
string(REPLACE "-" "\\-" help "${help}")       # options stay ASCII hyphen-minus
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")  # no line is a request
string(TOUPPER "${NAME}" upper)
string(REPLACE "-" "\\-" name_esc "${NAME}")
file(WRITE "${OUT}.tmp"
  ".TH ${upper} 1 \"\" \"mpimatch ${VERSION}\" \"mpimatch manual\"\n"
  ".SH NAME\n${name_esc} \\- ${SUMMARY}\n"
  ".SH DESCRIPTION\nWhat\n.B ${name_esc} \\-\\-help\nprints:\n.PP\n.nf\n${help}.fi\n"
  ".SH SEE ALSO\n.BR mpimatch (3);\n"
  "the project's documentation, docs/*.md in its source tree.\n")
file(RENAME "${OUT}.tmp" "${OUT}")

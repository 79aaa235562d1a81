/*
 * cli.h - small helpers shared by the command-line tools: option matching,
 * strict integer parsing and error printing.
 */
#ifndef MM_TOOLS_CLI_H
#define MM_TOOLS_CLI_H

#include <stdint.h>

/* Exit codes shared by the tools. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* The program name for messages ("mpimatch-replay"). */
extern const char *cli_prog;

/* Print "<prog>: <message>\n" to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Does argv[*i] name option `name`, as "--name VALUE" or "--name=VALUE"?
 * Returns 1 and sets *value (advancing *i past a separate value), 0 if it
 * is another argument, -1 (after printing an error) if the value is
 * missing. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value);

/* cli_opt for an integer option in [min, max]: 1 with *out set, 0 if argv[*i]
 * is another argument, -1 (after printing an error) if missing or bad. */
int cli_opt_int(int argc, char **argv, int *i, const char *name, int64_t min, int64_t max,
                int64_t *out);

/* Strict decimal integer in [min, max]: optional '-', digits only.
 * Returns 0, or -1 if malformed or out of range. */
int cli_int(const char *s, int64_t min, int64_t max, int64_t *out);

#endif /* MM_TOOLS_CLI_H */

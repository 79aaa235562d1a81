/*
 * cli.h - small helpers shared by the command-line tools: option matching,
 * strict integer parsing and error printing.
 */
#ifndef MM_TOOLS_CLI_H
#define MM_TOOLS_CLI_H

#include <stdint.h>

/* Exit codes shared by the tools: one status for one cause, in every tool
 * (CLI_EXIT_STATUS is the text their --help prints). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* The table every --help prints: CLI_EXIT_STATUS_1 (a tool may add causes
 * of status 1 after it, as ";\n     ..."), CLI_EXIT_STATUS_2 (the same for 2),
 * then "\n"; or CLI_EXIT_STATUS for a tool with no causes of its own. */
#define CLI_EXIT_STATUS_1                                                      \
    "Exit status (the same in every mpimatch tool):\n"                         \
    "  0  ok\n"                                                                \
    "  1  failure while running: out of memory, or a write error (a full\n"   \
    "     disk, /dev/full), with a message"
#define CLI_EXIT_STATUS_2                                                      \
    "\n  2  usage error or bad input (the message says where), or an output\n" \
    "     path that cannot be created (checked before any work)"
#define CLI_EXIT_STATUS CLI_EXIT_STATUS_1 CLI_EXIT_STATUS_2 "\n"

/* The program name for messages ("mpimatch-replay"). */
extern const char *cli_prog;

/* Set cli_prog and check standard output at exit: if anything written to
 * it failed (a full disk, /dev/full), print "<prog>: error writing standard
 * output: <reason>" and exit with CLI_FAIL. Every tool calls it first. */
void cli_init(const char *prog);
/* A standard output write error was reported already (with its status):
 * the exit check stays silent. */
void cli_stdout_reported(void);
/* Flush standard output: 0, or CLI_FAIL after "<prog>: error writing
 * standard output: <reason>". */
int  cli_flush_stdout(void);

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

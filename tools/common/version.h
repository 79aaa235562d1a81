/*
 * version.h - the version string the tools print and write into their
 * JSON outputs.
 */
#ifndef MM_TOOLS_VERSION_H
#define MM_TOOLS_VERSION_H

#include "mpimatch.h"

/* "0.1.0": the library version the tools were built with. */
#define MM_STR2_(x) #x
#define MM_STR_(x) MM_STR2_(x)
#define MM_TOOLS_VERSION_STR \
    MM_STR_(MPIMATCH_VERSION_MAJOR) "." MM_STR_(MPIMATCH_VERSION_MINOR) "." MM_STR_(MPIMATCH_VERSION_PATCH)

#endif /* MM_TOOLS_VERSION_H */
